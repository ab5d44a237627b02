"""Play a match at the terminal against bots (``atout play``).

At each of your decisions the table is shown as your seat sees it (your hand,
the turn-up, the trick, the score) with the legal actions numbered.  Answer
with one move per line: the number, the action's text (``I propose``), its name in the
rules (``propose``), or a card (``K♠``, ``ks``, ``10h``); a line naming two moves, or a
name several legal moves share (``bid``), is refused with the reason, as is a move that
is not legal now.  Enter plays a forced move; ``show`` shows the table again; ``help``
lists the commands and the moves; ``quit`` or ctrl-D leaves.

The table itself (layout, reading a move, the reports of tricks and deals) is :mod:`.table_ui`, which the
exported module runs too; this module is the engine's adapter to it (:class:`EngineTable`) and the entry
point of ``atout play``.
"""
from __future__ import annotations

import os
import random

from .bots import make_bot
from .game import CHANCE, Game
from atout.compiler import ir

from . import table_ui
from .observe import deal_shown, trick_phase_reads, trump_suit


class EngineTable:
    """The engine's table adapter for :mod:`.table_ui` (see its docstring for the contract)."""

    def __init__(self, game: Game):
        g = self.game = game
        self.title = g.ir.title
        self.players = g.players
        self.sides = tuple(tuple(s) for s in g.ir.sides)
        self.num_cards = g.num_cards
        self.num_actions = g.num_distinct_actions()
        self.suit_names = tuple(g.deck.suits)
        self.zone_slots = tuple((z.name, z.owner, z.visibility) for z in g.zone_slots)
        self.variables = tuple(table_ui.Variable(v.name, v.scope, v.per, v.type.kind, v.visibility,
                                                 v.init.value if isinstance(v.init, ir.Const) else None)
                               for v in g.ir.vars)
        self._decl = {v.name: v for v in g.ir.vars}
        self.first_phase = g.ir.match.start
        self.has_trick_phase = any(p.kind == "trick" for p in g.ir.phases)
        self._reads = {p.name: frozenset(trick_phase_reads(g, p.name)) for p in g.ir.phases if p.kind == "trick"}

    # -- static --------------------------------------------------------------------------------------
    def card_str(self, c: int) -> str:
        return self.game.card_str(c)

    def card_parts(self, c: int) -> tuple[str, str]:
        s, i = divmod(c, self.game.nranks)
        return self.game.deck.ranks[i], self.game.deck.suits[s]

    def phase_kind(self, name):
        ph = self.game.phases.get(name)
        return ph.kind if ph is not None else None

    def trick_reads(self, name):
        return self._reads.get(name, frozenset())

    def trump_var(self, name):
        t = self.game.phases[name].trick.trump
        return t.name if isinstance(t, ir.VarRef) else None

    def has_trumps(self, name):
        trick = self.game.phases[name].trick
        return not (isinstance(trick.trump, ir.Const) and trick.trump.value == ir.NONE and not trick.trump_order)

    def action_names(self, a):
        slot = self.game.slot(a)
        return slot.name, _enum_value_name(self.game, slot)

    # -- of a state ----------------------------------------------------------------------------------
    def view(self, state) -> table_ui.View:
        terminal = state.terminal
        mover = state.player_to_move() if not terminal and not state.pending else state.actor
        return table_ui.View(
            state.deal_number, state.dealer, state.phase, mover, state.actor, terminal,
            bool(state.pending) and not terminal, [list(z) for z in state.zones], set(state.revealed),
            list(state.trick_cards), state.trick_number, list(state.tricks_won),
            {k: (list(x) if isinstance(x, list) else x) for k, x in state.vars.items()}, trump_suit(state),
            deal_shown(state))

    def value_str(self, v, value) -> str:
        return self.game.value_str(value, self._decl[v.name].type)

    def pending_destination(self, state):
        if state.pending and state.pending[0][0] >= 0 and isinstance(state.pending[0][1], int):
            return state.pending[0][1]
        return None

    def last_public(self, state) -> bool:
        # the last action or chance outcome (the rules' effects after it log other entries: engine/recall.py)
        return next((bool(e[2]) for e in reversed(state.log) if e[0] >= CHANCE), True)

    def decision_actions(self, state) -> list[int]:
        return state.decision_actions()

    def selecting(self, state) -> bool:
        return state.selecting is not None

    def finished_deal(self, state, within: bool = False):
        d = state.deal_log[-1] if state.deal_log else {}
        return list(d.get("tricks") or state.tricks_won), dict(d.get("gains") or {})

    def why_not(self, state, a, legal):
        if a < self.num_cards:
            return self._card_rule_against(state, a, legal)
        from atout.compiler import span_text
        g = self.game
        name = state.action_to_string(a)
        slot = g.slot(a)
        ph = next((p for p in g.ir.phases if p.name == state.phase), None)
        if a == g.done_action and ph is not None:      # 'done' before the fewest cards a choice takes
            k, lo = 0, None
            act = next((x for x in ph.actions if x.param is not None and x.param.kind == "choose"), None)
            if state.selecting is None and act is None:
                return f"'done' ends a choice of cards, and none is being made now (phase {state.phase})"
            if state.selecting is not None:
                _, k, lo, _ = state.selecting
            else:
                try:
                    lo = state.ev(act.param.low, {}) if act is not None else None
                except Exception:      # a bound that cannot be read here: say it without the number
                    lo = None
            least = f"at least {lo} card{'s' if lo != 1 else ''}" if lo is not None else "more cards"
            return f"'done' is not allowed yet: choose {least} first ({k} chosen so far)"
        act = next((x for x in ph.actions if x.name == slot.name), None) if ph is not None else None
        if act is None:
            return f"'{name}' belongs to another phase (now: {state.phase})"
        guard = act.guard
        p = act.param
        parts = _bounds_part(guard, p) if p is not None and p.kind == "domain" and p.type.kind == "int" else None
        if parts is not None:
            bounds, guard = parts     # bid(n: 0..hand_size): the compiler put the bounds first
            try:
                inside = state.test(bounds, {p.name: slot.value})
            except Exception:      # a bound that cannot be read here: let the condition speak
                inside = True
            if not inside:
                sp = p.span
                text = (span_text(sp) or p.name).strip("()")
                return f"'{name}' is not allowed now: {slot.value} is outside `{text}` as it stands " \
                       f"({os.path.basename(sp.path)}:{sp.line})"
            if guard is None:
                return None
        cond = span_text(getattr(guard, "span", None)) if guard is not None else None
        if cond and not isinstance(guard, ir.Const):
            sp = guard.span
            return f"'{name}' is not allowed now: its condition `{cond}` does not hold " \
                   f"({os.path.basename(sp.path)}:{sp.line})"
        return None

    def _card_rule_against(self, state, card, legal):
        """Why a card of the hand that the follow rules allow is not legal: the first ``lead c when`` or
        ``card c when`` rule that was in force (some legal card satisfies it) and that it fails; None when no
        such rule explains it (then the follow rules do)."""
        ph = next((p for p in self.game.ir.phases if p.name == state.phase), None)
        trick = ph.trick if ph is not None else None
        if trick is None or not trick.card_rules or card in legal or self.game.hand_base is None or \
                card not in state.zones[self.game.hand_base + state.to_play]:
            return None
        leading = not state.trick_cards
        for r in trick.card_rules:
            if r.kind == "lead" and not leading:
                continue
            try:
                if state.test(r.condition, {r.var: card}) or \
                        not any(state.test(r.condition, {r.var: c}) for c in legal if c < self.num_cards):
                    continue
            except Exception:        # a condition that cannot be read here: let the follow rules speak
                return None
            sp = r.span
            return f"{self.card_str(card)} may not be played now: the rule `{_card_rule_text(r)}` " \
                   f"({os.path.basename(sp.path)}:{sp.line}) forbids it while you hold a card it allows"
        return None


def _card_rule_text(r) -> str:
    from atout.compiler import span_text
    return span_text(r.span) or f"{r.kind} {r.var} when ..."


def _bounds_part(guard, p):
    """``(bounds test, the written guard or None)`` of the guard of an action whose int parameter has bounds
    read from the state (the compiler writes them first in its guard, spanned at the parameter); None for
    any other guard."""
    if guard is None or getattr(guard, "span", None) is None:
        return None
    if guard.span == p.span:
        return guard, None
    if isinstance(guard, ir.BinOp) and guard.op == "and" and getattr(guard.left, "span", None) == p.span:
        return guard.left, guard.right
    return None


def _enum_value_name(game: Game, slot) -> str | None:
    """The name in the rules of the enum value a named action's slot carries, or None."""
    if slot.value is None:
        return None
    for ph in game.ir.phases:
        for act in ph.actions:
            p = act.param
            if act.name == slot.name and p is not None and p.kind == "domain" and p.type.kind == "enum":
                e = next((e for e in game.ir.enums if e.name == p.type.enum), None)
                if e is not None and 0 <= slot.value < len(e.values):
                    return e.values[slot.value]
    return None


def table_of(game: Game) -> EngineTable:
    """The (cached) table adapter of ``game``."""
    t = getattr(game, "_table_adapter", None)
    if t is None:
        t = EngineTable(game)
        game._table_adapter = t
    return t


def parse_choice(game: Game, state, text: str, legal: list[int]) -> tuple[int | None, str | None]:
    """Interpret one line ``text`` as exactly one of ``legal``: (action, None) or (None, reason); see
    :func:`.table_ui.parse_choice`."""
    return table_ui.parse_choice(table_of(game), state, text, legal, range(game.num_distinct_actions()))


def action_label(state, action: int) -> str:
    """The action's text, with the rule file's name of a named action when the text does not say it
    (``Please (accept)``, ``We play (refuse)``)."""
    return table_ui.action_label(table_of(state.game), state, action)


def play_terminal(game: Game, seat: int, bot: str, seed: int | None, input_fn=input, out=None) -> int:
    """Run an interactive match; returns the exit status (0, also when the player quits).

    ``seat`` is the person's 0-based seat; the other seats are played by ``bot`` (``random`` or
    ``greedy``); ``seed`` fixes the shuffles and the bots.  ``input_fn(prompt)`` reads one answer
    (``EOFError`` leaves, like ``quit``); everything is printed to ``out`` (default stdout).
    Raises RuleError when the rules leave the person or a bot without a legal move (a dead end).
    """
    rng = random.Random(seed)
    bots = {p: make_bot(bot, rng.randrange(2**32)).step for p in range(game.players) if p != seat}
    state = game.new_initial_state()
    return table_ui.play_match(table_of(game), state, seat, bots, bot, rng, input_fn, out)


def play_announcement(state, seat: int | None) -> str:
    """What the table is told when a trick phase begins: see :func:`.table_ui.play_announcement`."""
    t = table_of(state.game)
    return table_ui.play_announcement(t, t.view(state), seat)


def partnerships(game: Game, seat: int | None) -> str:
    """'you & seat 2 vs seat 1 & seat 3', or '' in a game without sides."""
    return table_ui.partnerships(table_of(game), seat)


def deal_gains(state, deal: dict, seat: int | None) -> str:
    """What a deal changed of each per-player or per-side int match variable ('points you 0, seat 1 2'), as
    ``seat`` may see it ('?' for an entry he does not see; None: everything); '' when it changed nothing.
    ``deal`` is a record's deal summary (its ``gains``; records older than that field give ``points``).  The
    wording is the terminal table's (``table_ui.gains_text``)."""
    gains = deal.get("gains") or {"points": deal.get("points", [])}
    return table_ui.gains_text(table_of(state.game), gains, seat)


def _outcome(game, r: list, seat: int) -> str:
    """'you win', 'you lose' or 'a tie' (partnerships: 'your side wins')."""
    return table_ui.outcome_text(table_of(game), r, seat)

"""The state of a match and its transitions, run from the IR.

A :class:`State` is a node of the game tree.  It pauses at three kinds of node:

* a *chance node* — effects are drawing a card from a hidden zone; the outcomes
  are the cards in that zone, uniformly (``chance_outcomes()``);
* a *decision* — a choice phase's actor, or the player to play in a trick
  phase, picks one of ``legal_actions()``;
* the *terminal* node — the match's ``ends when`` condition holds.

Effects run on a small stack machine (frames of statements) so that a chance
draw can pause them midway and resume after the outcome is applied.
"""
from __future__ import annotations

import copy

from atout.compiler import ir

from .evaluate import RuleError
from .game import CHANCE, TERMINAL, Game

MAX_AUTO_STEPS = 100_000
_NO_ENV: dict = {}  # the empty environment of closures evaluated outside actions (never mutated)
DEALER_DRAW = -2  # a pending chance event that picks the first dealer (``first dealer random``), not a card draw


class _NextTrick(ir.Stmt):
    """Internal statement (never in the IR): start the next trick once the `after trick` block has run."""


_NEXT_TRICK = _NextTrick()


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to."""


class State:
    """A node of a match.  Create with ``game.new_initial_state()``."""

    def __init__(self, game: Game):
        self.game = game
        g = game.ir
        self.zones: list[list[int]] = [[] for _ in game.zone_slots]
        self.zones[game.home_zone] = list(range(game.num_cards))
        self.vars: dict[str, object] = {}
        self.dealer = 0
        self.deal_number = 0
        self.actor = -1
        self.phase: str | None = None
        self.terminal = False
        self.history: list[int] = []
        self.log: list[tuple[int, int, bool]] = []  # (actor or CHANCE, action, seen by all)
        self.revealed: set[int] = set()
        # trick play
        self.tricks_won = [0] * game.players
        self.trick_cards: list[tuple[int, int]] = []
        self.trick_leader = -1
        self.trick_number = 0
        self.last_winner = -1
        self.to_play = -1
        self.deal_open = False
        self.on_score = None  # optional hook f(table, names of the rows that fire), used by the verifier
        self.dirty = True  # variables changed since the match-end condition was last checked
        # choice in progress: (action, chosen so far, low, high)
        self.selecting: tuple[ir.Action, int, int, int] | None = None
        # effects in progress: frames [stmts, index, env, loop_players or None]
        self.frames: list[list] = []
        self.pending: list[tuple[int, int]] = []  # draws (from zone, to zone) awaiting chance
        # per finished deal: {"points": change of each player's int match variables, "vars": deal int variables}
        self.deal_log: list[dict] = []
        ev = game.compile
        for v in g.vars:
            if v.scope == "match":
                self._init_var(v)
        if game.dealer_by_chance:
            # `first dealer random`: the match opens with a chance node whose outcomes are the seats.  The deal
            # variables get their initial values now (the deal sets them again) so that this node can be observed.
            for v in g.vars:
                if v.scope == "deal":
                    self._init_var(v)
            self.pending.append((DEALER_DRAW, DEALER_DRAW))
            return
        self.dealer = ev(g.match.first_dealer)(self, {})
        self._start_deal()
        self._settle()

    # -- OpenSpiel-shaped API -------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to act (0-based), ``CHANCE`` (-1) at a chance node, ``TERMINAL`` (-4) at the end."""
        if self.terminal:
            return TERMINAL
        if self.pending:
            return CHANCE
        return self.actor

    def is_chance_node(self) -> bool:
        return not self.terminal and bool(self.pending)

    def is_terminal(self) -> bool:
        return self.terminal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(card id, probability)]`` for the next draw, uniform over the cards of the source zone;
        ``[(seat, 1/players)]`` when the first dealer is chosen by chance."""
        if not self.is_chance_node():
            raise IllegalActionError("chance_outcomes() called at a node that is not a chance node")
        if self.pending[0][0] == DEALER_DRAW:
            n = self.game.players
            return [(p, 1.0 / n) for p in range(n)]
        src = self.zones[self.pending[0][0]]
        p = 1.0 / len(src)
        return [(c, p) for c in sorted(src)]

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal action ids of the player to act (chance outcomes at a chance node)."""
        if self.terminal:
            return []
        if self.pending:
            if self.pending[0][0] == DEALER_DRAW:
                return list(range(self.game.players))
            return sorted(self.zones[self.pending[0][0]])
        if player is not None and player != self.actor:
            return []
        return sorted(self._legal())

    def apply_action(self, action: int) -> None:
        """Apply ``action`` (a legal action id, or a chance outcome at a chance node).

        Raises IllegalActionError naming the action and the state when it is not legal.
        """
        if self.terminal:
            raise IllegalActionError(f"the match is over; no action can be applied ({self._where()})")
        if self.pending:
            src, dst = self.pending[0]
            if src == DEALER_DRAW:
                if not (isinstance(action, int) and 0 <= action < self.game.players):
                    raise IllegalActionError(f"chance outcome {action} is not a seat 0..{self.game.players - 1} "
                                             f"(the first dealer is being chosen)")
                self.history.append(action)
                self.log.append((CHANCE, action, True))
                self.pending.pop(0)
                self.dealer = action
                self._start_deal()
                self._settle()
                return
            if action not in self.zones[src]:
                raise IllegalActionError(f"chance outcome {action} ({self._action_name(action)}) is not in "
                                         f"{self.game.zone_slots[src].label} ({self._where()})")
            self.history.append(action)
            self.log.append((CHANCE, action, False))
            self.pending.pop(0)
            self.zones[src].remove(action)
            self.zones[dst].append(action)
            self._settle()
            return
        legal = self._legal()
        if action not in legal:
            names = ", ".join(self.action_to_string(a) for a in sorted(legal)[:12])
            raise IllegalActionError(f"illegal action {action} ({self._action_name(action)}) for seat {self.actor} "
                                     f"in {self._where()}; legal: {names}")
        self.history.append(action)
        self.log.append((self.actor, action, legal[action][0] in ("play", "named", "done")))
        self._apply(action, legal[action])
        self._settle()

    def action_to_string(self, action: int, player: int | None = None) -> str:
        """Text of an action in this state: ``play K♠``, ``discard 7♥``, ``I propose``, ``deal Q♦``."""
        g = self.game
        if self.pending and self.pending[0][0] == DEALER_DRAW:
            return f"seat {action} deals"
        if self.pending and action < g.num_cards:
            return f"deal {g.card_str(action)}"
        if action < g.num_cards:
            verb = "play"
            if self.phase is not None and g.phases[self.phase].kind == "choice":
                for a in g.phases[self.phase].actions:
                    if a.param is not None and a.param.kind in ("card", "choose"):
                        verb = a.label
            return f"{verb} {g.card_str(action)}"
        if 0 <= action - g.num_cards < len(g.ir.action_slots):
            slot = g.slot(action)
            if slot.name == "done" and self.selecting is not None:
                return f"done ({self.selecting[1]} chosen)"
            return slot.text
        return f"<action {action}>"

    def returns(self) -> list[float]:
        """Each player's result: ``returns(p)`` of the match at the end, 0 before."""
        if not self.terminal:
            return [0.0] * self.game.players
        f = self.game.compile(self.game.ir.match.returns)
        var = self.game.ir.match.returns_var
        return [float(f(self, {var: p})) for p in range(self.game.players)]

    def rewards(self) -> list[float]:
        return self.returns() if self.terminal else [0.0] * self.game.players

    def clone(self) -> "State":
        new = copy.copy(self)
        new.zones = [list(z) for z in self.zones]
        new.vars = {k: (list(v) if isinstance(v, list) else v) for k, v in self.vars.items()}
        new.history = list(self.history)
        new.log = list(self.log)
        new.revealed = set(self.revealed)
        new.tricks_won = list(self.tricks_won)
        new.trick_cards = list(self.trick_cards)
        # a frame's loop state (var, players still to visit) is consumed in place: copy it too
        new.frames = [[f[0], f[1], f[2], None if f[3] is None else (f[3][0], list(f[3][1]))]
                      for f in self.frames]
        new.pending = list(self.pending)
        new.deal_log = list(self.deal_log)
        return new

    def observation_string(self, player: int) -> str:
        """What ``player`` sees: public zones, his own private zones, sizes of the rest, variables, the trick."""
        from .observe import observation_string
        return observation_string(self, player)

    def information_state_string(self, player: int) -> str:
        from .observe import information_state_string
        return information_state_string(self, player)

    def __str__(self) -> str:
        from .observe import full_string
        return full_string(self)

    # -- internals: legality ----------------------------------------------------------------
    def _legal(self) -> dict[int, tuple]:
        """Map legal action id -> how to apply it."""
        g = self.game
        out: dict[int, tuple] = {}
        ph = g.phases[self.phase]
        ev = g.compile
        if self.selecting is not None:
            act, k, lo, hi = self.selecting
            src = ev.zone(act.param.zone)(self, {})
            if k < hi:
                for c in self.zones[src]:
                    out[c] = ("choose", act)
            if k >= lo:
                out[g.done_action] = ("done", act)
            return out
        if ph.kind == "trick":
            for c in self._playable_cards(ph.trick):
                out[c] = ("play", None)
        for act in ph.actions:
            p = act.param
            guard = ev(act.guard)
            if p is None:
                if guard(self, {}):
                    out[g.slot_index[(act.name, None)]] = ("named", act, None)
            elif p.kind == "domain":
                for i in range(self._domain_size(p.type)):
                    if guard(self, {p.name: i}):
                        out[g.slot_index[(act.name, i)]] = ("named", act, i)
            elif p.kind == "card":
                zi = ev.zone(p.zone)(self, {})
                for c in self.zones[zi]:
                    if guard(self, {p.name: c}):
                        out[c] = ("card", act)
            else:  # choose
                lo = ev(p.low)(self, {})
                hi = min(ev(p.high)(self, {}), len(self.zones[ev.zone(p.zone)(self, {})]))
                if hi < max(lo, 1) and lo > 0:
                    continue
                if not guard(self, {p.name: 0}):
                    continue
                if hi >= 1:
                    for c in self.zones[ev.zone(p.zone)(self, {})]:
                        out[c] = ("choose", act)
                if lo <= 0:
                    out[g.done_action] = ("done", act)
        return out

    def _domain_size(self, t: ir.Type) -> int:
        if t.kind == "suit":
            return len(self.game.deck.suits)
        if t.kind == "player":
            return self.game.players
        for e in self.game.ir.enums:
            if e.name == t.enum:
                return len(e.values)
        return 0

    def _trump(self, trick: ir.Trick) -> int:
        return self.game.trick_plan(trick).trump(self, _NO_ENV)

    def _order(self, trump: int) -> tuple[list[int], list[int]]:
        """The suit and strength of every card in the current trick phase under ``trump`` (bowers apply)."""
        ph = self.game.phases.get(self.phase) if self.phase is not None else None
        trick = ph.trick if ph is not None else None
        if trick is None:
            return self.game.suit_of, self.game.strength_of
        plan = self.game.trick_plan(trick)
        return plan.suits_by[trump + 1], plan.strength_by[trump + 1]

    def _led_suit(self) -> int:
        """The suit led to the current trick (a left bower leads trumps), or -1."""
        if not self.trick_cards:
            return -1
        return self._order(self._trump(self.game.phases[self.phase].trick))[0][self.trick_cards[0][1]]

    def _beats(self, a: int, b: int, trump: int) -> bool:
        """Whether card ``a`` beats card ``b`` (the current winner) under ``trump``."""
        so, st = self._order(trump)
        if so[a] == so[b]:
            return st[a] > st[b]
        return so[a] == trump

    def _trick_winner(self, trump: int) -> int:
        best_p, best_c = self.trick_cards[0]
        for p, c in self.trick_cards[1:]:
            if self._beats(c, best_c, trump):
                best_p, best_c = p, c
        return best_p

    def _playable_cards(self, trick: ir.Trick) -> list[int]:
        """Cards the player to play may play under the follow rules (must follow, trump, head)."""
        g = self.game
        hand = self.zones[g.hand_base + self.to_play]
        if not self.trick_cards:
            return list(hand)
        plan = g.trick_plan(trick)
        rules = {kind for kind, cond in plan.follow if cond(self, _NO_ENV)}
        trump = plan.trump(self, _NO_ENV)
        so = plan.suits_by[trump + 1]
        led = so[self.trick_cards[0][1]]
        cands = list(hand)
        free = False  # void in the suit led and not obliged to trump: any card, no duty to head (AC)
        if "suit" in rules:
            same = [c for c in cands if so[c] == led]
            if same:
                cands = same
            else:
                trumps = [c for c in cands if so[c] == trump] if "trump" in rules and trump >= 0 else []
                if trumps:
                    cands = trumps
                else:
                    free = True
        elif "trump" in rules and trump >= 0 and not any(so[c] == led for c in cands):
            trumps = [c for c in cands if so[c] == trump]
            if trumps:
                cands = trumps
        if "head" in rules and not free:
            best_p, best_c = self.trick_cards[0]
            for p, c in self.trick_cards[1:]:
                if self._beats(c, best_c, trump):
                    best_c = c
            winning = [c for c in cands if self._beats(c, best_c, trump)]
            if winning:
                cands = winning
        return cands

    # -- internals: applying actions ------------------------------------------------------------
    def _apply(self, action: int, how: tuple) -> None:
        g = self.game
        ev = g.compile
        kind = how[0]
        if kind == "play":
            self._play_card(action)
            return
        if kind == "named":
            _, act, value = how
            env = {} if act.param is None else {act.param.name: value}
            self._push(act.body, env)
            return
        if kind == "card":
            act = how[1]
            self._push(act.body, {act.param.name: action})
            return
        if kind == "choose":
            act = how[1]
            p = act.param
            if self.selecting is None:
                lo = ev(p.low)(self, {})
                hi = min(ev(p.high)(self, {}), len(self.zones[ev.zone(p.zone)(self, {})]))
                self.selecting = (act, 0, lo, hi)
            _, k, lo, hi = self.selecting
            src = ev.zone(p.zone)(self, {})
            dst = ev.zone(p.dest)(self, {})
            self.zones[src].remove(action)
            self.zones[dst].append(action)
            k += 1
            self.selecting = (act, k, lo, hi)
            if k >= hi:
                self.selecting = None
                self._push(act.body, {p.name: k})
            return
        if kind == "done":
            act = how[1]
            k = self.selecting[1] if self.selecting is not None else 0
            self.selecting = None
            self._push(act.body, {act.param.name: k})
            return
        raise AssertionError(kind)  # pragma: no cover

    def _play_card(self, card: int) -> None:
        g = self.game
        ph = g.phases[self.phase]
        trick = ph.trick
        p = self.to_play
        self.zones[g.hand_base + p].remove(card)
        self.zones[g.trick_zone].append(card)
        self.trick_cards.append((p, card))
        skip = self._skipped(trick)
        if len(self.trick_cards) < len(self._active_players(trick, skip)):
            self.to_play = self._next_active(p, trick, skip)
            self.actor = self.to_play
            return
        winner = self._trick_winner(self._trump(trick))
        self.tricks_won[winner] += 1
        taken = self.zones[g.taken_base + winner]
        taken.extend(self.zones[g.trick_zone])
        self.zones[g.trick_zone].clear()
        self.trick_cards = []
        self.last_winner = winner
        count = g.trick_plan(trick).count(self, _NO_ENV)
        # What follows the trick runs after the `after trick` block (pushed last, so it runs first).
        self._push(trick.then if self.trick_number >= count else (_NEXT_TRICK,), {})
        if trick.after:
            self._push(trick.after, {})

    def _next_trick(self) -> None:
        """The winner of the trick just played leads the next one."""
        self.trick_number += 1
        self.trick_leader = self.last_winner
        self.to_play = self.last_winner
        self.actor = self.last_winner

    def _skipped(self, trick: ir.Trick) -> set[int]:
        """The players who sit out of the tricks (``skip A, B``; ``none`` skips nobody)."""
        return {f(self, _NO_ENV) for f in self.game.trick_plan(trick).skips}

    def _active_players(self, trick: ir.Trick, skip: set[int] | None = None) -> list[int]:
        if skip is None:
            skip = self._skipped(trick)
        active = [p for p in range(self.game.players) if p not in skip]
        if not active:
            raise RuleError("every player sits out of the tricks ('skip')", trick.span)
        return active

    def _next_active(self, p: int, trick: ir.Trick, skip: set[int] | None = None) -> int:
        if skip is None:
            skip = self._skipped(trick)
        n = self.game.players
        q = (p + 1) % n
        while q in skip:
            if q == p:
                raise RuleError("every player sits out of the tricks ('skip')", trick.span)
            q = (q + 1) % n
        return q

    # -- internals: the effect machine -------------------------------------------------------------
    def _push(self, body: tuple[ir.Stmt, ...], env: dict) -> None:
        self.frames.append([body, 0, env, None])

    def _enter_phase(self, name: str) -> None:
        g = self.game
        ph = g.phases[name]
        self.phase = name
        self.selecting = None
        if ph.kind == "auto":
            self._push(ph.body, {})
        elif ph.kind == "choice":
            self.actor = g.compile(ph.actor)(self, {})
        else:
            trick = ph.trick
            self.trick_number = 1
            self.trick_cards = []
            leader = g.compile(trick.leader)(self, {})
            if leader in self._skipped(trick):
                leader = self._next_active(leader, trick)
            self.trick_leader = leader
            self.to_play = leader
            self.actor = leader

    def _settle(self) -> None:
        """Run effects until a chance node, a decision or the end of the match."""
        g = self.game
        steps = 0
        while True:
            if self.dirty:
                self.dirty = False
                if self._match_over():
                    return
            if self.pending:
                return
            if not self.frames:
                if self.phase is not None and g.phases[self.phase].kind == "choice":
                    self.actor = g.compile(g.phases[self.phase].actor)(self, {})
                return
            steps += 1
            if steps > MAX_AUTO_STEPS:
                raise RuleError(f"effects ran {MAX_AUTO_STEPS} steps without a decision: a loop of automatic "
                                f"phases? (phase '{self.phase}')")
            frame = self.frames[-1]
            body, i, env, loop = frame
            if i >= len(body):
                if loop is not None and loop:
                    # next iteration of a `for p in players` loop
                    frame[2] = dict(env)
                    frame[2][loop[0]] = loop[1].pop(0)
                    frame[1] = 0
                    frame[3] = loop if loop[1] else None
                    continue
                self.frames.pop()
                continue
            frame[1] = i + 1
            self._exec(body[i], env)

    def _match_over(self) -> bool:
        if self.terminal:
            return True
        if self.game.compile(self.game.ir.match.ends_when)(self, {}):
            # the match ended during a deal (e.g. a king scored the last point), or by the deal's scoring
            # once its tricks were all played: only the first is an incomplete deal
            self._log_deal(complete=self._tricks_all_played())
            self.terminal = True
            self.frames.clear()
            self.pending.clear()
            self.phase = None
            self.actor = TERMINAL
            return True
        return False

    def _tricks_all_played(self) -> bool:
        """Whether the deal is in a trick phase whose last trick has been taken."""
        ph = self.game.phases.get(self.phase) if self.phase is not None else None
        if ph is None or ph.kind != "trick" or self.trick_cards:
            return False
        return sum(self.tricks_won) >= self.game.compile(ph.trick.count)(self, {})

    def _exec(self, s: ir.Stmt, env: dict) -> None:  # noqa: C901 - one case per statement type
        g = self.game
        ev = g.compile
        if isinstance(s, ir.Assign):
            self._assign(s, env)
            self.dirty = True
        elif isinstance(s, ir.Move):
            src = ev.zone(s.source)(self, env)
            dst = ev.zone(s.dest)(self, env)
            if s.count is None:
                self.zones[dst].extend(self.zones[src])
                self.zones[src].clear()
                return
            n = ev(s.count)(self, env)
            if n < 0:
                raise RuleError(f"cannot move {n} cards", s.span)
            have = len(self.zones[src]) - sum(1 for a, _ in self.pending if a == src)
            if n > have:
                raise RuleError(f"a draw of {n} cards finds only {have} in "
                                f"{g.zone_slots[src].label}", s.span)
            self._draw(src, [dst] * n)
        elif isinstance(s, ir.Deal):
            src = ev.zone(s.source)(self, env)
            start = ev(s.starting)(self, env)
            base = g.zone_base[s.dest]
            dests = []
            for pk in s.packets:
                k = ev(pk)(self, env)
                for j in range(g.players):
                    dests.extend([base + (start + j) % g.players] * k)
            if len(dests) > len(self.zones[src]):
                raise RuleError(f"the deal needs {len(dests)} cards and {g.zone_slots[src].label} holds "
                                f"{len(self.zones[src])}", s.span)
            self._draw(src, dests)
        elif isinstance(s, ir.Shuffle):
            # Draws from a hidden zone are uniform chance events, so a shuffle needs no other effect.
            pass
        elif isinstance(s, ir.Gather):
            dst = ev.zone(s.zone)(self, env)
            for i, z in enumerate(self.zones):
                if i != dst:
                    self.zones[dst].extend(z)
                    z.clear()
            self.zones[dst].sort()
        elif isinstance(s, ir.Reveal):
            self.revealed.add(ev.zone(s.zone)(self, env))
        elif isinstance(s, ir.If):
            for cond, body in s.branches:
                if ev(cond)(self, env):
                    self.frames.append([body, 0, env, None])
                    return
            if s.orelse:
                self.frames.append([s.orelse, 0, env, None])
        elif isinstance(s, ir.For):
            order = list(range(g.players))
            inner = dict(env)
            inner[s.var] = order.pop(0)
            self.frames.append([s.body, 0, inner, (s.var, order) if order else None])
        elif isinstance(s, ir.Goto):
            self.frames.clear()
            self._enter_phase(s.phase)
        elif isinstance(s, ir.EndDeal):
            self.frames.clear()
            self._end_deal()
        elif isinstance(s, _NextTrick):
            self._next_trick()
        elif isinstance(s, ir.Score):
            rows = [row for row in g.tables[s.table].rows if ev(row.guard)(self, env)]
            if self.on_score is not None:
                self.on_score(s.table, [row.name for row in rows])
            # every matching row fires, in table order (the verifier reports overlapping rows)
            for row in reversed(rows):
                self.frames.append([row.body, 0, env, None])
        else:  # pragma: no cover
            raise AssertionError(type(s))

    def _draw(self, src: int, dests: list[int]) -> None:
        if not dests:
            return
        if self.game.hidden_zone[src]:
            self.pending.extend((src, d) for d in dests)
            return
        for d in dests:
            card = self.zones[src].pop()
            self.zones[d].append(card)

    def _assign(self, s: ir.Assign, env: dict) -> None:
        ev = self.game.compile
        value = ev(s.value)(self, env)
        if s.index is not None:
            arr = self.vars[s.var]
            i = ev(s.index)(self, env)
            if not 0 <= i < len(arr):
                raise RuleError(f"index {i} out of range for '{s.var}'", s.span)
            old = arr[i]
        else:
            old = self.vars[s.var]
        if s.op == "+=":
            value = old + value
        elif s.op == "-=":
            value = old - value
        t = self._var_type(s.var)
        if t.kind == "int" and t.low is not None and not t.low <= value <= t.high:
            raise RuleError(f"'{s.var}' would become {value}, outside its range {t.low}..{t.high}", s.span)
        if s.index is not None:
            self.vars[s.var][i] = value
        else:
            self.vars[s.var] = value

    def _var_type(self, name: str) -> ir.Type:
        for v in self.game.ir.vars:
            if v.name == name:
                return v.type
        raise KeyError(name)  # pragma: no cover

    def _init_var(self, v: ir.Var) -> None:
        val = self.game.compile(v.init)(self, {})
        if v.per == "player":
            self.vars[v.name] = [val] * self.game.players
        elif v.per == "side":
            self.vars[v.name] = [val] * max(1, len(self.game.ir.sides))
        else:
            self.vars[v.name] = val

    def _start_deal(self) -> None:
        g = self.game
        for v in g.ir.vars:
            if v.scope == "deal":
                self._init_var(v)
        self.tricks_won = [0] * g.players
        self.trick_cards = []
        self.trick_number = 0
        self.trick_leader = -1
        self.last_winner = -1
        self.revealed = set()
        self._deal_start_returns = self._match_var_snapshot()
        self.deal_open = True
        self._enter_phase(g.ir.match.start)

    def _match_var_snapshot(self):
        return {v.name: (list(self.vars[v.name]) if isinstance(self.vars[v.name], list) else self.vars[v.name])
                for v in self.game.ir.vars if v.scope == "match"}

    def _end_deal(self) -> None:
        g = self.game
        self.deal_number += 1
        self._log_deal(complete=True)
        if self._match_over():
            return
        self.dealer = g.compile(g.ir.match.next_dealer)(self, {})
        self._start_deal()

    def _log_deal(self, complete: bool) -> None:
        if not self.deal_open:
            return
        self.deal_open = False
        before = self._deal_start_returns
        gains = {v.name: [a - b for a, b in zip(self.vars[v.name], before[v.name])] for v in self.game.ir.vars
                 if v.scope == "match" and v.per is not None and v.type.kind == "int"}
        self.deal_log.append({"points": self._deal_gain(), "complete": complete, "tricks": list(self.tricks_won),
                              "gains": gains,
                              "vars": {v.name: self.vars[v.name] for v in self.game.ir.vars
                                       if v.scope == "deal" and v.per is None and v.type.kind == "int"}})

    def _deal_gain(self) -> list[int]:
        """The change of every per-player int match variable in this deal, summed (the deal's points)."""
        before = self._deal_start_returns
        gain = [0] * self.game.players
        for v in self.game.ir.vars:
            if v.scope == "match" and v.per == "player" and v.type.kind == "int":
                for p in range(self.game.players):
                    gain[p] += self.vars[v.name][p] - before[v.name][p]
        return gain

    def _where(self) -> str:
        return f"phase '{self.phase}', deal {self.deal_number + 1}, after {len(self.history)} actions"

    def _action_name(self, action: int) -> str:
        g = self.game
        if 0 <= action < g.num_cards:
            return g.card_str(action)
        if 0 <= action - g.num_cards < len(g.ir.action_slots):
            return g.slot(action).text
        return "no such action"

"""The concrete state of a match: the engine's domain of the rules' machine.

A :class:`State` is a node of the game tree.  It pauses at three kinds of node:

* a *chance node* — effects are drawing a card from a hidden zone; the outcomes
  are the cards in that zone, uniformly (``chance_outcomes()``);
* a *decision* — a choice phase's actor, or the player to play in a trick
  phase, picks one of ``legal_actions()``;
* the *terminal* node — the match's ``ends when`` condition holds.

What the rules do (phases, effects, tricks, scoring, deals, rule errors) is
:class:`atout.engine.machine.Machine`, shared with the verifier's abstraction;
this module gives it the concrete domain: cards are card ids in ordered lists,
values are ints and bools, and the card-level rules (which cards may be played,
who wins a trick) are computed exactly.
"""
from __future__ import annotations

import copy
import numbers

from atout.compiler import ir

from .evaluate import RuleError, StepLimitError
from .game import CHANCE, TERMINAL, Game
from .machine import DEALER_DRAW, MAX_AUTO_STEPS, RANDOM_DRAW, Machine
from .recall import DEAL, DEALER, MOVE, PHASE, REVEAL, VAR, masked_entry

_NO_ENV: dict = {}  # the empty environment of closures evaluated outside actions (never mutated)


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to."""


class History(list):
    """The actions applied so far (chance outcomes included), oldest first: a list, and callable as
    OpenSpiel's ``state.history()`` (which returns a copy)."""

    def __call__(self) -> list[int]:
        return list(self)


def _action_id(action) -> int:
    """``action`` as an int id; a bool, a float or a string is refused (IllegalActionError), as OpenSpiel does."""
    if type(action) is int:
        return action
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise IllegalActionError(f"an action is an integer id, not {action!r}")
    return int(action)


class State(Machine):
    """A node of a match.  Create with ``game.new_initial_state()``."""

    def __init__(self, game: Game):
        self.game = game
        self.zones: list[list[int]] = [[] for _ in game.zone_slots]
        self.zones[game.home_zone] = list(range(game.num_cards))
        self.vars: dict[str, object] = {}
        self.dealer = 0
        self.deal_number = 0
        self.actor = -1
        self.phase: str | None = None
        self.terminal = False
        self.history: History = History()
        # what any seat could observe, in order, each entry saying who sees it (engine/recall.py): perfect recall
        self.log: list[tuple] = []
        self.revealed: set[int] = set()
        self._logged_dealer = -1   # the dealer as the log last showed it
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
        # effects in progress: frames [stmts, index, env, loop: (var, players still to visit) or None]
        self.frames: list[list] = []
        self.pending: list[tuple[int, int]] = []  # draws (from zone, to zone) awaiting chance
        # per finished deal: {"points": change of each player's int match variables, "vars": deal int variables}
        self.deal_log: list[dict] = []
        # per deal logged: the match variables at its start and at its end (the verifier's deal bounds read
        # them: gain(max(V)), gain(V) of a variable not kept per player); not part of records
        self.deal_values: list[dict] = []
        self._deal_start_returns: dict = {}
        # (seat, suit) pairs everyone has seen: the seat failed to follow that suit (under `follow suit`) and
        # has received no card since; cleared at each deal.  Public knowledge, for bots (ISMCTS).
        self.voids: set[tuple[int, int]] = set()
        # the legal-action map of the decision in progress (Machine._legal), computed once per decision and
        # dropped by every change of the state (apply_action, determinized); shared by clones, never mutated
        self._legal_memo: dict | None = None
        self._start_match()
        if not self.pending:
            self._settle()

    # -- OpenSpiel-shaped API -------------------------------------------------------------
    def current_player(self) -> int:
        """The seat to act (0-based), ``CHANCE`` (-1) at a chance node, ``TERMINAL`` (-4) at the end."""
        if self.terminal:
            return TERMINAL
        if self.pending:
            return CHANCE
        return self.player_to_move()

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
        if self.pending[0][0] == RANDOM_DRAW:
            weights = self.pending[0][1][3]
            total = sum(weights)
            return [(i, w / total) for i, w in enumerate(weights)]
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
            if self.pending[0][0] == RANDOM_DRAW:
                return list(range(len(self.pending[0][1][3])))
            return sorted(self.zones[self.pending[0][0]])
        if player is not None and player != self.player_to_move():
            return []
        return sorted(self._legal_map())

    def _legal_map(self) -> dict:
        """:meth:`Machine._legal` of this decision, computed once until the state changes (read-only)."""
        m = self._legal_memo
        if m is None:
            m = self._legal_memo = self._legal()
        return m

    def is_dead_end(self) -> bool:
        """A decision where the player to act has no legal action (``builtin:no_dead_end``)."""
        return not self.terminal and not self.pending and not self.legal_actions()

    def decision_actions(self) -> list[int]:
        """The legal actions at a decision, or a RuleError when the player to act has none (a dead end: the
        rules leave him no move; ``atout verify`` reports it as ``builtin:no_dead_end``)."""
        legal = self.legal_actions()
        if not legal and not self.terminal and not self.pending:
            raise RuleError(f"seat {self.actor} has no legal action ({self._where()}): {self._dead_end_why()}")
        return legal

    def _dead_end_why(self) -> str:
        """Why the player to act has no legal action: an empty hand in a trick phase (the follow and card
        rules never bar every card of a hand), else conditions that are all false."""
        g = self.game
        if g.phases[self.phase].kind == "trick" and self.selecting is None and g.hand_base is not None \
                and not self.zones[g.hand_base + self.to_play]:
            return (f"it is seat {self.to_play}'s turn to play to trick {self.trick_number} and "
                    f"{g.zone_slots[g.hand_base + self.to_play].label} is empty; check that the deal gives each "
                    f"player a card for every trick of the phase (its 'count')")
        return "every action's condition is false; check the 'when' conditions of the phase's actions"

    def apply_action(self, action: int) -> None:
        """Apply ``action`` (a legal action id, or a chance outcome at a chance node).

        Raises IllegalActionError naming the action and the state when it is not legal.
        """
        try:
            self._apply_action(action)
        finally:
            self._legal_memo = None   # (also when the rules' effects asked for legal actions midway)

    def _apply_action(self, action: int) -> None:
        action = _action_id(action)
        if self.terminal:
            raise IllegalActionError(f"the match is over; no action can be applied ({self._where()})")
        if self.pending:
            self._legal_memo = None
            src, dst = self.pending[0]
            if src == DEALER_DRAW:
                if not (isinstance(action, int) and 0 <= action < self.game.players):
                    raise IllegalActionError(f"chance outcome {action} is not a seat 0..{self.game.players - 1} "
                                             f"(the first dealer is being chosen)")
                self.history.append(action)
                self.log.append((CHANCE, action, True, -1, self.game.all_seats))
                self._resolve_dealer(action)
                self._settle()
                return
            if src == RANDOM_DRAW:
                n = len(dst[3])
                if not (isinstance(action, int) and 0 <= action < n):
                    raise IllegalActionError(f"chance outcome {action} is not one of the {n} outcomes 0..{n - 1} of "
                                             f"'{dst[0]} = random' ({self._where()})")
                self.history.append(action)
                seers = self.game.var_seers[(dst[0], dst[1])]
                self.log.append((CHANCE, action, seers == self.game.all_seats, -1, seers))
                self._resolve_random(action)
                self._settle()
                return
            if action not in self.zones[src]:
                raise IllegalActionError(f"chance outcome {action} ({self._action_name(action)}) is not in "
                                         f"{self.game.zone_slots[src].label} ({self._where()})")
            self.history.append(action)
            g = self.game
            if self.revealed and dst in self.revealed:
                self.log.append((CHANCE, action, True, dst, g.all_seats))
            else:
                self.log.append((CHANCE, action, g.slot_public[dst], dst, g.slot_seers[dst]))
            self._resolve_draw(action)
            self._settle()
            return
        legal = self._legal_map()
        if action not in legal:
            names = ", ".join(self.action_to_string(a) for a in sorted(legal)[:12])
            raise IllegalActionError(f"illegal action {action} ({self._action_name(action)}) for seat {self.actor} "
                                     f"in {self._where()}; legal: {names}")
        self._legal_memo = None
        self.history.append(action)
        how = legal[action]
        self.log.append((self.player_to_move(), action, how[0] in ("play", "named", "done") or
                         (how[0] in ("card", "choose") and how[1].public)))
        self._apply(action, legal[action])
        self._settle()

    def action_to_string(self, player_or_action: int, action: int | None = None) -> str:
        """Text of an action in this state: ``play K♠``, ``discard 7♥``, ``I propose``, ``deal Q♦``.
        Called as OpenSpiel's: ``action_to_string(action)`` or ``action_to_string(player, action)`` (``player``
        0-based, -1 for chance; the text does not depend on it).  Raises IllegalActionError for an id that is no
        action of the game (not in 0..num_distinct_actions-1), at a ``random`` draw no outcome of it (its
        outcomes may outnumber the game's actions); ValueError for a player who is no seat."""
        g = self.game
        if action is None:
            action = player_or_action
        elif player_or_action != -1:
            self._check_seat(player_or_action)
        action = _action_id(action)
        if self.pending and self.pending[0][0] == RANDOM_DRAW:
            name, _, values, weights, _ = self.pending[0][1]
            if not 0 <= action < len(weights):
                raise IllegalActionError(f"{action} is not an outcome of '{name} = random' (0..{len(weights) - 1})")
            return f"{name} = {g.value_str(values[action], g.var_decl[name].type)}"
        if not 0 <= action < g.num_distinct_actions():
            raise IllegalActionError(f"{action} is not an action id of this game (0..{g.num_distinct_actions() - 1})")
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
        out = []
        for p in range(self.game.players):
            v = f(self, {var: p})
            try:
                out.append(float(v))
            except OverflowError:
                raise RuleError(f"returns({p}) = {str(v)[:20]}... is too large for a float",
                                self.game.ir.match.span) from None
        return out

    def rewards(self) -> list[float]:
        return self.returns() if self.terminal else [0.0] * self.game.players

    def clone(self) -> "State":
        new = copy.copy(self)
        new.zones = [list(z) for z in self.zones]
        new.vars = {k: (list(v) if isinstance(v, list) else v) for k, v in self.vars.items()}
        new.history = History(self.history)
        new.log = list(self.log)
        new.revealed = set(self.revealed)
        new.tricks_won = list(self.tricks_won)
        new.trick_cards = list(self.trick_cards)
        new.frames = [list(f) for f in self.frames]   # a frame's index advances in place
        new.pending = list(self.pending)
        new.deal_log = list(self.deal_log)
        new.deal_values = list(self.deal_values)
        new.voids = set(self.voids)
        new.on_score = None       # a hook watches one match: a bot's look-ahead on a copy must not report to it
        return new

    def determinized(self, seat: int, deal: dict[int, list[int]]) -> "State":
        """A copy of this state in which every zone slot in ``deal`` (slot -> cards: the zones ``seat`` does not
        see, dealt again by a bot) holds the given cards, the entries of variables ``seat`` does not see are
        reset to their initial values, and the history and the others' hidden choices are forgotten.  What
        ``seat`` does not see is not read: neither those zones' cards, nor the hidden variables, nor the
        history, nor the card of another seat's hidden choice.  For search (ISMCTS); the copy plays on as usual.
        """
        new = copy.copy(self)
        new.zones = [list(deal[i]) if i in deal else list(z) for i, z in enumerate(self.zones)]
        sides = self.game.ir.sides
        new.vars = {}
        for v in self.game.ir.vars:
            if v.visibility in (None, "public"):
                val = self.vars[v.name]
                new.vars[v.name] = list(val) if isinstance(val, list) else val
        fresh = copy.copy(new)
        fresh.vars = new.vars
        for v in self.game.ir.vars:
            if v.name not in new.vars:           # private or hidden: what the seat sees, the rest reset
                init = self.game.compile(v.init)(fresh, {})
                if v.per is None:
                    new.vars[v.name] = init
                else:
                    n = self.game.players if v.per == "player" else len(sides)
                    own = self.vars[v.name] if v.visibility == "private" else None
                    new.vars[v.name] = [own[k] if own is not None and v.seen_by(seat, k, sides) else init
                                        for k in range(n)]
        new._legal_memo = None
        new.history = History()
        new.log = list(self._masked_log(seat))
        new.revealed = set(self.revealed)
        new.tricks_won = list(self.tricks_won)
        new.trick_cards = list(self.trick_cards)
        new.frames = [list(f) for f in self.frames]
        new.pending = list(self.pending)
        new.deal_log = list(self.deal_log)
        new.deal_values = list(self.deal_values)
        new.voids = set(self.voids)
        new.on_score = None
        return new

    def _masked_log(self, seat: int) -> list:
        """The log as ``seat`` may know it (:func:`.recall.masked_entry`), kept for the next call while the log
        has not grown (a search determinizes the same state many times)."""
        c = self.__dict__.get("_masked")
        log = self.log
        if c is not None and c[0] is log and c[1] == len(log) and c[2] == seat:
            return c[3]
        bit = 1 << seat
        masked = [e if e[2] or e[0] == seat or len(e) > 4 and e[4] & bit else masked_entry(e, seat) for e in log]
        masked = [e for e in masked if e is not None]
        self._masked = (log, len(log), seat, masked)
        return masked

    def observation_string(self, player: int) -> str:
        """What ``player`` (a seat, 0-based) sees: public zones, his own private zones, sizes of the rest,
        variables, the trick.  Raises ValueError for a seat that is not one."""
        from .observe import observation_string
        self._check_seat(player)
        return observation_string(self, player)

    def _check_seat(self, player) -> None:
        if isinstance(player, bool) or not isinstance(player, numbers.Integral) or \
                not 0 <= player < self.game.players:
            raise ValueError(f"no seat {player!r}: the seats are 0..{self.game.players - 1}")

    def information_state_string(self, player: int) -> str:
        """What ``player`` (a seat, 0-based) has observed of the match, in order (perfect recall; see
        :func:`.observe.information_state_string`); raises ValueError for a bad seat."""
        from .observe import information_state_string
        self._check_seat(player)
        return information_state_string(self, player)

    def information_state_log(self, player: int) -> list[str]:
        """``player``'s view of the log, one token per entry (:func:`.recall.recall_tokens`): it only grows as
        the match goes on.  Raises ValueError for a bad seat."""
        from .observe import information_state_log
        self._check_seat(player)
        return information_state_log(self, player)

    def __str__(self) -> str:
        from .observe import full_string
        return full_string(self)

    # -- the machine's concrete domain: values ----------------------------------------------------------
    def test(self, e: ir.Expr, env: dict) -> bool:
        return self.game.compile(e)(self, env)

    def ev(self, e: ir.Expr, env: dict):
        return self.game.compile(e)(self, env)

    def ev_int(self, e: ir.Expr, env: dict, what: str = "", cap: int | None = None) -> int:
        return self.game.compile(e)(self, env)

    def ev_player(self, e: ir.Expr, env: dict) -> int:
        return self.game.compile(e)(self, env)

    def combine(self, op: str, old, value):
        return old + value if op == "+=" else old - value

    def out_of_range(self, var: ir.Var, value, op: str) -> bool:
        return not var.type.low <= value <= var.type.high

    def read(self, var: ir.Var, i: int | None):
        return self.vars[var.name] if i is None else self.vars[var.name][i]

    def write(self, var: ir.Var, i: int | None, value, op: str, operand) -> None:
        if i is None:
            old = self.vars[var.name]
            self.vars[var.name] = value
        else:
            old = self.vars[var.name][i]
            self.vars[var.name][i] = value
        if old != value:
            g = self.game
            seers = g.var_seers[(var.name, i)]
            self.log.append((VAR, value, seers == g.all_seats, g.var_pos[var.name], seers, -1 if i is None else i))

    def init_var(self, v: ir.Var) -> None:
        val = self.game.compile(v.init)(self, _NO_ENV)
        if v.per == "player":
            self.vars[v.name] = [val] * self.game.players
        elif v.per == "side":
            self.vars[v.name] = [val] * max(1, len(self.game.ir.sides))
        else:
            self.vars[v.name] = val

    # -- the machine's concrete domain: zones -------------------------------------------------------------
    def cards(self, slot: int) -> list[int]:
        return self.zones[slot]

    def size(self, slot: int) -> int:
        return len(self.zones[slot])

    def short(self, slot: int, n: int) -> str | None:
        have = len(self.zones[slot]) - sum(1 for a, _ in self.pending if a == slot)
        return None if n <= have else str(have)

    def move_card(self, card: int, src: int, dst: int) -> None:
        self.zones[src].remove(card)
        self.zones[dst].append(card)
        if self.voids:
            self._receives(dst)

    def _log_move(self, cards, src: int, dst: int) -> None:
        """Cards moved by the rules' effects: who sees them (those who see either zone now) and how many."""
        g = self.game
        rv = self.revealed
        seers = (g.all_seats if src in rv else g.slot_seers[src]) | (g.all_seats if dst in rv else g.slot_seers[dst])
        self.log.append((MOVE, tuple(cards), seers == g.all_seats, src, seers, dst, len(cards)))

    def move_all(self, src: int, dst: int) -> None:
        if src != dst:
            if self.zones[src] and src != self.game.trick_zone:   # a trick's cards follow its plays
                self._log_move(self.zones[src], src, dst)
            self.zones[dst].extend(self.zones[src])
            self.zones[src].clear()
            if self.voids:
                self._receives(dst)

    def _receives(self, dst: int) -> None:
        """A hand received cards: its owner's voids are no longer known."""
        owner = self.game.zone_slots[dst].owner
        if owner is not None and self.game.zone_slots[dst].name == "hand":
            self.voids = {v for v in self.voids if v[0] != owner}

    def _play_card(self, card) -> None:
        if self.trick_cards:          # not following the suit led, under `follow suit`: a void everyone sees
            trick = self.game.phases[self.phase].trick
            plan = self.game.trick_plan(trick)
            if any(kind == "suit" and cond(self, _NO_ENV) for kind, cond in plan.follow):
                so = plan.suits_by[plan.trump(self, _NO_ENV) + 1]
                led = so[self.trick_cards[0][1]]
                if so[card] != led:
                    self.voids.add((self.to_play, led))
        super()._play_card(card)

    def gather(self, dst: int) -> None:
        for i, z in enumerate(self.zones):
            if i != dst:
                if z:
                    self._log_move(z, i, dst)
                self.zones[dst].extend(z)
                z.clear()
        self.zones[dst].sort()

    def draw_visible(self, src: int, dst: int) -> None:
        self._log_move(self.zones[src][-1:], src, dst)
        self.zones[dst].append(self.zones[src].pop())
        if self.voids:
            self._receives(dst)

    def reveal(self, slot: int) -> None:
        if slot not in self.revealed:
            self.revealed.add(slot)
            self.log.append((REVEAL, tuple(sorted(self.zones[slot])), True, slot, self.game.all_seats))

    def _enter_phase(self, name: str) -> None:
        self.log.append((PHASE, self.game.phase_pos[name], True))
        super()._enter_phase(name)

    def _start_deal(self) -> None:
        self.log.append((DEAL, self.dealer, True))
        self._logged_dealer = self.dealer
        super()._start_deal()

    # -- the machine's concrete domain: tricks and deals -----------------------------------------------------
    def playable(self, trick: ir.Trick) -> list[int]:
        cands = self._playable_cards(trick)
        return self._card_rules(trick, cands) if trick.card_rules else cands

    def move_named(self, card: int, src: int, dst: int, s: ir.Stmt) -> None:
        if card < 0 or card not in self.zones[src]:
            what = "none" if card < 0 else self.game.card_str(card)
            raise RuleError(f"cannot move {what}: it is not in {self.game.zone_slots[src].label}", s.span)
        self._log_move((card,), src, dst)
        self.zones[src].remove(card)
        self.zones[dst].append(card)
        if self.voids:
            self._receives(dst)

    def loop_cards(self, slot: int, s: ir.For) -> list[int]:
        return list(self.zones[slot])

    def trick_winner(self, trick: ir.Trick) -> int:
        return self._trick_winner(self._trump(trick))

    def add_trick(self, winner: int) -> None:
        self.tricks_won[winner] += 1

    def tricks_total(self) -> int:
        return sum(self.tricks_won)

    def reset_deal(self) -> None:
        self.voids = set()
        self.tricks_won = [0] * self.game.players
        self.revealed = set()
        self._deal_start_returns = self._match_var_snapshot()

    def count_deal(self) -> None:
        self.deal_number += 1

    def log_deal(self, complete: bool) -> None:
        if not self.deal_open:
            return
        self.deal_open = False
        before = self._deal_start_returns
        gains = {v.name: [a - b for a, b in zip(self.vars[v.name], before[v.name])] for v in self.game.ir.vars
                 if v.scope == "match" and v.per is not None and v.type.kind == "int"}
        self.deal_values.append({"before": before, "after": self._match_var_snapshot()})
        self.deal_log.append({"points": self._deal_gain(), "complete": complete, "tricks": list(self.tricks_won),
                              "gains": gains,
                              "vars": {v.name: self.vars[v.name] for v in self.game.ir.vars
                                       if v.scope == "deal" and v.per is None and v.type.kind == "int"}})

    def _match_var_snapshot(self):
        return {v.name: (list(self.vars[v.name]) if isinstance(self.vars[v.name], list) else self.vars[v.name])
                for v in self.game.ir.vars if v.scope == "match"}

    def _deal_gain(self) -> list[int]:
        """The change of every per-player int match variable in this deal, summed (the deal's points)."""
        before = self._deal_start_returns
        gain = [0] * self.game.players
        for v in self.game.ir.vars:
            if v.scope == "match" and v.per == "player" and v.type.kind == "int":
                for p in range(self.game.players):
                    gain[p] += self.vars[v.name][p] - before[v.name][p]
        return gain

    # -- running effects -----------------------------------------------------------------------------------
    def _check_end(self) -> None:
        """At rest after a change (a variable, or the dealer: ``dealer = ...`` marks the state changed too): check
        ``ends when``; a new dealer goes to the log."""
        super()._check_end()
        if self.dealer != self._logged_dealer:
            self._logged_dealer = self.dealer
            self.log.append((DEALER, self.dealer, True))

    def _settle(self) -> None:
        """Run effects until a chance node, a decision or the end of the match.  ``ends when`` is evaluated
        when play comes to rest (before a chance node or a decision) if a variable changed since it was last
        false, so that a block of effects such as a scoring row always runs to its end."""
        steps = 0
        start = self.phase       # named by the step limit's error: where play was when the effects began
        while True:
            if self.dirty and (self.pending or not self.frames):
                self._check_end()
                if self.terminal:
                    return
            if self.pending:
                return
            if not self.frames:
                self._settle_actor()
                return
            steps += 1
            if steps > MAX_AUTO_STEPS:
                raise StepLimitError(f"effects ran {MAX_AUTO_STEPS} steps without a decision: a loop of "
                                     f"automatic phases? (they began in phase '{start}')")
            self._run_frame()

    # -- card-level rules (exact in this domain) ----------------------------------------------------------------
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
        s = self._order(self._trump(self.game.phases[self.phase].trick))[0][self.trick_cards[0][1]]
        return s if s < len(self.game.deck.suits) else -1     # a trump order without a trump suit: none

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

    def _where(self) -> str:
        return f"phase '{self.phase}', deal {self.deal_number + 1}, after {len(self.history)} actions"

    def _action_name(self, action: int) -> str:
        g = self.game
        if 0 <= action < g.num_cards:
            return g.card_str(action)
        if 0 <= action - g.num_cards < len(g.ir.action_slots):
            return g.slot(action).text
        return "no such action"

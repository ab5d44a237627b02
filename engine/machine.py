"""The rules' small-step semantics, written once for the engine and for the verifier.

A :class:`Machine` runs the IR of a game: phases and their actions, effect blocks on a stack of
frames (so that a chance draw can pause them and resume after its outcome), trick play, scoring
tables, the end of a deal and the end of the match, and every rule error.  It is the *only* place
where these are defined.  What a value or a zone *is* belongs to a domain, a subclass:

* :class:`atout.engine.state.State` — the concrete domain: cards are card ids in ordered lists,
  values are ints and bools, chance draws wait for an outcome (a chance node);
* :class:`atout.verify.absint.AbstractState` — the verifier's abstract domain: zones are sizes and
  the places of the tracked cards, values are sets and intervals, and wherever the abstraction cannot
  tell which way the rules go, it *chooses*, and the verifier explores every choice.

So a construct of the language cannot exist in the engine and be forgotten by the verifier: both
run this code.  A domain answers the questions listed under "domain" below; none of them decides
control flow on its own.

Indexing: players are seats ``0 .. players-1``; ``none`` is -1; zone *slots* are the indices of
:attr:`atout.engine.game.Game.zone_slots` (a per-player zone has one slot per seat).
"""
from __future__ import annotations

from atout.compiler import ir

from .evaluate import RuleError

TERMINAL = -4

DEALER_DRAW = -2  # a pending chance event that picks the first dealer (``first dealer random``), not a card draw
RANDOM_DRAW = -3  # a pending ``VAR = random {...}``: ``(RANDOM_DRAW, (var, index, values, weights, span))``
MAX_AUTO_STEPS = 100_000


class NextTrick(ir.Stmt):
    """Internal statement (never in the IR): start the next trick once the `after trick` block has run."""


NEXT_TRICK = NextTrick()


class Machine:
    """The control semantics of the rules over an abstract *domain* (see the module docstring).

    Fields shared by every domain (set by the subclass): ``game`` (an :class:`atout.engine.game.Game`),
    ``phase`` (a phase name or None), ``actor`` (the seat to act), ``selecting`` (a card choice in
    progress: ``(action, chosen so far, low, high)`` or None), ``frames`` (effects in progress:
    ``[stmts, index, env, loop]``, ``loop`` is ``(var, players still to visit)`` or None),
    ``pending`` (draws ``(source slot, destination slot)`` awaiting chance), ``terminal``,
    ``dealer``, ``trick_number`` (1-based in trick play, 0 before), ``trick_cards``
    (``[(player, card)]`` of the trick on the table), ``trick_leader``, ``to_play``,
    ``last_winner``, ``deal_open``, ``dirty`` (a variable changed since ``ends when`` was checked),
    ``on_score`` (an optional hook ``f(table, names of the rows that fire)``; a clone starts without it).
    """

    # -- domain: values ----------------------------------------------------------------------------
    def test(self, e: ir.Expr, env: dict) -> bool:
        """Whether condition ``e`` holds."""
        raise NotImplementedError  # pragma: no cover - every domain implements it

    def ev(self, e: ir.Expr, env: dict):
        """The value of ``e`` (stored in variables and locals as the domain represents it)."""
        raise NotImplementedError  # pragma: no cover

    def ev_int(self, e: ir.Expr, env: dict, what: str, cap: int | None = None) -> int:
        """The exact int value of ``e``: a number of cards, a packet size, a number of tricks.  ``cap``: the
        caller only distinguishes values up to it (a larger value acts as ``cap``)."""
        raise NotImplementedError  # pragma: no cover

    def ev_player(self, e: ir.Expr, env: dict) -> int:
        """The exact seat ``e`` denotes, or -1 (none)."""
        raise NotImplementedError  # pragma: no cover

    def combine(self, op: str, old, value):
        """``old + value`` for ``+=``, ``old - value`` for ``-=``."""
        raise NotImplementedError  # pragma: no cover

    def out_of_range(self, var: ir.Var, value, op: str) -> bool:
        """Whether ``value`` (just assigned with ``op``) lies outside the declared range of ``var`` (an int
        ``in lo..hi``)."""
        raise NotImplementedError  # pragma: no cover

    def read(self, var: ir.Var, i: int | None):
        raise NotImplementedError  # pragma: no cover

    def write(self, var: ir.Var, i: int | None, value, op: str, operand) -> None:
        raise NotImplementedError  # pragma: no cover

    def init_var(self, var: ir.Var) -> None:
        raise NotImplementedError  # pragma: no cover

    # -- domain: zones -------------------------------------------------------------------------------
    def cards(self, slot: int) -> list:
        """The cards of a zone slot as the domain knows them (card ids; for the abstraction, card classes)."""
        raise NotImplementedError  # pragma: no cover

    def size(self, slot: int) -> int:
        """The exact number of cards in a slot."""
        raise NotImplementedError  # pragma: no cover

    def short(self, slot: int, n: int) -> str | None:
        """None when ``n`` cards can be drawn from ``slot`` (pending draws from it counted), else the text
        of how many it holds."""
        raise NotImplementedError  # pragma: no cover

    def move_card(self, card, src: int, dst: int) -> None:
        raise NotImplementedError  # pragma: no cover

    def move_all(self, src: int, dst: int) -> None:
        raise NotImplementedError  # pragma: no cover

    def move_named(self, card, src: int, dst: int, s: ir.Stmt) -> None:
        """``move CARD from Z to Z``: a card that is not in ``src`` (or none) is a rule error."""
        raise NotImplementedError  # pragma: no cover

    def gather(self, dst: int) -> None:
        raise NotImplementedError  # pragma: no cover

    def draw_visible(self, src: int, dst: int) -> None:
        """Move the top card of a zone that is not hidden (no chance event)."""
        raise NotImplementedError  # pragma: no cover

    def reveal(self, slot: int) -> None:
        raise NotImplementedError  # pragma: no cover

    # -- domain: tricks and deals ----------------------------------------------------------------------
    def playable(self, trick: ir.Trick) -> list:
        """The cards the player to play may play (the follow rules)."""
        raise NotImplementedError  # pragma: no cover

    def trick_winner(self, trick: ir.Trick) -> int:
        raise NotImplementedError  # pragma: no cover

    def _card_rules(self, trick: ir.Trick, cands: list) -> list:
        """Apply the trick's ``lead c when`` / ``card c when`` rules, in order, to the cards the follow rules
        allow: each keeps the cards satisfying it if there is one (a player is never left without a card)."""
        leading = not self.trick_cards
        for r in trick.card_rules:
            if r.kind == "lead" and not leading:
                continue
            keep = [c for c in cands if self.test(r.condition, {r.var: c})]
            if keep:
                cands = keep
        return cands

    def add_trick(self, winner: int) -> None:
        raise NotImplementedError  # pragma: no cover

    def tricks_total(self) -> int:
        raise NotImplementedError  # pragma: no cover

    def reset_deal(self) -> None:
        """Forget the last deal's tricks and revealed zones, and remember the match variables at its start."""
        raise NotImplementedError  # pragma: no cover

    def count_deal(self) -> None:
        raise NotImplementedError  # pragma: no cover

    def log_deal(self, complete: bool) -> None:
        raise NotImplementedError  # pragma: no cover

    # -- the match ---------------------------------------------------------------------------------------
    def _start_match(self) -> None:
        """Initialise the match variables, pick the first dealer, start the first deal (up to its first
        chance node or decision)."""
        g = self.game.ir
        for v in g.vars:
            if v.scope == "match":
                self.init_var(v)
        if self.game.dealer_by_chance:
            # `first dealer random`: the match opens with a chance node whose outcomes are the seats.  The deal
            # variables get their initial values now (the deal sets them again) so that this node can be observed.
            for v in g.vars:
                if v.scope == "deal":
                    self.init_var(v)
            self.pending.append((DEALER_DRAW, DEALER_DRAW))
            return
        self.dealer = self._seat(g.match.first_dealer, "the first dealer")
        self._start_deal()

    def _resolve_dealer(self, seat: int) -> None:
        self.pending.pop(0)
        self.dealer = seat
        self._start_deal()

    def _resolve_draw(self, card) -> None:
        """A pending draw takes ``card`` (a chance outcome) from its source to its destination."""
        src, dst = self.pending.pop(0)
        self.move_card(card, src, dst)

    def _resolve_random(self, i: int) -> None:
        """The pending ``VAR = random {...}`` takes its outcome ``i`` (0-based, in the statement's order)."""
        _, (name, index, values, _weights, span) = self.pending.pop(0)
        self._write_checked(self.game.var_decl[name], index, values[i], "=", span)
        self.dirty = True

    def _start_deal(self) -> None:
        g = self.game.ir
        for v in g.vars:
            if v.scope == "deal":
                self.init_var(v)
        self.trick_cards = []
        self.trick_number = 0
        self.trick_leader = -1
        self.to_play = -1
        self.last_winner = -1
        self.reset_deal()
        self.deal_open = True
        self._enter_phase(g.match.start)

    def _end_deal(self) -> None:
        g = self.game.ir
        self.count_deal()
        self.log_deal(complete=True)
        if self._match_over():
            return
        self.dealer = self._seat(g.match.next_dealer, "the next dealer")
        self._start_deal()

    def score_rows(self, table: ir.Table, env: dict) -> list:
        """The rows of ``table`` whose conditions hold, in table order (all read before any fires)."""
        return [row for row in table.rows if self.test(row.guard, env)]

    def _match_over(self) -> bool:
        """Check ``ends when``; at the end of the match, log the deal in progress and stop."""
        if self.terminal:
            return True
        if self.test(self.game.ir.match.ends_when, {}):
            self._end_match()
            return True
        return False

    def _end_match(self) -> None:
        # the match ended during a deal (e.g. a king scored the last point), or by the deal's scoring once its
        # tricks were all played: only the first is an incomplete deal
        if self.deal_open:
            self.log_deal(complete=self._tricks_all_played())
            self.deal_open = False
        self.terminal = True
        self.frames.clear()
        self.pending.clear()
        self.phase = None
        self.actor = TERMINAL
        self.selecting = None

    def _tricks_all_played(self) -> bool:
        """Whether the deal is in a trick phase whose last trick has been taken."""
        ph = self.game.phases.get(self.phase) if self.phase is not None else None
        if ph is None or ph.kind != "trick" or self.trick_cards:
            return False
        return self.tricks_total() >= self.ev_int(ph.trick.count, {}, "the number of tricks")

    # -- phases -------------------------------------------------------------------------------------------
    def _enter_phase(self, name: str) -> None:
        ph = self.game.phases[name]
        self.phase = name
        self.selecting = None
        if ph.kind == "auto":
            self._push(ph.body, {})
        elif ph.kind == "choice":
            self.actor = self._seat(ph.actor, f"the actor of phase '{name}'")
        else:
            trick = ph.trick
            self.trick_number = 1
            self.trick_cards = []
            leader = self._seat(trick.leader, "the trick's leader")
            if leader in self._skipped(trick):
                leader = self._next_active(leader, trick)
            self.trick_leader = leader
            self.to_play = leader
            self.actor = leader

    def _skipped(self, trick: ir.Trick) -> set[int]:
        """The players who sit out of the tricks (``skip A, B``; ``none`` skips nobody)."""
        return {self.ev_player(e, {}) for e in (trick.skip, *trick.more_skips)}

    def _active_players(self, trick: ir.Trick, skip: set[int]) -> list[int]:
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

    # -- legal actions ------------------------------------------------------------------------------------
    def _legal(self) -> dict:
        """Map each legal action of the player to act to how it applies: a card key (a card id, or for the
        abstraction a card class) or a named-action slot index -> ``("play", None)``, ``("named", action,
        value)``, ``("card", action)``, ``("choose", action)`` or ``("done", action)``."""
        g = self.game
        out: dict = {}
        ph = g.phases[self.phase]
        if self.selecting is not None:
            act, k, lo, hi = self.selecting
            src = self.slot(act.param.zone, {})
            if k < hi:
                for c in self.cards(src):
                    out[c] = ("choose", act)
            if k >= lo:
                out[g.done_action] = ("done", act)
            return out
        if ph.kind == "trick":
            for c in self.playable(ph.trick):
                out[c] = ("play", None)
        for act in ph.actions:
            p = act.param
            if p is None:
                if self.test(act.guard, {}):
                    out[g.slot_index[(act.name, None)]] = ("named", act, None)
            elif p.kind == "domain":
                for i in ir.domain_values(self.game.ir, p.type):
                    if self.test(act.guard, {p.name: i}):
                        out[g.slot_index[(act.name, i)]] = ("named", act, i)
            elif p.kind == "card":
                for c in self.cards(self.slot(p.zone, {})):
                    if self.test(act.guard, {p.name: c}):
                        out[c] = ("card", act)
            else:  # choose
                lo, hi = self._choose_bounds(p)
                if hi < max(lo, 1) and lo > 0:
                    continue
                if not self.test(act.guard, {p.name: 0}):
                    continue
                if hi >= 1:
                    for c in self.cards(self.slot(p.zone, {})):
                        out[c] = ("choose", act)
                if lo <= 0:
                    out[g.done_action] = ("done", act)
        return out

    def _choose_bounds(self, p: ir.Param) -> tuple[int, int]:
        """``low`` and ``high`` of a card choice, ``high`` capped by the cards in its zone."""
        size = self.size(self.slot(p.zone, {}))
        lo = self.ev_int(p.low, {}, "the least number of cards to choose")
        hi = self.ev_int(p.high, {}, "the largest number of cards to choose", cap=size)
        return lo, min(hi, size)

    # -- applying an action ---------------------------------------------------------------------------------
    def _apply(self, action, how: tuple) -> None:
        kind = how[0]
        if kind == "play":
            self._play_card(action)
            return
        if kind == "named":
            _, act, value = how
            self._push(act.body, {} if act.param is None else {act.param.name: value})
            return
        if kind == "card":
            act = how[1]
            self._push(act.body, {act.param.name: action})
            return
        if kind == "choose":
            act = how[1]
            p = act.param
            if self.selecting is None:
                lo, hi = self._choose_bounds(p)
                self.selecting = (act, 0, lo, hi)
            _, k, lo, hi = self.selecting
            self.move_card(action, self.slot(p.zone, {}), self.slot(p.dest, {}))
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

    def player_to_move(self) -> int:
        """The seat that chooses now: the actor, except on the dummy's turn in trick play (``dummy P by Q``),
        when it is Q (default P's partner)."""
        if self.phase is None or self.actor < 0:
            return self.actor
        trick = self.game.phases[self.phase].trick
        if trick is None or trick.dummy is None or self.selecting is not None:
            return self.actor
        d = self.ev_player(trick.dummy, {})
        if d != self.actor:
            return self.actor
        if trick.dummy_by is None:
            return self.game.partner[d]
        return self._seat(trick.dummy_by, "the player who plays the dummy's cards")

    def _play_card(self, card) -> None:
        g = self.game
        trick = g.phases[self.phase].trick
        p = self.to_play
        self.move_card(card, g.hand_base + p, g.trick_zone)
        self.trick_cards.append((p, card))
        if trick.dummy is not None and self.trick_number == 1 and len(self.trick_cards) == 1:
            d = self.ev_player(trick.dummy, {})   # the opening lead: the dummy's hand is shown to everyone
            if 0 <= d < g.players:
                self.reveal(g.hand_base + d)
        skip = self._skipped(trick)
        if len(self.trick_cards) < len(self._active_players(trick, skip)):
            self.to_play = self._next_active(p, trick, skip)
            self.actor = self.to_play
            return
        winner = self.trick_winner(trick)
        self.add_trick(winner)
        self.move_all(g.trick_zone, g.taken_base + winner)
        self.trick_cards = []
        self.last_winner = winner
        count = self.ev_int(trick.count, {}, "the number of tricks")
        # What follows the trick runs after the `after trick` block (pushed last, so it runs first).
        self._push(trick.then if self.trick_number >= count else (NEXT_TRICK,), {})
        if trick.after:
            self._push(trick.after, {})

    def _next_trick(self) -> None:
        """The winner of the trick just played leads the next one."""
        self.trick_number += 1
        self.trick_leader = self.last_winner
        self.to_play = self.last_winner
        self.actor = self.last_winner

    # -- effects --------------------------------------------------------------------------------------------
    def _push(self, body: tuple, env: dict) -> None:
        self.frames.append([body, 0, env, None])

    def _check_end(self) -> None:
        """A variable changed and play is at rest: check ``ends when``."""
        self.dirty = False
        self._match_over()

    def _run_frame(self) -> None:
        """Run the next statement of the innermost block, or end that block (a ``for`` loop's next
        iteration starts)."""
        frame = self.frames[-1]
        body, i, env, loop = frame
        if i >= len(body):
            if loop is not None and loop[1]:
                rest = loop[1]
                frame[2] = dict(env)
                frame[2][loop[0]] = rest[0]
                frame[1] = 0
                frame[3] = (loop[0], rest[1:]) if len(rest) > 1 else None
                return
            self.frames.pop()
            return
        frame[1] = i + 1
        self._exec(body[i], env)

    def _settle_actor(self) -> None:
        """No effects are left: in a choice phase the actor is (re)read from the phase."""
        if self.phase is not None:
            ph = self.game.phases[self.phase]
            if ph.kind == "choice":
                self.actor = self._seat(ph.actor, f"the actor of phase '{ph.name}'")

    def _seat(self, e: ir.Expr, what: str) -> int:
        """The player ``e`` denotes; ``none`` (or no seat) there is a rule error."""
        p = self.ev_player(e, {})
        if not 0 <= p < self.game.players:
            raise RuleError(f"{what} is {'none' if p < 0 else p}, not a player", e.span)
        return p

    def slot(self, e: ir.Expr, env: dict) -> int:
        """The zone slot of a zone expression (``stock``, ``hand[p]``); a player that is not one is a rule error."""
        g = self.game
        if isinstance(e, ir.ZoneRef):
            return g.zone_base[e.name]
        p = self.ev_player(e.index, env)
        if not 0 <= p < g.players:
            raise RuleError(f"no player {'none' if p < 0 else p} to index zone '{e.base.name}'", e.span)
        return g.zone_base[e.base.name] + p

    def _exec(self, s: ir.Stmt, env: dict) -> None:  # noqa: C901 - one case per statement type
        g = self.game
        cls = s.__class__
        if cls is ir.Assign:
            self._assign(s, env)
            self.dirty = True
        elif cls is ir.If:
            for cond, body in s.branches:
                if self.test(cond, env):
                    self.frames.append([body, 0, env, None])
                    return
            if s.orelse:
                self.frames.append([s.orelse, 0, env, None])
        elif cls is ir.Move:
            src = self.slot(s.source, env)
            dst = self.slot(s.dest, env)
            if s.count is None:
                self.move_all(src, dst)
                return
            n = self.ev_int(s.count, env, "the number of cards to move")
            if n < 0:
                raise RuleError(f"cannot move {n} cards", s.span)
            have = self.short(src, n)
            if have is not None:
                raise RuleError(f"a draw of {n} cards finds only {have} in {g.zone_slots[src].label}", s.span)
            self._draw(src, [dst] * n)
        elif cls is ir.MoveCard:
            src = self.slot(s.source, env)
            dst = self.slot(s.dest, env)
            self.move_named(self.ev(s.card, env), src, dst, s)
        elif cls is ir.SetDealer:
            self.dealer = self._seat(s.value, "the dealer")
            self.dirty = True
        elif cls is ir.Deal:
            src = self.slot(s.source, env)
            start = self.ev_player(s.starting, env)
            if not 0 <= start < g.players:
                raise RuleError(f"the deal starts at {'none' if start < 0 else start}, not a player", s.span)
            base = g.zone_base[s.dest]
            sizes = []
            for pk in s.packets:
                k = self.ev_int(pk, env, "the size of a packet")
                if k < 0:
                    raise RuleError(f"a packet of {k} cards", s.span)
                sizes.append(k)
            need = sum(sizes) * g.players
            have = self.short(src, need)       # before any list of that size is built
            if have is not None:
                raise RuleError(f"the deal needs {need} cards and {g.zone_slots[src].label} holds {have}", s.span)
            dests = []
            for k in sizes:
                for j in range(g.players):
                    dests.extend([base + (start + j) % g.players] * k)
            self._draw(src, dests)
        elif cls is ir.Goto:
            self.frames.clear()
            self._enter_phase(s.phase)
        elif cls is ir.EndDeal:
            self.frames.clear()
            self._end_deal()
        elif cls is ir.For:
            order = self._loop_values(s, env)
            if not order:
                return
            inner = dict(env)
            inner[s.var] = order[0]
            rest = order[1:]
            self.frames.append([s.body, 0, inner, (s.var, rest) if rest else None])
        elif cls is ir.RandomAssign:
            var = g.var_decl[s.var]
            i = None
            if s.index is not None:
                i = self._var_index(var, s.index, env, s.span)
            values = tuple(self.ev(v, env) for v in s.values)
            self.pending.append((RANDOM_DRAW, (s.var, i, values, s.weights, s.span)))
        elif cls is ir.Score:
            # every row whose condition holds fires, in table order; the conditions are read before any fires
            rows = self.score_rows(g.tables[s.table], env)
            if self.on_score is not None:
                self.on_score(s.table, [row.name for row in rows])
            for row in reversed(rows):
                self.frames.append([row.body, 0, env, None])
        elif cls is NextTrick:
            self._next_trick()
        elif cls is ir.Shuffle:
            self.slot(s.zone, env)
            # Draws from a hidden zone are uniform chance events, so a shuffle needs no other effect.
        elif cls is ir.Gather:
            self.gather(self.slot(s.zone, env))
        elif cls is ir.Reveal:
            self.reveal(self.slot(s.zone, env))
        else:  # pragma: no cover
            raise AssertionError(type(s))

    def _loop_values(self, s: ir.For, env: dict):
        """What a ``for`` visits, as a tuple or a ``range`` (sliced lazily, so a long range costs nothing up
        front; effects that never end are caught by the auto-step limit)."""
        g = self.game
        over = s.over
        if over == "players":
            return range(g.players)
        if over == "sides":
            return range(len(g.ir.sides))
        if over == "suits":
            return range(len(g.deck.suits))
        if over == "range":
            lo = self.ev_int(s.source, env, "the start of a 'for' range")
            hi = self.ev_int(s.high, env, "the end of a 'for' range")
            return range(lo, hi + 1)
        return tuple(self.loop_cards(self.slot(s.source, env), s))

    def loop_cards(self, slot: int, s: ir.For) -> list:
        """The cards a ``for c in ZONE`` visits: those of the zone when the loop starts, in its order."""
        raise NotImplementedError  # pragma: no cover

    def _draw(self, src: int, dests: list[int]) -> None:
        if not dests:
            return
        if self.game.hidden_zone[src]:
            self.pending.extend((src, d) for d in dests)
            return
        for d in dests:
            self.draw_visible(src, d)

    def _assign(self, s: ir.Assign, env: dict) -> None:
        var = self.game.var_decl[s.var]
        value = self.ev(s.value, env)
        i = None
        if s.index is not None:
            i = self._var_index(var, s.index, env, s.span)
        self._write_checked(var, i, value, s.op, s.span)

    def _var_index(self, var: ir.Var, index: ir.Expr, env: dict, span) -> int:
        i = self.ev_int(index, env, f"the index of '{var.name}'")
        size = self.game.players if var.per == "player" else max(1, len(self.game.ir.sides))
        if not 0 <= i < size:
            raise RuleError(f"index {i} out of range for '{var.name}'", span)
        return i

    def _write_checked(self, var: ir.Var, i: int | None, value, op: str, span) -> None:
        """Write ``value`` (``=``) or the combination (``+=``, ``-=``) to ``var`` (index ``i``); leaving the declared
        range is a rule error."""
        operand = value
        if op != "=":
            value = self.combine(op, self.read(var, i), value)
        t = var.type
        if t.kind == "int" and t.low is not None and self.out_of_range(var, value, op):
            raise RuleError(f"'{var.name}' would become {self.value_text(value)}, outside its range "
                            f"{t.low}..{t.high}", span)
        self.write(var, i, value, op, operand)

    def value_text(self, value) -> str:
        return str(value)

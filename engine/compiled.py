"""The engine runs compiled code: a game as specialised Python, made by the exporter's code generator.

:func:`state_class` generates the module of a game with :func:`atout.export.python_module.generate` (the code
``atout export --to python`` writes, less its terminal table), runs it, and returns :class:`CompiledState`'s
subclass for that game: the generated ``State``, with the engine's exceptions (:class:`RuleError`,
:class:`IllegalActionError`) and what the rest of Atout reads of an engine state beyond the OpenSpiel API:

* the attributes the generated state keeps with the interpreter's meaning (``zones``, ``vars``, ``phase``,
  ``dealer``, ``actor``, ``to_play``, ``trick_cards``, ``tricks_won``, ``pending``, ``revealed``, ``log``,
  ``deal_log``, ``voids``, ``on_score``, ``deal_open``, ...), and here ``selecting`` (``(action, chosen, least,
  most)``, the action an ``ir.Action``) and ``_deal_start_returns``;
* observations and information states by :mod:`.observe` (the engine's own text), ``determinized`` for ISMCTS;
* the machine's hooks that the verifier's concrete searches call: ``_legal()`` (each legal action and how it
  applies), ``_play_card``, ``_trump``, ``_order``, ``_beats``, ``_led_suit``, and ``ev``/``test``.

The interpreter (:class:`atout.engine.state.State` over :class:`atout.engine.machine.Machine`) stays the
reference: ``Game(ir, compiled=False)`` plays with it, the verifier's abstract interpreter runs its machine, and
tests/test_compiled_engine.py plays both side by side.  One difference is by design: a ``VAR = random`` chance
node's entry in ``pending`` ends with its location as text (the interpreter keeps the ``Span``).

Effects that run as long as the interpreter's step limit allows (``MAX_AUTO_STEPS`` without a rest) are the one
place where the compiled code cannot tell alone what the interpreter does (it counts blocks, not steps): there
it replays the match in the interpreter (:func:`_step_limit`), which raises its rule error, or finds none and
lets the compiled code run on.
"""
from __future__ import annotations

import linecache
import numbers
import weakref

from atout.compiler import ir

from .evaluate import RuleError, StepLimitError
from .recall import masked_entry


def state_class(game) -> type:
    """The compiled state class of ``game`` (an :class:`atout.engine.game.Game`), generated and run once per game.

    Raises :class:`atout.export.python_module.ExportError` for a construct the generator does not translate."""
    from atout.export.python_module import generate
    from .state import IllegalActionError

    source = generate(game.ir, game.ir.source or game.name, standalone=False)
    filename = f"<atout compiled {game.name!r} {id(game):x}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)   # for tracebacks
    ns: dict = {"__name__": f"atout_compiled_{id(game):x}"}
    exec(compile(source, filename, "exec"), ns)
    ns["RuleError"] = RuleError
    ns["IllegalActionError"] = IllegalActionError
    ns["_step_limit"] = _step_limit
    base = ns["State"]
    g = game.ir
    choose = {p.name: a for p in g.phases for a in p.actions if a.param is not None and a.param.kind == "choose"}
    card = {p.name: a for p in g.phases for a in p.actions if a.param is not None and a.param.kind in ("card", "choose")}
    named = {p.name: {a.name: a for a in p.actions} for p in g.phases}
    tricks = {id(p.trick): p.name for p in g.phases if p.trick is not None}
    cls = type("CompiledState", (CompiledState, base), {
        "__module__": __name__, "__doc__": CompiledState.__doc__, "_ns": ns, "source": source,
        "_slots": base.__slots__,
        "_choose_action": choose, "_card_action": card, "_named": named, "_trick_phase": tricks})
    weakref.finalize(cls, linecache.cache.pop, filename, None)   # the source for tracebacks lives as long as it
    return cls


def _step_limit(s, start) -> None:
    """The compiled effects of one step reached the weight at which the interpreter may stop them: replay the match
    in the interpreter, which raises its rule error if it stops them (the same message, naming ``start``, the
    phase the effects began in), or runs them to their end, and then the compiled code runs on.  A state the
    history does not lead to (a determinized one) gets the rule error the generated module gives."""
    from .state import State
    if s.__dict__.get("_replayable", True):
        ref = State(s.game)
        for a in list(s.history):
            ref.apply_action(a)
        return
    raise StepLimitError(f"effects ran {s._ns['MAX_AUTO_STEPS']} steps without a decision: a loop of automatic "
                         f"phases? (they began in phase '{start}')")


class CompiledState:
    """A node of a match, run by the game's generated code (see the module docstring); create it with
    ``game.new_initial_state()``.  Its API and attributes are the interpreter's :class:`~atout.engine.state.State`'s.

    This class is a mixin: :func:`state_class` combines it with the generated ``State`` of a game."""

    _ns: dict = {}

    # -- what the interpreter's state shows under other names ------------------------------------------------
    @property
    def selecting(self):
        """A card choice in progress: ``(action, chosen so far, least, most)`` (the ``ir.Action``), or None."""
        sel = self.selection
        return None if sel is None else (self._choose_action[self.phase], *sel)

    @property
    def _deal_start_returns(self) -> dict:
        """The match variables when the deal in progress began (name -> value; lists copied)."""
        return self.deal_start

    @property
    def _logged_dealer(self) -> int:
        return self.logged_dealer

    def clone(self):
        n = super().clone()
        if self.__dict__:
            n.__dict__.update(self.__dict__)
        n.on_score = None        # a hook watches one match: a bot's look-ahead on a clone must not report to it
        return n

    # -- observations: the engine's own text ------------------------------------------------------------------
    def _check_seat(self, player) -> None:
        if isinstance(player, bool) or not isinstance(player, numbers.Integral) or \
                not 0 <= player < self.game.players:
            raise ValueError(f"no seat {player!r}: the seats are 0..{self.game.players - 1}")

    def observation_string(self, player: int) -> str:
        """What ``player`` (a seat, 0-based) sees (:func:`.observe.observation_string`); ValueError for a bad seat."""
        from .observe import observation_string
        self._check_seat(player)
        return observation_string(self, player)

    def information_state_string(self, player: int) -> str:
        """What ``player`` has observed of the match, in order (perfect recall; :mod:`.observe`)."""
        from .observe import information_state_string
        self._check_seat(player)
        return information_state_string(self, player)

    def information_state_log(self, player: int) -> list[str]:
        """``player``'s view of the log, one token per entry (:func:`.recall.recall_tokens`)."""
        from .observe import information_state_log
        self._check_seat(player)
        return information_state_log(self, player)

    def __str__(self) -> str:
        from .observe import full_string
        return full_string(self)

    # -- search ----------------------------------------------------------------------------------------------
    def determinized(self, seat: int, deal: dict[int, list[int]]):
        """A copy in which the zone slots in ``deal`` hold the given cards, the entries of variables ``seat`` does
        not see are reset to their initial values, and the history and the others' hidden choices are forgotten
        (:meth:`atout.engine.state.State.determinized`, the same contract).  For search (ISMCTS)."""
        new = object.__new__(type(self))          # a shallow copy: what the seat may not see is not read
        for name in self._slots:
            setattr(new, name, getattr(self, name))
        new.__dict__.update(self.__dict__)
        new.zones = [list(deal[i]) if i in deal else list(z) for i, z in enumerate(self.zones)]
        sides = self.game.ir.sides
        new.vars = {}
        for v in self.game.ir.vars:
            if v.visibility in (None, "public"):
                val = self.vars[v.name]
                new.vars[v.name] = list(val) if isinstance(val, list) else val
        for v in self.game.ir.vars:
            if v.name not in new.vars:           # private or hidden: what the seat sees, the rest reset
                init = self.game.compile(v.init)(new, {})
                if v.per is None:
                    new.vars[v.name] = init
                else:
                    n = self.game.players if v.per == "player" else len(sides)
                    own = self.vars[v.name] if v.visibility == "private" else None
                    new.vars[v.name] = [own[k] if own is not None and v.seen_by(seat, k, sides) else init
                                        for k in range(n)]
        new._lc = None
        new.history = self._ns["History"]()
        new.log = list(self._masked_log(seat))
        new.revealed = set(self.revealed)
        new.tricks_won = list(self.tricks_won)
        new.trick_cards = list(self.trick_cards)
        new.loc = list(self.loc)
        new.pending = list(self.pending)
        new.deal_log = list(self.deal_log)
        new.deal_values = list(self.deal_values)
        new.voids = set(self.voids)
        new.on_score = None
        new._replayable = False
        return new

    def _masked_log(self, seat: int) -> list:
        """The log as ``seat`` may know it (:func:`.recall.masked_entry`), kept while the log has not grown."""
        c = self.__dict__.get("_masked")
        log = self.log
        if c is not None and c[0] is log and c[1] == len(log) and c[2] == seat:
            return c[3]
        bit = 1 << seat
        masked = [e if e[2] or e[0] == seat or len(e) > 4 and e[4] & bit else masked_entry(e, seat) for e in log]
        masked = [e for e in masked if e is not None]
        self._masked = (log, len(log), seat, masked)
        return masked

    # -- the machine's hooks, for the verifier's concrete searches and the bots ----------------------------------
    def test(self, e: ir.Expr, env: dict) -> bool:
        return self.game.compile(e)(self, env)

    def ev(self, e: ir.Expr, env: dict):
        return self.game.compile(e)(self, env)

    def _legal(self) -> dict:
        """Each legal action of the player to act -> how it applies, as :meth:`Machine._legal` says:
        ``("play", None)``, ``("named", action, value)``, ``("card", action)``, ``("choose", action)`` or
        ``("done", action)`` (the actions are the IR's)."""
        g = self.game
        legal = self._ns["LEGAL"][self.phase](self)
        out: dict = {}
        phase = self.phase
        act = self._card_action.get(phase)
        if self.selection is not None:
            for a in legal:
                out[a] = ("done", act) if a == g.done_action else ("choose", act)
            return out
        trick = g.phases[phase].kind == "trick"
        named = self._named[phase]
        for a in legal:
            if a < g.num_cards:
                out[a] = ("play", None) if trick else (act.param.kind, act)
            elif a == g.done_action and act is not None and act.param.kind == "choose":
                out[a] = ("done", act)
            else:
                slot = g.slot(a)
                out[a] = ("named", named[slot.name], slot.value)
        return out

    def _legal_map(self) -> dict:
        return self._legal()

    def _play_card(self, card) -> None:
        """The player to play plays ``card`` to the trick, which its winner takes if it is complete
        (:meth:`Machine._play_card`); the effects that follow are not run, but the next trick may have been led
        (``to_play``, ``actor``, ``trick_number``): a probe, whose winner the verifier reads."""
        self._ns["PLAY"][self.phase](self, card)

    def _trump(self, trick: ir.Trick) -> int:
        """The trumps of ``trick`` now (with a trump order and no trump suit, the order's own suit)."""
        return self._ns["ORDER"][self._trick_phase[id(trick)]](self)[0]

    def _order(self, trump: int) -> tuple[list[int], list[int]]:
        """The suit and strength of every card in the current trick phase under ``trump`` (bowers apply)."""
        ph = self.game.phases.get(self.phase) if self.phase is not None else None
        trick = ph.trick if ph is not None else None
        if trick is None:
            return self.game.suit_of, self.game.strength_of
        plan = self.game.trick_plan(trick)
        return plan.suits_by[trump + 1], plan.strength_by[trump + 1]

    def _beats(self, a: int, b: int, trump: int) -> bool:
        """Whether card ``a`` beats card ``b`` (the current winner) under ``trump``."""
        so, st = self._order(trump)
        if so[a] == so[b]:
            return st[a] > st[b]
        return so[a] == trump

    def _led_suit(self) -> int:
        """The suit led to the current trick (a left bower leads trumps), or -1."""
        return self._ns["_led_suit"](self)

"""Export a game as an OpenSpiel Python game (``atout export FILE --to openspiel -o OUT.py``).

The output is the standalone module of :mod:`.python_module` followed by an adapter that registers the game with
``pyspiel`` when the module is imported, so that OpenSpiel's own tools run on it::

    import OUT                      # registers the game
    game = pyspiel.load_game(OUT.SHORT_NAME)
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)

What OpenSpiel is told, all derived from the IR:

* game type: sequential; explicit chance when the rules draw from a hidden zone or pick the dealer at random
  (deterministic otherwise); imperfect information when a zone is private or hidden; general-sum utility (Atout
  does not prove zero-sum); terminal rewards;
* game info: players; distinct actions (card ids then the named action slots); most chance outcomes; utility
  bounds (:func:`.analysis.utility_bounds`); maximum game length (:func:`.analysis.max_decisions`).  When the IR
  gives no bound on the length (a loop with no bounded counter, a match to N points), the game takes an integer
  parameter ``max_game_length`` and a match that reaches that many decisions ends there, every player getting 0
  (the utility bounds are widened to include 0).  Its default is twice the decisions of ``K`` deals in which
  every loop runs once (``K`` from ``ends when deal_number >= K``, else 16; at least :data:`DEFAULT_CAP`:
  :func:`.analysis.default_cap`), so that a match of ordinary length is not cut short;
* chance outcomes with their probabilities (uniform over the cards of the zone drawn from);
* observation and information-state strings and tensors that respect visibility: a player sees public zones,
  zones revealed by the rules and his own private zones; of the rest only the number of cards.  The observer
  follows ``pyspiel.IIGObservationType``: ``public_info`` (public zones, zone sizes, the trick, variables, the
  dealer, the phase), ``private_info`` (none, the player's own private zones, or every zone) and ``perfect_recall``
  (the observer's view of the log, engine/recall.py: every chance outcome, action, zone shown, card moved and
  variable change he saw, in order; the tensor's ``log`` rows are laid out in docs/export.md and
  :func:`encode_log`).
"""
from __future__ import annotations

import os

from atout.compiler import ir

from atout.engine.observe import var_encoding

from .analysis import default_cap, max_decisions, utility_bounds
from .names import py_str, safe_identifier
from .python_module import ExportError, generate

DEFAULT_CAP = 500


def _draws_by_chance(g: ir.Game) -> bool:
    hidden = {z.name for z in g.zones if z.visibility == "hidden"}

    def zname(e):
        return e.name if isinstance(e, ir.ZoneRef) else e.base.name

    def walk(stmts):
        for s in stmts:
            if isinstance(s, ir.Move) and s.count is not None and zname(s.source) in hidden:
                return True
            if isinstance(s, ir.Deal) and zname(s.source) in hidden:
                return True
            if isinstance(s, ir.RandomAssign):
                return True
            if isinstance(s, ir.If) and (any(walk(b) for _, b in s.branches) or walk(s.orelse)):
                return True
            if isinstance(s, ir.For) and walk(s.body):
                return True
        return False
    bodies = [p.body for p in g.phases] + [a.body for p in g.phases for a in p.actions] + \
        [p.trick.then for p in g.phases if p.trick is not None] + \
        [p.trick.after for p in g.phases if p.trick is not None] + [r.body for t in g.tables for r in t.rows]
    return g.match.first_dealer_random or any(walk(b) for b in bodies)


def generate_openspiel(g: ir.Game, source: str = "") -> str:
    """Python source of a module that plays ``g`` and registers it with pyspiel on import.

    Raises ValueError when the returns of the game have no bound (OpenSpiel needs utility bounds).
    """
    bounds = utility_bounds(g)
    if bounds is None:
        raise ValueError("OpenSpiel needs bounds on the returns, and returns(p) has none: give the variables it "
                         "uses a range, e.g. 'match var points: int in 0..99 per player'")
    bound = max_decisions(g)
    lo, hi = float(bounds[0]), float(bounds[1])
    if bound is None:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if lo >= hi:
        hi = lo + 1.0  # OpenSpiel requires min_utility < max_utility; a looser bound stays a bound
    chance = _draws_by_chance(g)
    imperfect = any(z.visibility in ("private", "hidden") for z in g.zones)
    short = safe_identifier(g.name, "atout")
    adapter = (_ADAPTER
               .replace("@SHORT@", py_str(short))
               .replace("@BOUND@", repr(bound))
               .replace("@CAP@", repr(default_cap(g, DEFAULT_CAP)))
               .replace("@MINU@", repr(lo))
               .replace("@MAXU@", repr(hi))
               .replace("@CHANCE@", repr(chance))
               .replace("@IMPERFECT@", repr(imperfect))
               .replace("@VARENC@", repr(tuple(var_encoding(g))))
               .replace("@OPTIONS@", repr(_option_params(g)))
               .replace("@RULES@", py_str(os.path.abspath(source) if source else "")))
    try:
        return generate(g, source, adapter)
    except ExportError as exc:
        raise ValueError(str(exc)) from None


def _option_params(g: ir.Game) -> dict:
    """The game's options as pyspiel parameters, with their defaults: a bool or an int as such, any other value
    (a suit, a rank, an enum value) as its text."""
    out = {}
    for o in g.options:
        if o.type.kind == "bool":
            out[o.name] = bool(o.value)
        elif o.type.kind == "int":
            out[o.name] = int(o.value)
        else:
            out[o.name] = o.text
    return out


_ADAPTER = '''# -- OpenSpiel adapter: registers this game with pyspiel on import ---------------------------------------
import numpy as np
import pyspiel

SHORT_NAME = @SHORT@
LENGTH_BOUND = @BOUND@          # a proved bound on the decisions of a match, or None (then a cap applies)
DEFAULT_CAP = @CAP@
MIN_UTILITY = @MINU@
MAX_UTILITY = @MAXU@
HAS_CHANCE = @CHANCE@
IMPERFECT = @IMPERFECT@
VAR_ENCODING = @VARENC@         # (kind, categories, copies) per variable
OPTIONS = @OPTIONS@             # the rule file's options, as pyspiel parameters, with the values this module has
RULES = @RULES@                 # the rule file (another setting of the options is compiled from it by Atout)

_PARAMS = dict(OPTIONS)
if LENGTH_BOUND is None:
    _PARAMS["max_game_length"] = DEFAULT_CAP
_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name=TITLE,
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if HAS_CHANCE
                 else pyspiel.GameType.ChanceMode.DETERMINISTIC),
    information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if IMPERFECT
                 else pyspiel.GameType.Information.PERFECT_INFORMATION),
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_PLAYERS,
    min_num_players=NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMS)


class SpielGame(pyspiel.Game):
    """This game as a pyspiel.Game."""

    def __init__(self, params=None):
        params = dict(params or {})
        if LENGTH_BOUND is None:
            self.cap = int(params.get("max_game_length", DEFAULT_CAP))
            if self.cap < 1:
                raise ValueError("max_game_length must be at least 1")
        else:
            self.cap = None
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_DISTINCT_ACTIONS,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES if HAS_CHANCE else 0,
            num_players=NUM_PLAYERS,
            min_utility=MIN_UTILITY,
            max_utility=MAX_UTILITY,
            max_game_length=LENGTH_BOUND if LENGTH_BOUND is not None else self.cap)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self):
        return SpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return SpielObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params,
                             self.max_game_length())


class SpielState(pyspiel.State):
    """A state of this game as a pyspiel.State; ``inner`` is the module's own State."""

    def __init__(self, game, inner=None):
        super().__init__(game)
        self.inner = inner if inner is not None else State()
        self.cap = game.cap
        self.decisions = 0
        self.truncated = False

    def current_player(self):
        if self.truncated:
            return pyspiel.PlayerId.TERMINAL
        return self.inner.current_player()

    def _legal_actions(self, player):
        if self.truncated or player != self.inner.current_player():
            return []
        return self.inner.legal_actions()

    def chance_outcomes(self):
        return self.inner.chance_outcomes()

    def _apply_action(self, action):
        decision = not self.inner.terminal and not self.inner.pending
        self.inner.apply_action(int(action))
        if decision:
            self.decisions += 1
            if self.cap is not None and self.decisions >= self.cap and not self.inner.terminal:
                self.truncated = True

    def _action_to_string(self, player, action):
        return self.inner.action_to_string(action)

    def is_terminal(self):
        return self.truncated or self.inner.terminal

    def returns(self):
        if self.truncated:
            return [0.0] * NUM_PLAYERS
        return self.inner.returns()

    def rewards(self):
        return self.returns() if self.is_terminal() else [0.0] * NUM_PLAYERS

    def __str__(self):
        text = str(self.inner)
        return text + "\\n(truncated at max_game_length: every player gets 0)" if self.truncated else text


class SpielObserver:
    """Observation tensors and strings of this game for pyspiel (the PyObserver interface)."""

    def __init__(self, iig_obs_type, params, length):
        if params:
            raise ValueError("observation parameters are not supported: %r" % (params,))
        self.public = iig_obs_type.public_info
        self.recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info
        nslot, nc = len(SLOT_LABEL), NUM_CARDS
        var_width = sum(k * c for _, k, c in VAR_ENCODING)
        pieces = [("player", (NUM_PLAYERS,)), ("current_player", (NUM_PLAYERS + 2,)), ("dealer", (NUM_PLAYERS,)),
                  ("phase", (len(PHASE_NAMES) + 1,))]
        if self.public:
            pieces += [("public_cards", (nslot, nc)), ("sizes", (nslot,)), ("trick", (NUM_PLAYERS, nc)),
                       ("tricks_won", (NUM_PLAYERS,)), ("vars", (var_width,))]
        if self.private != pyspiel.PrivateInfoType.NONE:
            pieces.append(("private_cards", (nslot, nc)))
        if self.recall:
            self.rows = log_rows(length)
            pieces += [("log", (self.rows, LOG_WIDTH)), ("log_overflow", (1,))]
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {}
        i = 0
        for name, shape in pieces:
            n = int(np.prod(shape))
            self.dict[name] = self.tensor[i:i + n].reshape(shape)
            i += n

    def _sees(self, st, slot, player):
        if self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            return True
        if self.private == pyspiel.PrivateInfoType.NONE:
            return False
        return SLOT_VIS[slot] == 'private' and SLOT_OWNER[slot] == player

    def _sees_var(self, i, entry, player):
        if self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            return True
        if VAR_VIS[i] != 'public' and self.private == pyspiel.PrivateInfoType.NONE:
            return False
        return var_seen(i, player, entry)

    def set_from(self, state, player):
        st = state.inner
        d = self.dict
        self.tensor.fill(0)
        d["player"][player] = 1
        cur = state.current_player()
        d["current_player"][cur if cur >= 0 else (NUM_PLAYERS if cur == CHANCE else NUM_PLAYERS + 1)] = 1
        d["dealer"][st.dealer] = 1
        d["phase"][PHASE_INDEX[st.phase] + 1 if st.phase is not None else 0] = 1
        if self.public:
            pub, sizes = d["public_cards"], d["sizes"]
            for i, z in enumerate(st.zones):
                sizes[i] = len(z)
                if SLOT_VIS[i] == 'public' or i in st.revealed:
                    for c in z:
                        pub[i, c] = 1
            for p, c in st.trick_cards:
                d["trick"][p, c] = 1
            d["tricks_won"][:] = st.tricks_won
            v = d["vars"]
            k = 0
            for i, (kind, cats, copies) in enumerate(VAR_ENCODING):
                val = st.vars[VAR_NAMES[i]]
                for e, x in enumerate(val if isinstance(val, list) else (val,)):
                    if not self._sees_var(i, e if isinstance(val, list) else None, player):
                        k += 1 if kind == "num" else cats   # an entry this seat does not see stays 0
                        continue
                    if kind == "num":
                        v[k] = float(x)
                        k += 1
                    else:
                        if -1 <= x < cats - 1:
                            v[k + x + 1] = 1
                        k += cats
        if "private_cards" in d:
            priv = d["private_cards"]
            for i, z in enumerate(st.zones):
                if self._sees(st, i, player):
                    for c in z:
                        priv[i, c] = 1
        if self.recall:
            over = encode_log(st.log, self._viewer(player), d["log"])
            d["log_overflow"][0] = over

    def _viewer(self, player):
        """Whose view of the log: the seat, every seat's (ALL_PLAYERS: None) or the public one (NONE: -1)."""
        if self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            return None
        if self.private == pyspiel.PrivateInfoType.NONE:
            return -1
        return player

    def string_from(self, state, player):
        st = state.inner
        if self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            text = str(st)
        elif self.private == pyspiel.PrivateInfoType.NONE:
            text = st._view(-1, False)
        else:
            text = st.observation_string(player)
        if self.recall:
            text += "\\nhistory: " + " ".join(st.information_state_log(self._viewer(player)))
        if state.truncated:
            text += "\\n(truncated)"
        return text


# The information-state tensor's log (docs/export.md): one row per entry of the log as the observer sees it
# (engine/recall.py; a variable's change he does not see has no row), oldest first, then zeros.  A row: the kind
# (8: decision, chance, reveal, move, variable, phase, deal, dealer), a seat (the actor, the dealer, a variable's
# entry),
# ids (an action, a chance outcome or the cards moved or shown; the last column: not seen), the zone slot the cards
# come from (a move, a reveal), the slot they go to (a chance draw, a move), the variable or phase, and a number
# (the variable's new value, the number of cards moved).
LOG_KINDS = 8
ID_WIDTH = max(NUM_DISTINCT_ACTIONS, MAX_CHANCE_OUTCOMES, NUM_PLAYERS) + 1
ITEM_WIDTH = max(len(VAR_NAMES), len(PHASE_NAMES), 1)
_SEAT0 = LOG_KINDS
_ID0 = _SEAT0 + NUM_PLAYERS
_FROM0 = _ID0 + ID_WIDTH
_TO0 = _FROM0 + len(SLOT_LABEL)
_ITEM0 = _TO0 + len(SLOT_LABEL)
_VALUE = _ITEM0 + ITEM_WIDTH
LOG_WIDTH = _VALUE + 1


def log_rows(length):
    """Rows of the log in the information-state tensor for a game of at most ``length`` decisions: three per
    decision, two per card, and 16 more (a longer log keeps its first rows; ``log_overflow`` counts the rest)."""
    return 3 * length + 2 * NUM_CARDS + 16


def encode_log(log, viewer, rows):
    """Write ``log`` as ``viewer`` sees it (a seat; -1 the public observer; None everything) into ``rows`` (an array
    of shape (n, LOG_WIDTH), zeroed); returns how many entries did not fit."""
    k, n, unseen = 0, len(rows), ID_WIDTH - 1
    over = 0
    for e in log:
        kind = e[0]
        sees = seat_view(e, viewer)
        if kind == VAR and not sees:
            continue
        if k >= n:
            over += 1
            continue
        r = rows[k]
        k += 1
        if kind >= 0:
            r[0] = 1
            r[_SEAT0 + kind] = 1
            r[_ID0 + (e[1] if sees else unseen)] = 1
        elif kind == CHANCE:
            r[1] = 1
            r[_ID0 + (e[1] if sees else unseen)] = 1
            if e[3] >= 0:
                r[_TO0 + e[3]] = 1
        elif kind == REVEAL:
            r[2] = 1
            r[_FROM0 + e[3]] = 1
            for c in e[1]:
                r[_ID0 + c] = 1
        elif kind == MOVE:
            r[3] = 1
            r[_FROM0 + e[3]] = 1
            r[_TO0 + e[5]] = 1
            if sees:
                for c in e[1]:
                    r[_ID0 + c] = 1
            else:
                r[_ID0 + unseen] = 1
            r[_VALUE] = e[6]
        elif kind == VAR:
            r[4] = 1
            r[_ITEM0 + e[3]] = 1
            if 0 <= e[5] < NUM_PLAYERS:
                r[_SEAT0 + e[5]] = 1
            r[_VALUE] = float(e[1])
        elif kind == PHASE:
            r[5] = 1
            r[_ITEM0 + e[1]] = 1
        elif kind == DEAL:
            r[6] = 1
            r[_SEAT0 + e[1]] = 1
        elif kind == DEALER:
            r[7] = 1
            r[_SEAT0 + e[1]] = 1
    return over


_VARIANTS = {}


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def make_game(params=None):
    """The game for pyspiel parameters ``params``: this module's own for its option values; for another setting
    of the options, the rule file compiled and exported by Atout with those values (Atout must be installed;
    cached per setting).  Raises ValueError for an unknown parameter or a bad value."""
    params = dict(params or {})
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        raise ValueError("unknown parameter %s of %s; its parameters: %s" % (
            ", ".join(unknown), SHORT_NAME, ", ".join(sorted(_PARAMS)) or "none"))
    changed = {k: _option_text(v) for k, v in params.items() if k in OPTIONS and v != OPTIONS[k]}
    if not changed:
        return SpielGame(params)
    key = tuple(sorted(changed.items()))
    if key not in _VARIANTS:
        try:
            from atout.compiler import CompileError, compile_file
            from atout.export.openspiel_game import generate_openspiel
        except ImportError:
            raise ValueError("the options %s differ from this export's; Atout is needed to compile them "
                             "(pip install atout), or export the game again with --option" % (changed,)) from None
        try:
            ir_game = compile_file(RULES, changed)
        except CompileError as exc:   # a value of the right type but not allowed (pyspiel checked the type)
            raise ValueError("%s: %s" % (SHORT_NAME, "; ".join(d.message for d in exc.diagnostics))) from None
        ns = {"__name__": SHORT_NAME + "_variant", "_ATOUT_VARIANT": True}
        exec(compile(generate_openspiel(ir_game, RULES), "<%s %s>" % (SHORT_NAME, key), "exec"), ns)
        _VARIANTS[key] = ns
    ns = _VARIANTS[key]
    return ns["SpielGame"]({k: v for k, v in params.items() if k in ns["_PARAMS"]})


if SHORT_NAME not in pyspiel.registered_names() and not globals().get("_ATOUT_VARIANT"):
    pyspiel.register_game(_GAME_TYPE, make_game)'''

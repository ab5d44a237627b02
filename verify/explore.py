"""Exhaustive exploration of the abstraction: the abstract game graph.

Nodes are abstract states at rest (a player to decide, or the start of a deal), after the values nothing
reads any more were forgotten and suits and seats relabelled by symmetry, plus two kinds of sink: the
end of the match (:data:`MATCH_OVER`) and rule errors (``(ERROR, message)``).  A *move* is one decision
of the player to act (a named action, a card of a tracked or anonymous class, ``done``), followed by every
effect up to the next rest, chance draws included.  The effects are run by the engine's own machine
(:mod:`atout.engine.machine`) one step at a time; wherever the abstraction cannot tell which way they go
the abstract state chooses, and :meth:`Explorer.fork` runs every choice.  Equal intermediate states of one
move are merged; a move whose effects can loop without a decision gets an error outcome, as the engine's
step limit would give.

The graph is a :class:`networkx.MultiDiGraph`; each edge carries the move, the events needed to replay it,
whether it is exact (no guess on the way), whether the move was surely legal, and, when it ends a deal, the
deal's gains.  Observers (``monitors``) see every state where the engine can be observed (chance nodes,
decisions, the end of the match) before anything is forgotten: that is where invariants are checked.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import networkx as nx

from atout.compiler import ir
from atout.engine.evaluate import RuleError
from atout.engine.machine import Machine

from .absint import NO_COUNT, AbstractState, Abstraction, Chooser, Unsupported
from .values import DEAL_START, ERROR, MATCH_OVER, hi_of, widen_gain

MAX_STEP_STATES = 200_000   # intermediate states of one move before the abstraction gives up
MAX_STRAIGHT = 20_000       # steps of one path without a branch or a rest: effects that may never end
LOOP_ERROR = "effects may run without end, without a decision (a loop of automatic phases?)"


class ExplorationLimit(Exception):
    """The exploration could not finish (too many states, an unsupported construct, the wall-clock safety)."""


class StateLimit(ExplorationLimit):
    """The exploration passed its budget of abstract states (``max_states``)."""


class CoarsenLimit(StateLimit):
    """Keeping the deal variables the explorer may forget (read only as data, or a chosen card's rank or suit)
    exactly has multiplied the abstract states (see :attr:`Explorer.coarse_probe`): the caller explores with
    them forgotten."""


class CounterLimit(ExplorationLimit):
    """A counter of a coarse abstraction may leave its range (:meth:`Explorer._check_counters`)."""


@dataclass(frozen=True)
class Move:
    kind: str          # named, card, choose, done, play, start
    action: str        # action name ('' for play/start)
    value: object      # parameter value, card class (tracked card id or ANON), cards chosen (done)
    actor: int

    def __str__(self) -> str:
        return f"{self.kind}:{self.action}:{self.value}"


@dataclass
class Explored:
    graph: nx.MultiDiGraph
    states: dict          # key -> AbstractState at rest
    initial: list         # keys of the deal-start states of the first deal
    seconds: float = 0.0
    deal_ends: list = field(default_factory=list)   # (key of the state before, gains at end of deal)
    errors: list = field(default_factory=list)      # (key, message, move) of reachable abstract rule errors
    maybe_dead: set = field(default_factory=set)    # keys where some case has no legal action
    cases: dict = field(default_factory=dict)       # key -> [frozenset of moves legal in each case], when several
    initial_perm: dict = field(default_factory=dict)    # initial key -> suit relabelling applied to it
    initial_rot: dict = field(default_factory=dict)     # initial key -> seat rotation applied to it
    steps: int = 0        # machine steps run (a measure of work)
    _transitions: int | None = None
    monitors: dict = field(default_factory=dict)        # property name -> its monitor on this exploration
    _successors: dict | None = None
    # deal-end blocks run once per distinct state (summaries): [(the state at the block's start, the block)];
    # an edge that ends a deal through one names it by its index ('end_block' in the edge data)
    end_blocks: list = field(default_factory=list)
    ruled_out: int = 0   # edges to rule errors that z3 showed impossible
    # bounds of the match variables proved at every deal start (see match_invariant), or None
    match_bounds: dict | None = None
    # the highest value of each counter of a coarse abstraction, proved over the graph (Explorer._check_counters)
    counter_bounds: dict = field(default_factory=dict)
    # (key, move) -> the phases of the chance nodes that the move's effects pass: the engine rests at a chance
    # node too (a state of its phase that no graph node stands for); see reach.chance_rests
    chance_rests: dict = field(default_factory=dict)
    # (key, message) -> the phases the rule error was raised in by a move from that node
    error_phases: dict = field(default_factory=dict)

    @property
    def transitions(self) -> int:
        """The number of edges of the graph (the explorer counts them; networkx would walk every node)."""
        if self._transitions is None:
            self._transitions = self.graph.number_of_edges()
        return self._transitions

    def successors(self) -> dict:
        """The graph's adjacency, ``{u: {v: {key: edge data}}}`` (networkx's own dicts, in edge order; read
        them, never change them), built once the exploration is complete."""
        if self._successors is None:
            from .graphs import successors
            self._successors = successors(self.graph)
        return self._successors

    def index(self) -> tuple[list, dict]:
        """``(keys, position)``: the states' keys in exploration order and each key's position in it, so that
        a pass over the whole graph (a cycle search, the counters' bounds) can work on small ints, which hash
        and compare at C speed, where a key's hash is a Python call.  Made once the exploration is complete."""
        got = self.__dict__.get("_index")
        if got is None or len(got[0]) != len(self.states):
            keys = list(self.states)
            got = self._index = (keys, {k: i for i, k in enumerate(keys)})
        return got

    @property
    def initial_events(self) -> dict:
        return {k: () for k in self.initial}


def _move_of(key, how, st: AbstractState) -> Move:
    kind = how[0]
    actor = st.player_to_move()
    if kind == "play":
        return Move("play", "", key, actor)
    if kind == "named":
        return Move("named", how[1].name, how[2], actor)
    if kind in ("card", "choose"):
        return Move(kind, how[1].name, key, actor)
    return Move("done", how[1].name, st.selecting[1] if st.selecting is not None else 0, actor)


_GAINS = 13   # the index of the gains in AbstractState.key()


def _gains_only(key, src_key) -> bool:
    """Whether ``key`` differs from ``src_key`` (the node a move started from) in the per-deal gains alone."""
    return isinstance(src_key, tuple) and len(src_key) == len(key) and key[_GAINS] != src_key[_GAINS] and \
        key[:_GAINS] == src_key[:_GAINS] and key[_GAINS + 1:] == src_key[_GAINS + 1:]


class _Reached:
    """An outcome of a deal-end summary whose successor needs no state: the end of the match, a rule error, or
    a node already known.  It holds what :meth:`Explorer._edge` reads of the outcome (the events, the deal's
    gains, exactness, counters, the deal-end block) and, for a node, the node, suit permutation and rotation
    that :meth:`Explorer._add` gave the same outcome before (None otherwise).
    It stands for a clone of the summary's state that ``_add`` would map to the same node: ``_add`` is a
    function of the state and of the node the move started from, and the reuse is taken only where that
    node cannot change the answer (no widening against it, no phase with frozen variables)."""

    __slots__ = ("events", "end_gains", "exact", "ctr", "sid", "node", "phase")

    def __init__(self, events, end_gains, exact, ctr, sid, node, phase):
        self.phase = phase
        self.events = events
        self.end_gains = end_gains
        self.exact = exact
        self.ctr = ctr
        self.sid = sid
        self.node = node


_VARS = 5     # the index of the variables' values (in declaration order) in AbstractState.key()


class Explorer:
    """Builds the abstract game graph of ``abstraction`` from the start of the first deal."""

    def __init__(self, A: Abstraction, max_states: int = 400_000, deadline: float | None = None,
                 monitors=(), summaries: bool = True, coarse_probe: tuple | None = None,
                 max_transitions: int | None = None, share_runs: bool = True):
        """``summaries=False`` runs every deal's scoring afresh, ``share_runs=False`` every move from every node
        (:meth:`_shared_run`): the references the tests compare with.

        ``coarse_probe``: ``(names, min_states, ratio[, early_states, early_ratio])``: once the graph has
        ``min_states`` states (or ``early_states``), raise :class:`CoarsenLimit` as soon as they number
        ``ratio`` (``early_ratio``) times or more the states they would be with the deal variables ``names``
        forgotten (each new state's key with their values blanked, counted).  A count
        of states, never a time: the same rules always take the same way."""
        self.A = A
        self.coarse_probe = None
        if coarse_probe is not None:
            names, least, ratio, *early = coarse_probe
            # a variable dead at every rest is forgotten there anyway: blanking it would change no key
            kept = {n for live in A.live.vars.values() for n in live}
            at = [i for i, v in enumerate(A.g.vars) if v.name in names and v.name in kept]
            self.coarse_probe = (at, least, ratio, set(), tuple(early) or (least, ratio)) if at else None
            from .liveness import chosen_card_vars
            chosen = chosen_card_vars(A.g) & {A.g.vars[i].name for i in at}
            self.coarse_what = "read only as data" if not chosen else "it may forget"
        self.summaries = summaries
        self.share_runs = share_runs
        self.summary_reuses = 0
        self.g = A.g
        self.max_states = max_states
        self.max_transitions = max_transitions     # None: no bound (a count, never a time or a memory size)
        self.deadline = deadline
        self._chance_phases: set = set()    # phases of the chance nodes the move being run has passed
        # f(kind, raw AbstractState, source key, move); the last records the phases of the chance nodes (a
        # function of the set alone: a bound method would make a cycle that keeps the explorer's tables alive)
        self.monitors = list(monitors) + [_chance_recorder(self._chance_phases)]
        self.steps = 0
        self.edges = 0                  # edges added to the graph
        self._summaries: dict = {}      # (state at a 'then' block, exact) -> its outcomes (see _summary)
        self._runs: dict = {}           # (move, node with the action's killed variables blanked) -> its run
        self.run_reuses = 0
        self._summary_root = None

    # -- choices ------------------------------------------------------------------------------------
    def fork(self, st: AbstractState, fn):
        """Run ``fn(clone)`` on clones of ``st`` under every sequence of the choices it makes; returns
        ``[(state, result, rule error or None)]``."""
        out = []
        todo = [()]
        while todo:
            prefix = todo.pop()
            s = st.clone()
            ch = Chooser(prefix)
            s.chooser = ch
            self.steps += 1
            try:
                r = fn(s)
                err = None
            except RuleError as exc:
                r, err = None, exc.with_traceback(None)   # no cycle through this frame: nothing reads it
            s.chooser = None
            out.append((s, r, err))
            for i in range(len(prefix), len(ch.counts)):
                base = tuple(ch.taken[:i])
                for alt in range(ch.counts[i] - 1, 0, -1):
                    todo.append(base + (alt,))
        out.reverse()
        return out

    # -- deal-end summaries ----------------------------------------------------------------------------------
    def _summary(self, s: AbstractState, src_key, move) -> list[tuple[AbstractState, str]]:
        """The outcomes of running a trick phase's ``then`` block from ``s`` (the last trick just taken), computed
        once per distinct state there (a procedure summary) and reused by every move that reaches it: the
        scoring of a deal does not depend on how its last trick was reached.  The trick's dead fields are
        forgotten first (:meth:`Abstraction.forget_after_tricks`).  What a fresh run would do besides its
        outcomes is done again on a reuse: the monitors see the same states, now from this move, and the
        writes to ranged match variables are recorded for this move."""
        A = self.A
        top = s.frames[-1]
        tail = A.end_tails.get((id(top[0]), top[1])) if A.end_tails else None
        if tail is None:
            A.forget_after_tricks(s)
        else:
            # a deal-end tail reads no local (liveness.action_deal_ends), and the blocks around it never resume
            # (it ends the deal): they and the move's locals are dropped
            del s.frames[:-1]
            top[2] = {}
        key = (s.mid_key(), s.exact)
        got = self._summaries.get(key)
        reused = got is not None
        if got is None:
            t = s.clone()
            t.events = []
            start = t.clone()
            seen = []
            saved = self.monitors
            self.monitors = [lambda kind, st, src, mv: seen.append((kind, st.clone()))]
            self._summary_root = t
            first_write = len(A.match_range_writes)
            try:
                results = self.settle([t], src_key, move)
            finally:
                self.monitors = saved
                self._summary_root = None
            block = tail if tail is not None else start.frames[-1][0]
            sid = len(self.ex.end_blocks)
            self.ex.end_blocks.append((start, block))
            for i in range(first_write, len(A.match_range_writes)):
                A.write_blocks[i] = sid
            got = self._summaries[key] = ([(st.clone(), kind) for st, kind in results], seen,
                                          A.match_range_writes[first_write:], sid, [None] * len(results))
        results, seen, writes, sid, nodes = got
        self.summary_reuses += reused
        for kind, st in seen:
            for m in self.monitors:
                m(kind, st, src_key, move)
        if reused:
            for w in writes:
                A.write_blocks[len(A.match_range_writes)] = sid
                A.match_range_writes.append((A.current,) + tuple(w[1:]))
        out = []
        # outside another summary's first run, the outcomes go straight to _edge: the end of the match or a
        # rule error needs no node, and one whose node _add gave before (kept in ``nodes`` by _edge) is passed
        # on as that node, neither cloned nor canonicalised again
        direct = self._summary_root is None
        for i, (st, kind) in enumerate(results):
            if direct:
                node = nodes[i]
                if node is not None and not _gains_only(node[0], src_key) or kind == "over" or \
                        kind.startswith("error:"):
                    out.append((_Reached(s.events + st.events, st.end_gains, st.exact, st.ctr, sid, node, st.phase),
                                kind))
                    continue
            c = st.clone()
            c.events = s.events + st.events
            c._sid = sid      # the deal end it came from (read and dropped by _edge)
            if direct:
                c._slot = (nodes, i)      # where _edge keeps the node _add gives it (read and dropped by _edge)
            out.append((c, kind))
        return out

    def _match_bounds(self, ex: "Explored") -> None:
        """Prove bounds of the match variables at deal starts (:mod:`.match_invariant`) over every state a
        deal-end block starts in, and assume them in the block models from here on (``A.match_bounds``)."""
        from . import match_invariant, smt_refine
        A = self.A
        A.match_bounds = None
        if A.one_deal or not match_invariant.applies(A):
            return     # a match of one deal has one deal start, at the initial values: nothing to prove over deals
        models, seen = [], set()
        for start, block in ex.end_blocks:
            key = (smt_refine._memo_key(A, start, block), start.gains)
            if key not in seen:
                self._deadline_check(len(seen))
                seen.add(key)
                models.append(smt_refine.block_model(A, start, block))
        got = match_invariant.deal_start_bounds(A, models)
        if got:
            A.match_bounds = got
            for m in {id(m): m for m in models}.values():
                m.solver.add(match_invariant.assumption(A, m.ex.S))
        ex.match_bounds = got

    def _deadline_check(self, done: int) -> None:
        """The wall-clock safety (--timeout) while z3 follows the deal-end blocks of a complete graph (``done``
        of them so far): past it, the exploration stops as it does during the search (its verdicts unknown,
        saying so), never with some blocks followed and others not."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise ExplorationLimit(f"the wall-clock limit (--timeout) fired while z3 followed the deal-end blocks "
                                   f"of a complete exploration ({len(self.ex.states):,} abstract states; {done} "
                                   f"blocks followed)")

    def _refine_deal_ends(self, ex: "Explored") -> None:
        """Once the graph is complete (the values recorded on entering phases with frozen variables are all
        known), follow each deal-end block by z3 (:mod:`.smt_refine`) from the state where it starts, and narrow
        what the abstraction gave for it, each a sound narrowing since every concrete run satisfies z3's
        constraints:

        * an edge to a rule error in the block that z3 shows impossible from every block it came through
          is dropped (the abstraction's values one by one may allow what the cards' relations forbid);
        * the gains of a deal end (and those at the block's writes to ranged match variables) are met with
          the bounds z3 finds for them."""
        from . import smt_refine
        from .values import Interval
        A = self.A
        G = ex.graph
        if not ex.end_blocks:
            return
        self._deadline_check(0)
        errors, bounds = {}, {}
        self._match_bounds(ex)

        def errors_of(sid):
            if sid not in errors:
                self._deadline_check(len(errors) + len(bounds))
                start, block = ex.end_blocks[sid]
                possible = smt_refine.possible_error_locations(A, start, block)
                errors[sid] = None if possible is None else \
                    (possible, smt_refine.block_locations(A.game, block))
            return errors[sid]

        def bounds_of(sid):
            if sid not in bounds:
                self._deadline_check(len(errors) + len(bounds))
                start, block = ex.end_blocks[sid]
                bounds[sid] = smt_refine.gain_bounds(A, start, block)
            return bounds[sid]

        drop = []
        for u, v, k, d in G.edges(keys=True, data=True):
            blocks = d.get("end_blocks")
            if not blocks:
                continue
            if isinstance(v, tuple) and v and v[0] == ERROR:
                place = smt_refine.location(v[1])
                got = [errors_of(sid) for sid in blocks]
                if place is not None and all(e is not None and place in e[1] and place not in e[0] for e in got):
                    drop.append((u, v, k))
                continue
            gains = d.get("end_gains")
            if not gains or not any(isinstance(x, Interval) for row in gains for x in row):
                continue
            met = None
            for sid in blocks:
                b = bounds_of(sid)
                if b is None:
                    met = None
                    break
                start = ex.end_blocks[sid][0]
                here = tuple(tuple(_shift(start.gains[i][j], b[0].get((name, j))) for j in range(len(row)))
                             for i, (name, row) in enumerate(zip(A.watch, gains)))
                met = here if met is None else tuple(tuple(_join(x, y) for x, y in zip(r1, r2))
                                                     for r1, r2 in zip(met, here))
            if met is not None:
                d["end_gains"] = tuple(tuple(_meet(x, y) for x, y in zip(row, mrow)) for row, mrow in zip(gains, met))
        for u, v, k in drop:
            G.remove_edge(u, v, k)
            ex.ruled_out += 1
            self.edges -= 1
        for node in {v for _, v, _ in drop}:
            if isinstance(node, tuple) and node and node[0] == ERROR and G.in_degree(node) == 0:
                G.remove_node(node)
        if drop:
            ex.errors = [e for e in ex.errors if G.has_edge(e[0], (ERROR, e[1]))]
        ex.deal_ends = [(u, d["end_gains"]) for u, v, d in G.edges(data=True)
                        if d.get("end_gains") is not None and not (isinstance(v, tuple) and v and v[0] == ERROR)]
        writes = A.match_range_writes
        for i, sid in A.write_blocks.items():
            src, name, cell, row = writes[i]
            if row is None or name not in A.watch or not any(isinstance(x, Interval) for x in row):
                continue
            b = bounds_of(sid)
            if b is None:
                continue
            start = ex.end_blocks[sid][0]
            k = A.watch.index(name)
            cells = range(len(row)) if cell is None else [cell]
            new = list(row)
            for j in cells:
                new[j] = _meet(row[j], _shift(start.gains[k][j], b[1].get((name, j if cell is not None else None))))
            writes[i] = (src, name, cell, tuple(new))

    # -- one move --------------------------------------------------------------------------------------
    def settle(self, items, src_key, move) -> list[tuple[AbstractState, str]]:
        """Run effects from every state of ``items`` until rest; returns ``[(state, kind)]`` with kind
        ``decision``, ``hub`` (the next deal's start), ``over`` or ``error:MESSAGE``.

        Steps that cannot branch (the end of a block, an end-of-match check that nothing can have changed)
        run in place; the intermediate states where paths may meet (after a step that branched, and at
        chance nodes) are merged.  A cycle among them, or a path of :data:`MAX_STRAIGHT` steps without a
        rest, is effects that may never end: an error outcome, as the engine's step limit gives."""
        out = []
        seen: dict = {}          # merged intermediate state -> its number
        parents: list = []       # number -> numbers of the merged states it came from
        merged = False
        chance = False           # a merged intermediate state is a chance node
        stack = list(reversed(items))
        for s in items:
            s._mk = -1
            s._run = 0
        count = 0
        observe = self.monitors
        A = self.A
        while stack:
            s = stack.pop()
            k0 = s._mk
            looping = False
            while not s.terminal:          # what cannot branch runs in place
                if s.dirty and A.ends_pure and not s.ends_touched:
                    s.dirty = False
                    continue
                if not s.pending and s.frames and s.frames[-1][1] >= len(s.frames[-1][0]):
                    s._run_frame()
                    s._run += 1
                    if s._run > MAX_STRAIGHT:
                        looping = True
                        break
                    continue
                break
            if looping:
                s.exact = False
                out.append((s, "error:" + LOOP_ERROR))
                continue
            if s.terminal:
                for m in observe:
                    m("over", s, src_key, move)
                out.append((s, "over"))
                continue
            if s.dirty and (s.pending or not s.frames):     # 'ends when' at rest, as the engine
                nexts = self.fork(s, AbstractState._check_end)
            elif s.pending:
                for m in observe:
                    m("chance", s, src_key, move)
                nexts = self.fork(s, AbstractState.resolve_chance)
            elif s.frames:
                top = s.frames[-1]
                at = A.entry_blocks.get(id(top[0])) if A.entry_blocks else None
                if at is not None and top[1] == at[1]:
                    A.record_entry_start(s)     # an entry suffix starts: z3 runs it once the graph is complete
                if self.summaries and s is not self._summary_root and \
                        (top[1] == 0 and id(top[0]) in A.then_blocks or
                         A.end_tails and (id(top[0]), top[1]) in A.end_tails):
                    out.extend(self._summary(s, src_key, move))
                    continue
                nexts = self.fork(s, Machine._run_frame)
            elif s.phase == DEAL_START:
                out.append((s, "hub"))
                continue
            else:
                for s2, _, err in self.fork(s, Machine._settle_actor):
                    if err is not None:
                        out.append((s2, "error:" + str(err)))
                        continue
                    for m in observe:
                        m("decision", s2, src_key, move)
                    out.append((s2, "decision"))
                continue
            branched = len(nexts) > 1
            for s2, _, err in nexts:
                if err is not None:
                    out.append((s2, "error:" + str(err)))
                    continue
                if not branched and not s2.pending:
                    s2._run = s._run + 1
                    if s2._run > MAX_STRAIGHT:
                        s2.exact = False
                        out.append((s2, "error:" + LOOP_ERROR))
                        continue
                    stack.append(s2)
                    continue
                k = (s2.mid_key(), s2.exact)
                i = seen.get(k)
                if i is not None:
                    merged = True
                    if k0 >= 0:
                        parents[i].append(k0)
                    continue
                i = seen[k] = len(parents)
                parents.append([k0] if k0 >= 0 else [])
                if s2.pending:
                    chance = True
                s2._mk = i
                s2._run = 0
                count += 1
                if count > MAX_STEP_STATES:
                    raise ExplorationLimit(f"the effects of one move have more than {MAX_STEP_STATES} "
                                           f"intermediate abstract states")
                stack.append(s2)
        if merged and _has_cycle(parents):
            if chance:
                # automatic phases that may go round through chance nodes: the engine rests at each and never
                # reaches its step limit (play may go on for ever, a lasso of chance); the intermediate
                # states of one move are not graph nodes here, so no cycle of the graph would show it
                raise Unsupported("automatic phases that can go round through a chance event (a draw or "
                                  "'random') without a decision")
            # effects that can return to the same intermediate state without a decision: the engine stops
            # them with a rule error after its step limit
            s = items[0].clone()
            s.exact = False
            out.append((s, "error:" + LOOP_ERROR))
        return out

    def moves(self, node: AbstractState, key):
        """Every move of ``node`` with whether it is surely legal: ``[(Move, legal key, how, sure)]``, and
        whether some case of the node has no legal move, and the rule errors of computing them."""
        if node.phase == DEAL_START:
            return [(Move("start", "", None, -1), None, None, True)], False, []
        cases = self.fork(node, AbstractState.legal_moves)
        found: dict = {}
        order = []
        dead = False
        errors = []
        per_case = []
        infeasible = 0
        for s, legal, err in cases:
            if err is not None:
                errors.append((s, err))
                continue
            if not legal:
                if self.A.surely_legal(s):
                    # no state of the game is in this case: in each, the zone of a card choice holds a card
                    # and z3 proved that some card of any such zone is legal (.legal_card)
                    infeasible += 1
                    continue
                dead = True
            here = []
            for k, how in legal.items():
                ident = (k, how[0], how[1].name if len(how) > 1 and how[1] is not None else None,
                         how[2] if len(how) > 2 else None)
                if ident not in found:
                    found[ident] = [_move_of(k, how, node), k, how, 0]
                    order.append(ident)
                found[ident][3] += 1
                here.append(found[ident][0])
            per_case.append(frozenset(here))
        total = len(cases) - infeasible
        if len(per_case) > 1 and not errors:
            self.ex.cases[key] = per_case
        return [(m, k, how, n == total) for m, k, how, n in (found[i] for i in order)], dead, errors

    # -- the graph -----------------------------------------------------------------------------------------
    def explore(self) -> Explored:
        t0 = time.perf_counter()
        A = self.A
        G = nx.MultiDiGraph()
        states: dict = {}
        frontier: list = []
        ex = Explored(G, states, [])
        self.ex = ex
        G.add_node(MATCH_OVER)
        for w in A.deal_starts():
            key, perm, rot = self._add(w, states, frontier, None)
            if key not in ex.initial:
                ex.initial.append(key)
                ex.initial_perm[key] = perm
                ex.initial_rot[key] = rot
        try:
            self._search(G, ex, states, frontier)
        except ExplorationLimit as exc:     # how far it got, for the report
            exc.states, exc.transitions, exc.steps = len(states), self.edges, self.steps
            raise
        if A.counter_names:
            ex.counter_bounds = self._check_counters(ex)
        try:
            self._refine_deal_ends(ex)
        except ExplorationLimit as exc:     # the timeout while z3 followed the deal-end blocks
            exc.states, exc.transitions, exc.steps = len(states), self.edges, self.steps
            raise
        ex.seconds = time.perf_counter() - t0
        ex.steps = self.steps
        ex._transitions = self.edges    # counted as they were added (networkx would walk every node)
        self._summaries = {}
        return ex

    def _search(self, G, ex: "Explored", states: dict, frontier: list) -> None:
        """Expand the frontier until no new node is left (the graph's nodes and edges, in ``G`` and ``ex``)."""
        A = self.A
        while frontier:
            if len(states) > self.max_states:
                raise StateLimit(f"more than {self.max_states} abstract states (--max-states)")
            if self.max_transitions is not None and self.edges > self.max_transitions:
                raise StateLimit(f"more than {self.max_transitions:,} transitions, after {len(states):,} abstract "
                                 f"states (--max-transitions)")
            if self.deadline is not None and time.perf_counter() > self.deadline:
                if not self.edges:
                    raise ExplorationLimit("the wall-clock limit (--timeout) had fired before this exploration "
                                           "began (the checks before it used the time)")
                raise ExplorationLimit(f"the wall-clock limit (--timeout) fired during exploration, after "
                                       f"{len(states):,} abstract states and {self.edges:,} transitions")
            key = frontier.pop()
            node = states[key]
            A.current = (key, None)
            try:
                moves, dead, legal_errors = self.moves(node, key)
            except Unsupported as exc:
                raise ExplorationLimit(f"the abstraction cannot model {exc}") from None
            if dead:
                ex.maybe_dead.add(key)
            for s, err in legal_errors:
                self._edge_error(G, ex, key, None, str(err))
            seen_edges: dict = {}
            for move, lk, how, sure in moves:
                A.current = (key, move)
                shared = self._shared_run(key, move, lk, how)
                if shared is not None:
                    got = self._runs.get(shared)
                    if got is not None:      # the same run from a node that differs only in killed variables
                        self._reuse_run(G, ex, key, move, sure, states, frontier, seen_edges, *got)
                        continue
                    saved = self.monitors
                    seen: list = []
                    if len(saved) > 1:   # monitors besides the chance recorder (a kept run rests at no chance node)
                        self.monitors = saved + [lambda kind, st, src, mv: seen.append((kind, st.clone()))]
                    marks = (len(A.match_range_writes), A.entry_start_calls)
                start = node.clone()
                try:
                    if move.kind == "start":
                        starts = self.fork(start, AbstractState.start_from_hub)
                    else:
                        starts = self.fork(start, lambda s, lk=lk, how=how: s._apply(lk, how))
                    items = []
                    results = []
                    for s, _, err in starts:
                        if err is not None:
                            results.append((s, "error:" + str(err)))
                        else:
                            items.append(s)
                    self._chance_phases.clear()
                    results += self.settle(items, key, move) if items else []
                except Unsupported as exc:
                    raise ExplorationLimit(f"the abstraction cannot model {exc}") from None
                finally:
                    if shared is not None:
                        self.monitors = saved
                if shared is not None and not self._chance_phases and \
                        marks == (len(A.match_range_writes), A.entry_start_calls) and \
                        not any(st.__class__ is _Reached or "_sid" in st.__dict__ for st, _ in results):
                    nodes = [None] * len(results)
                    self._runs[shared] = ([seen, None], [(st.clone(), kind) for st, kind in results], nodes)
                    for i, (st, kind) in enumerate(results):
                        st._slot = (nodes, i)    # where _add keeps the node it gives (see _reuse_run)
                if self._chance_phases:
                    ex.chance_rests[(key, move)] = frozenset(self._chance_phases)
                for st, kind in results:
                    self._edge(G, ex, key, move, st, kind, sure, states, frontier, seen_edges)

    def _shared_run(self, key, move, lk, how):
        """The key under which the run of a named action from node ``key`` is kept for the nodes that differ from
        it only in the action's killed variables (:meth:`Abstraction.killed_at`), or None when it has none (or
        reuse is off).  The key is the node's with those values blanked."""
        if not self.share_runs or how is None or how[0] != "named":
            return None
        killed = self.A.killed_at(how[1])
        if not killed:
            return None
        vals = list(key[_VARS])
        for i in killed:
            vals[i] = None
        return (move, lk, key[:_VARS] + (tuple(vals),) + key[_VARS + 1:])

    def _reuse_run(self, G, ex, key, move, sure, states, frontier, seen_edges, seen, results, nodes) -> None:
        """What a fresh run of ``move`` from node ``key`` would do, from the run kept for another node that
        differs only in the action's killed variables: the same states, which the monitors see again from
        this node, and the same outcomes, each an edge from it.  A run is kept only when nothing else it did
        depends on the node it started from: it rested at no chance node, wrote no ranged match variable,
        started no entry suffix and ran no deal-end summary.  An outcome whose node :meth:`_add` gave before
        (``nodes``, where it does not depend on the node the move started from) is passed on as that node."""
        self.run_reuses += 1
        if seen[1] is None:
            seen[1] = self._replay_plan(seen[0])
        calls, quiet = seen[1]
        for kind, st, ms in calls:
            for m in ms:
                m(kind, st, key, move)
        for m, n in quiet:
            m.checked += n
        for (st, kind), node in zip(results, nodes):
            if node is not None and not _gains_only(node[0], key):    # (never set for the end or an error)
                st = _Reached(st.events, st.end_gains, st.exact, st.ctr, None, node, st.phase)
            else:
                st = st.clone()
            self._edge(G, ex, key, move, st, kind, sure, states, frontier, seen_edges)

    def _replay_plan(self, seen) -> tuple[list, list]:
        """How the monitors see a kept run's states ``[(kind, state)]`` again from another node: ``(calls,
        quiet)``, ``calls`` ``[(kind, state, [monitors to call])]`` in the run's order, ``quiet`` ``[(monitor,
        count)]``.  An invariant's monitor whose invariant surely holds in a state (its memoised answer, a
        function of the state alone) would only count it there: it is counted, not called."""
        from .monitors import InvariantMonitor
        calls, quiet = [], {}
        for kind, st in seen:
            ms = []
            for m in self.monitors:
                if m.__class__ is InvariantMonitor and m.holds_in(st):
                    quiet[m] = quiet.get(m, 0) + 1
                else:
                    ms.append(m)
            calls.append((kind, st, ms))
        return calls, list(quiet.items())

    def _check_counters(self, ex: "Explored") -> dict:
        """The highest value each counter of a coarse abstraction takes (``{name: int}``), or
        :class:`CounterLimit` when one may leave its range.

        The abstraction let ``+=`` on a counter never fail; this proves it.  On a path of the graph a counter's
        value is the last value set plus the constants added since (:func:`.absint.counters_of`), and each
        edge records what its move did (``ctr``: added before its first reset, the highest value between
        resets, the last value set, added since).  A cycle of edges that add without a reset fails at once;
        otherwise the highest value at each node is a longest path, computed component by component in
        topological order (a worklist inside each, each value only rising), failing as soon as one passes
        the range.  Every concrete run, up to its first write out of the range, is a path of the graph, so
        it never makes one.  No clock and no sampling: the same graph gives the same answer."""
        A = self.A
        G = ex.graph
        states = ex.states
        keys, idx = ex.index()                    # the states as small ints, in exploration order
        out: list = []      # state i -> [(successor j, or -1 when not a state, ctr)]
        pairs: dict = {}    # the edges between states that carry a counter record, each pair once, in order
        adj = dict(G.adjacency())     # (not ex.successors(): edges may still be dropped, by _refine_deal_ends)
        for i, u in enumerate(keys):
            row = []
            out.append(row)
            for v, keyed in adj[u].items():
                j = idx.get(v, -1)
                for d in keyed.values():
                    ctr = d.get("ctr")
                    if ctr is not None:
                        row.append((j, ctr))
                        if j >= 0:
                            pairs[(i, j)] = None
        H = nx.DiGraph()
        H.add_nodes_from(range(len(keys)))
        H.add_edges_from(pairs)
        cond = nx.condensation(H)
        comp = cond.graph["mapping"]
        order = [(c, sorted(cond.nodes[c]["members"])) for c in nx.topological_sort(cond)]
        bounds = {}
        for k, name in enumerate(A.counter_names):
            var = A.var_types[name]
            high = var.type.high
            if name in A.counter_unbounded:
                raise CounterLimit(f"the counter '{name}' is set or raised by a value with no upper bound, "
                                       f"so the forgotten values cannot be proved to stay in {var.type.low}..{high}")
            for i, row in enumerate(out):      # a cycle that adds without a reset passes any bound
                ci = comp[i]
                for j, ctr in row:
                    pre, _, reset, _ = ctr[k]
                    if j >= 0 and reset is None and pre > 0 and comp[j] == ci:
                        raise CounterLimit(f"the counter '{name}' is raised on a cycle of the coarse "
                                               f"abstraction, so it may pass {high}, the top of its range")
            best: dict = {}
            for key in ex.initial:
                if key in idx:
                    v = hi_of(states[key].vars[name])
                    best[idx[key]] = high if v is None else v
            peak_all = var.type.low if not isinstance(var.init, ir.Const) else var.init.value
            for c, members in order:        # components in topological order; inside one nothing adds on a cycle
                todo = [i for i in members if i in best]
                while todo:
                    i = todo.pop()
                    here = best[i]
                    for j, ctr in out[i]:
                        pre, inner, reset, post = ctr[k]
                        end = here + pre if reset is None else reset + post
                        # the value held before the move is not a new peak (and a deal start's is any value
                        # of the range, forgotten at the hub, until its reset)
                        peak = max(end, peak_all if inner is None else inner, here + pre if pre else peak_all)
                        if peak > peak_all:
                            peak_all = peak
                            if peak > high:
                                raise CounterLimit(
                                    f"the counter '{name}' may pass {high}, the top of its range, in the coarse "
                                    f"abstraction (a path of the graph adds up to {peak})")
                        if j >= 0 and end > best.get(j, -1 << 62):
                            best[j] = end
                            if comp[j] == c:
                                todo.append(j)
            bounds[name] = peak_all
        return bounds

    def _edge_error(self, G, ex, key, move, msg):
        node = (ERROR, msg)
        if node not in G:
            G.add_node(node)
        ex.errors.append((key, msg, move))
        ex.error_phases.setdefault((key, msg), set()).add(key[0])
        G.add_edge(key, node, move=move, events=(), exact=False, sure=False, end_gains=None, perm=None, rot=0)
        self.edges += 1

    def _edge(self, G, ex, key, move, st, kind, sure, states, frontier, seen_edges):
        gains = st.end_gains
        perm, rot = None, 0
        reached = st.__class__ is _Reached     # a reused summary's outcome (see _summary)
        if reached:
            sid, slot = st.sid, None
        else:
            sid = st.__dict__.pop("_sid", None)
            slot = st.__dict__.pop("_slot", None)
        error = kind.startswith("error:")
        if kind == "over":
            succ = MATCH_OVER
        elif error:
            msg = kind[len("error:"):]
            succ = (ERROR, msg)
            if succ not in G:
                G.add_node(succ)
            if not any(e[0] == key and e[1] == msg for e in ex.errors[-8:]):
                ex.errors.append((key, msg, move))
            ex.error_phases.setdefault((key, msg), set()).add(st.phase)
        elif reached:
            succ, perm, rot = st.node
        else:
            succ, perm, rot = self._add(st, states, frontier, key, slot)
        ident = (succ, move, gains, st.exact, st.ctr)
        data = seen_edges.get(ident)
        tracked = gains is not None or error   # whose deal-end blocks are remembered
        if data is not None:
            if tracked:
                blocks = data.get("end_blocks")
                if sid is None:
                    data["end_blocks"] = None       # reached without a deal-end block too: never refined
                elif blocks is not None and sid not in blocks:
                    blocks.append(sid)              # the same edge through another deal-end block
            return
        if gains is not None and not error:
            ex.deal_ends.append((key, gains))
        k = G.add_edge(key, succ, move=move, events=tuple(st.events), exact=st.exact and sure, sure=sure,
                       end_gains=gains, perm=perm, rot=rot)
        data = seen_edges[ident] = G.get_edge_data(key, succ, k)     # the edge's own dict (no views made)
        if st.ctr is not None:
            data["ctr"] = st.ctr
        if tracked:
            data["end_blocks"] = [sid] if sid is not None else None
        self.edges += 1

    def _add(self, st: AbstractState, states, frontier, src_key, slot=None):
        """The node of ``st`` (forgotten, suits and seats made canonical: ``(key, suit permutation, rotation)``),
        added to ``states`` and ``frontier`` when new.  ``slot`` (``(list, index)``, from :meth:`_summary`)
        receives that answer when it does not depend on ``src_key``, for the summary's later reuses."""
        A = self.A
        frozen = st.phase in A.frozen
        if frozen and not (isinstance(src_key, tuple) and src_key[0] == st.phase):
            A.record_entry(st)     # play enters a phase whose frozen variables are forgotten there
        A.forget(st)
        perm = A.canonical_suits(st)
        rot = A.rotate(st)
        st.end_gains = None
        key = st.key()
        if _gains_only(key, src_key):
            # the move changed nothing but the per-deal gains, so it can be repeated for ever: widen them
            # beyond what the deal_bound properties compare with, else the states would never run out
            t = A.gain_threshold
            st.gains = tuple(tuple(widen_gain(x, t) for x in row) for row in st.gains)
            key = st.key()
        elif slot is not None and not frozen:
            slot[0][slot[1]] = (key, perm, rot)
        if key not in states:
            clean = st.clone()
            clean.events = []
            clean.exact = True
            clean.end_gains = None
            if clean.ctr is not None:
                clean.ctr = (NO_COUNT,) * len(clean.ctr)
            states[key] = clean
            self.ex.graph.add_node(key)
            frontier.append(key)
            if self.coarse_probe is not None:
                self._probe(key, len(states))
        return key, perm, rot

    def _probe(self, key, n: int) -> None:
        at, least, ratio, shadows, (early, early_ratio) = self.coarse_probe
        vals = list(key[_VARS])
        for i in at:
            vals[i] = None
        shadows.add(key[:_VARS] + (tuple(vals),) + key[_VARS + 1:])
        if n >= least and n >= ratio * len(shadows) or n >= early and n >= early_ratio * len(shadows):
            raise CoarsenLimit(f"{n} abstract states, {n / len(shadows):.1f} times as many as with the deal "
                               f"variables {self.coarse_what} forgotten")


def _chance_recorder(phases: set):
    """A monitor adding to ``phases`` the phase of every chance node it sees."""
    def see(kind, st, src_key, move) -> None:
        if kind == "chance":
            phases.add(st.phase)
    return see


def _shift(base, bounds):
    """``base`` (an abstract int) plus a change within ``bounds`` (``(lo, hi)``, None: unknown)."""
    from .values import Interval, add
    if bounds is None:
        return None
    return add(base, Interval(*bounds) if bounds[0] != bounds[1] or bounds[0] is None else bounds[0])


def _join(a, b):
    """The abstract int holding both ``a`` and ``b`` (None: unknown)."""
    from .values import join
    if a is None or b is None:
        return None
    return join([a, b])


def _meet(a, b):
    """The abstract int holding what both ``a`` and ``b`` hold (``a`` when ``b`` is None or when they do not
    meet: the caller keeps the abstraction's value then)."""
    from .values import Interval
    if b is None or not isinstance(a, Interval):
        return a
    blo, bhi = (b.lo, b.hi) if isinstance(b, Interval) else (b, b)
    lo = a.lo if blo is None else (blo if a.lo is None else max(a.lo, blo))
    hi = a.hi if bhi is None else (bhi if a.hi is None else min(a.hi, bhi))
    if lo is not None and hi is not None and lo > hi:
        return a
    return lo if lo is not None and lo == hi else Interval(lo, hi)


def _has_cycle(parents: list) -> bool:
    """Whether the intermediate states of a move (``parents[i]``: the states state ``i`` came from) form a
    cycle (Kahn's algorithm)."""
    n = len(parents)
    indeg = [0] * n
    children: list = [[] for _ in range(n)]
    for child, ps in enumerate(parents):
        for p in ps:
            children[p].append(child)
            indeg[child] += 1
    todo = [i for i in range(n) if indeg[i] == 0]
    done = 0
    while todo:
        i = todo.pop()
        done += 1
        for c in children[i]:
            indeg[c] -= 1
            if indeg[c] == 0:
                todo.append(c)
    return done < n

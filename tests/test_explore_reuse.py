"""The explorer's reuse of work changes nothing it finds.

Deal-end summaries (the scoring of a deal run once per distinct state after the last trick, its trick fields
forgotten when nothing reads them) and the memo of the machine's pure reads are optimisations: the abstract
game graph must be the same without them, state for state and transition for transition (the move, where it
leads, the deal's gains, exactness, the events that replay it).  The reference is the same explorer with both
switched off.  A card-blind exploration served by the precise one (the gains it watches besides), and the
invariants decided together on one exploration keeping all their reads, must give every verdict their own
explorations give.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from atout.compiler import compile_file
from atout.engine import Game
from atout.verify.absint import Abstraction
from atout.verify.checker import Spec, Verifier
from atout.verify.explore import Explorer

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["rules/ecarte.atout", "rules/ecarte_classic.atout", "tests/data/every_construct.atout",
         "tests/data/family_constructs.atout", "tests/data/trump_order.atout", "tests/data/card_blind.atout",
         "tests/data/param_bounds/shrinking_bids.atout", "tests/data/tricks_by_hand.atout"]


def _graph(game, spec, reuse: bool, fast: bool = True, share_runs: bool | None = None):
    V = Verifier(game)
    _, props, track, watch, blur = V._key(spec)
    A = Abstraction(game, track=track, watch=watch, blur=blur, props=props, range_errors=spec.range_errors)
    A.memoize = reuse
    A.fast_paths = fast
    E = Explorer(A, summaries=reuse, share_runs=reuse if share_runs is None else share_runs)
    ex = E.explore()
    edges = sorted((repr(u), repr(v), str(d["move"]), repr(d["end_gains"]), d["exact"], d["sure"],
                    repr(d["events"]), repr(d["perm"]), d["rot"], repr(d.get("ctr")))
                   for u, v, d in ex.graph.edges(data=True))
    return set(ex.states), edges, sorted(set(map(repr, ex.deal_ends))), E.summary_reuses + E.run_reuses


@pytest.mark.parametrize("path", GAMES)
@pytest.mark.parametrize("precise", [True, False], ids=["precise", "card-blind"])
def test_reuse_changes_nothing(path, precise):
    game = Game(compile_file(str(ROOT / path)))
    states, edges, ends, _ = _graph(game, Spec(precise=precise), reuse=True)
    ref_states, ref_edges, ref_ends, none = _graph(game, Spec(precise=precise), reuse=False)
    assert none == 0
    assert states == ref_states
    assert edges == ref_edges
    assert ends == ref_ends


@pytest.mark.parametrize("path", GAMES + ["rules/hearts.atout"])
def test_fast_paths_change_nothing(path):
    """The evaluator's closures that compute a node's common case themselves (one exact seat given to
    partner/side/left/right/tricks, an element of a per-player variable at one exact index, a quantifier over
    the players whose body has one exact value for each) are optimisations: the card-blind graph is the same,
    state for state and edge for edge, when every node goes through the general evaluation instead."""
    game = Game(compile_file(str(ROOT / path)))
    assert _graph(game, Spec(), reuse=True, fast=True) == _graph(game, Spec(), reuse=True, fast=False)


@pytest.mark.parametrize("path", ["rules/ecarte.atout", "tests/data/tricks_by_hand.atout"])
def test_summaries_are_reused(path):
    """Not vacuous: the deal-end summaries are reused in the games above (Écarté's scoring, reached from
    many last tricks; the deal-end tail of tricks_by_hand's 'play', reached from every last card played)."""
    game = Game(compile_file(str(ROOT / path)))
    _, props, track, watch, blur = Verifier(game)._key(Spec(precise=True))
    E = Explorer(Abstraction(game, track=track, watch=watch, blur=blur, props=props))
    E.explore()
    assert E.summary_reuses > 0


@pytest.mark.parametrize("path", GAMES + ["tests/data/partnership_auction.atout", "tests/data/bids_by_hand.atout"])
def test_shared_runs_change_nothing(path):
    """A move's run shared by the nodes that differ only in the variables its action sets before reading
    them (:meth:`Explorer._shared_run`) gives the graph, state for state and edge for edge, that running
    the move from every node gives (the deal-end summaries on in both: without them the gains of this
    file's deal ends are not refined by z3, so that reference would differ for another reason).  Not vacuous
    on tests/data/partnership_auction.atout, whose bid sets 'passes', 'doubled' and 'declarer' first."""
    game = Game(compile_file(str(ROOT / path)))
    states, edges, ends, reuses = _graph(game, Spec(precise=False), reuse=True)
    ref_states, ref_edges, ref_ends, ref_reuses = _graph(game, Spec(precise=False), reuse=True, share_runs=False)
    assert (states, edges, ends) == (ref_states, ref_edges, ref_ends)
    if path.endswith("partnership_auction.atout"):
        assert reuses > ref_reuses


def test_killed_variables_by_hand():
    """What each action sets before anything reads it (by reading the rules): Bridge's bid sets 'passes',
    'doubling' (its guard reads 'level' and 'strain', which it sets too) and, after the ifs that only write
    the named_* cells, 'declarer'; a double sets 'passes' ('doubling' is read by its guard); a pass adds to
    'passes'.  In the small auction, 'declarer' is set in both branches of an if/else."""
    from atout.verify.liveness import killed_on_entry
    for path, want in [("rules/bridge.atout", {"pass": set(), "double": {"passes"}, "redouble": {"passes"},
                                               "bid": {"passes", "doubling", "declarer"}}),
                       ("tests/data/partnership_auction.atout",
                        {"pass": set(), "double": {"passes"}, "bid": {"passes", "doubled", "declarer"}})]:
        g = compile_file(str(ROOT / path))
        got = {a.name: set(killed_on_entry(g, a)) for ph in g.phases for a in ph.actions}
        assert got == want, path


KILLS = """
game k "kills"
players 2
deck {{
  suits clubs hearts
  ranks A K Q
}}
zone stock: hidden, home
zone hand: per player, private
deal var x: int in 0..9 = 0
deal var y: int in 0..9 = 0
deal var z: int in 0..9 = 0
phase deal {{
  do {{
    gather stock
    shuffle stock
    deal 2 from stock to hand starting left(dealer)
    goto act
  }}
}}
phase act {{
  actor dealer
  action go "Go" {guard}{{
{body}
    end deal
  }}
}}
match {{
  first dealer seat(0)
  start deal
  ends when deal_number >= 1
  returns(p) = 0
}}
"""


@pytest.mark.parametrize("guard, body, want", [
    ("", "x = 1\n y = 2", {"x", "y"}),
    ("when x == 0 ", "x = 1\n y = 2", {"y"}),                            # the guard reads x
    ("", "y = x\n x = 1", {"y"}),                                        # x read before it is set
    ("", "x += 1\n y = 2", {"y"}),                                       # += reads x
    ("", "if y == 0 { x = 1 }\n z = 3", {"z"}),                           # no else: x may keep its value
    ("", "if y == 0 { x = 1 } else { x = 2 }", {"x"}),                    # set on every branch
    ("", "if y == 0 { x = 1 } else { z = x }", set()),                   # read on one branch
    ("", "x = 1\n move 1 from stock to hand[actor]\n y = 2", {"x"}),        # not looked at past a draw
])
def test_killed_variables_of_small_actions(tmp_path, guard, body, want):
    from atout.verify.liveness import killed_on_entry
    f = tmp_path / "k.atout"
    f.write_text(KILLS.format(guard=guard, body="    " + body.replace("\n", "\n   ")))
    g = compile_file(str(f))
    act = next(a for ph in g.phases for a in ph.actions if a.name == "go")
    assert set(killed_on_entry(g, act)) == want


def test_reused_outcomes_skip_the_canonical_form(monkeypatch):
    """Not vacuous: an outcome of a reused summary whose node is known (or that needs none: the end of the
    match, a rule error) goes to the graph without being cloned and made canonical again, so the explorer
    makes fewer nodes from states than it adds edges (the graphs are the same, see above)."""
    calls = []
    add = Explorer._add
    monkeypatch.setattr(Explorer, "_add", lambda self, *a: calls.append(1) or add(self, *a))
    game = Game(compile_file(str(ROOT / "rules/ecarte.atout")))
    _graph(game, Spec(precise=True), reuse=True)
    with_reuse = len(calls)
    calls.clear()
    _graph(game, Spec(precise=True), reuse=False)
    assert with_reuse < len(calls)


def _verdicts(path, share: bool):
    from atout.verify.cli import CHECKERS
    game = Game(compile_file(str(ROOT / path)))
    V = Verifier(game)
    V.precise_needed = share
    V.group_properties = share
    out = {}
    for p in game.ir.properties:
        if p.kind in ("deal_bound", "complete"):
            continue
        out[p.name] = CHECKERS[p.kind](V, p).verdict
    shared = V._shared_spec(Spec()) is not None and V._group_spec(Spec(props=("hands_hold_three",))) is not None
    return out, shared, V.work["explorations"]


@pytest.mark.parametrize("path", ["tests/data/card_blind.atout"])
def test_shared_exploration_gives_the_same_verdicts(path):
    shared_verdicts, shared, explored = _verdicts(path, True)
    own_verdicts, _, own_explored = _verdicts(path, False)
    assert shared, "the card-blind exploration (and the invariants) were expected to share explorations here"
    assert shared_verdicts == own_verdicts
    # the invariants read nothing the precise exploration does not keep: their monitors ride on it, and the
    # refuted one's counterexample is a path of it
    assert (explored, own_explored) == (1, 2)
    # the truth, by hand (see the file's comment)
    assert own_verdicts == {"declare_ends": "proved", "deals_end": "proved", "hands_hold_three": "proved",
                            "hands_never_empty": "refuted", "everything_reachable": "proved"}


def _deal_bound_verdict(path: Path) -> str:
    from atout.verify.cli import verify_game
    results, _ = verify_game(Game(compile_file(str(path))), names=["one_point_a_deal"])
    return results[0].verdict


def test_rows_of_a_table_read_one_state():
    """tests/data/pinned_rows.atout: both rows read 'points[eldest] < 2' of the same state, so exactly one
    fires and the bound is proved (it was unknown while each row chose the forgotten value afresh)."""
    assert _deal_bound_verdict(ROOT / "tests/data/pinned_rows.atout") == "proved"


def test_overlapping_rows_are_still_refuted(tmp_path):
    """The same game with rows that truly overlap (both fire while points[eldest] < 2, as in the first deal):
    a deal scores 2, and the verifier shows it."""
    text = (ROOT / "tests/data/pinned_rows.atout").read_text(encoding="utf-8")
    text = text.replace("row high: not (points[eldest] < 2)", "row high: points[eldest] < 3")
    path = tmp_path / "overlap.atout"
    path.write_text(text, encoding="utf-8")
    assert _deal_bound_verdict(path) == "refuted"


def test_a_condition_that_holds_either_way_makes_no_choice():
    """tests/data/exact_guard.atout: 'seen or true' is true whatever 'seen' is, so scoring it keeps the step
    exact and the endless loop is refuted with a replayed lasso (the truth, by hand)."""
    from atout.verify.cli import verify_game
    results, _ = verify_game(Game(compile_file(str(ROOT / "tests/data/exact_guard.atout"))), names=["bid_ends"])
    assert results[0].verdict == "refuted"


def _all_verdicts(path, cover: bool):
    """Every declared property's verdict (the deal bounds and tables aside), the card-blind group's exploration
    serving the requests that keep no property's reads when ``cover`` (as the CLI sets it)."""
    from atout.verify.cli import CHECKERS
    game = Game(compile_file(str(ROOT / path)))
    V = Verifier(game)
    if cover:
        V.run_properties = frozenset(p.name for p in game.ir.properties)
    out = {p.name: CHECKERS[p.kind](V, p).verdict for p in game.ir.properties
           if p.kind not in ("deal_bound", "complete")}
    return out, V.work["explorations"]


def test_the_group_exploration_serves_the_plain_card_blind_requests():
    """Enquire-Within Ecarte: the can_force and conserves properties keep their reads on one card-blind
    exploration, which keeps everything the plain card-blind one keeps and more (every zone it counts, every
    variable it keeps): the terminations and can_end ride on it, with the same verdicts."""
    from atout.verify.checker import _finer
    game = Game(compile_file(str(ROOT / "rules/ecarte_ew.atout")))
    V = Verifier(game)
    assert V._covering_spec(Spec()) is None          # no property of the group is checked: nothing runs it
    V.run_properties = frozenset(p.name for p in game.ir.properties)
    cover = V._covering_spec(Spec())
    assert cover is not None and set(cover.props) == {"elder_can_stop_exchanges", "dealer_can_stop_exchanges",
                                                      "reshuffle_conserves_cards"}
    assert _finer(V._key(cover)[0], V._key(Spec())[0]) and not _finer(V._key(Spec())[0], V._key(cover)[0])
    shared, n_shared = _all_verdicts("rules/ecarte_ew.atout", True)
    own, n_own = _all_verdicts("rules/ecarte_ew.atout", False)
    assert shared == own
    assert (n_shared, n_own) == (2, 3)
    assert own["exchange_terminates"] == "proved" and own["elder_can_stop_exchanges"] == "proved"


def _solo_whist_verdicts(ride: bool):
    from atout.verify.cli import CHECKERS
    game = Game(compile_file(str(ROOT / "rules/solo_whist.atout")))
    V = Verifier(game)
    V.precise_needed = True
    if ride:
        V.run_properties = frozenset(p.name for p in game.ir.properties)
    out = {p.name: CHECKERS[p.kind](V, p).verdict for p in game.ir.properties}
    return out, V.work["explorations"], V._riders()


def test_the_invariants_ride_on_the_precise_exploration():
    """Solo Whist: its invariants keep `acceptor`, `bid` and `proposal`, which the precise exploration (card-
    blind, watching `units`) forgets; `units` is only written in the deal-end block, so keeping those reads
    there adds no state, and one exploration serves all, with the verdicts their own exploration gives
    (every one proved: rules digest §4.5, §5.21, §5.25)."""
    riding, n_riding, riders = _solo_whist_verdicts(True)
    own, n_own, none = _solo_whist_verdicts(False)
    assert set(riders) == {"tricks_sum_to_13", "units_zero_sum", "misere_has_no_trumps",
                           "partners_only_in_proposal"} and none == ()
    assert riding == own and set(own.values()) == {"proved"}
    assert (n_riding, n_own) == (1, 2)


def test_no_riders_where_the_gains_change_during_play():
    """Ecarte's king of trumps scores while the deal is played: the gains would split the states the
    invariants' reads split, so nothing rides on the precise exploration."""
    game = Game(compile_file(str(ROOT / "rules/ecarte.atout")))
    V = Verifier(game)
    V.precise_needed = True
    V.run_properties = frozenset(p.name for p in game.ir.properties)
    assert V._card_blind_group() and V._riders() == ()


@pytest.mark.parametrize("path", ["rules/spades.atout", "rules/euchre.atout", "rules/bridge.atout",
                                  "rules/whist.atout"])
def test_fast_paths_evaluate_as_the_general_case(path):
    """The same closures on the four-player games the graphs above are too large to compare on: in the
    abstract state of every decision of seeded engine matches, each property's expression (for every
    player ``p``) and each guard of the phase's actions (for every value of its parameter) has the same
    values whether the common cases are computed directly or by the general evaluation (partner(),
    side(), bids indexed by seat, quantifiers over the players)."""
    import random

    from atout.verify.alpha import abstract_state
    game = Game(compile_file(str(ROOT / path)))
    fast, ref = Abstraction(game), Abstraction(game)
    ref.fast_paths = False
    g = game.ir
    exprs = [p.expr for p in g.properties if p.expr is not None and p.kind == "invariant"]
    rng = random.Random(7)
    compared = 0
    for _ in range(3):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                st.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            w = abstract_state(fast, st)
            cases = [(e, {"p": p}) for e in exprs for p in range(g.players)]
            for a in g.phase(st.phase).actions:
                param = a.param
                if param is None:
                    cases.append((a.guard, {}))
                elif param.kind == "domain" and param.type.kind == "int":
                    cases += [(a.guard, {param.name: v}) for v in range(param.type.low, param.type.high + 1)]
                elif param.kind == "domain" and param.type.kind in ("player", "suit"):
                    k = g.players if param.type.kind == "player" else len(g.deck.suits)
                    cases += [(a.guard, {param.name: v}) for v in range(k)]
            for e, env in cases:
                assert fast.eval(e, w, dict(env)) == ref.eval(e, w, dict(env)), (path, st.phase, env)
                compared += 1
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
    assert compared > 20


def _monitor_counts(path, share: bool):
    """Each invariant monitor's count of states seen and its violations (kind, source node, move), after the
    card-blind exploration of ``path`` with shared runs on or off."""
    from atout.verify.monitors import InvariantMonitor
    game = Game(compile_file(str(path)))
    V = Verifier(game)
    spec = Spec(precise=False)
    _, props, track, watch, blur = V._key(spec)
    A = Abstraction(game, track=track, watch=watch, blur=blur, props=props, range_errors=spec.range_errors)
    mons = [InvariantMonitor(A, p) for p in game.ir.properties if p.kind == "invariant"]
    E = Explorer(A, monitors=mons, share_runs=share)
    E.explore()
    return [(m.prop.name, m.checked, [(k, repr(src), str(mv)) for k, src, mv in m.settle()]) for m in mons], \
        E.run_reuses


def test_shared_runs_show_the_monitors_every_state(tmp_path):
    """A shared run's states are seen again by the monitors from every node that reuses it; an invariant that
    holds there is counted without being evaluated again (`Explorer._replay_plan`).  The counts and the
    violations are those of running every move from every node: on the partnership auction, with an invariant
    that holds in every state ('level_in_range': 'level' is declared 0..4) and one that a bid of 3 or 4 breaks
    ('low_bids', by the rules: a bid raises 'level' to its value)."""
    src = (ROOT / "tests/data/partnership_auction.atout").read_text()
    path = tmp_path / "auction.atout"
    path.write_text(src + "\nproperty level_in_range: invariant level >= 0 and level <= 4\n"
                          "property low_bids: invariant level <= 2\n")
    got, reuses = _monitor_counts(path, share=True)
    ref, none = _monitor_counts(path, share=False)
    assert reuses > 0 and none == 0
    assert got == ref
    by_name = {name: (checked, bad) for name, checked, bad in got}
    assert by_name["level_in_range"][0] > 0 and by_name["level_in_range"][1] == []
    assert by_name["low_bids"][1], "a bid of 3 breaks 'level <= 2'"

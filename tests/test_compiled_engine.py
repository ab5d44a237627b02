"""The compiled engine (the game as Python made by the exporter's generator, ``Game(ir)``) and the interpreter
(``Game(ir, compiled=False)``, the reference) agree on everything, step by step.

Seeded random matches of every shipped rule file, of each of its options set otherwise, of every game under
tests/data, tests/fixtures, docs/examples and tests/diagnostics/base that compiles, of the rule-error cases of
tests/test_rule_errors.py and of mutants of Écarté (hypothesis, from the compiler's fuzzer: many end in rule
errors) are played in both, and at every step compared: the player to act, the terminal and chance flags, the
history, the legal actions (or the rule error computing them raises), the chance outcomes and their
probabilities, the text of every action id, the returns, the observations and information states of every seat
(every few steps), the full text, and the internals other parts of Atout read (zones, variables, phase, dealer,
actor, the trick, tricks won, revealed zones, the log, the deal log, voids, the choice in progress, the pending
draws, the match variables at the deal's start, the legal actions as the machine describes them, the scoring
hook's calls).  Each applied action raises the same exception with the same message in both or none; an illegal
action is refused with the same message; clones and determinized copies (ISMCTS) go on alike; the verifier's
probes (``_play_card``, ``_trump``, ``_order``, ``_beats``, ``_led_suit``) give the same answers.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atout.compiler import CompileError, compile_file
from atout.engine import Game, IllegalActionError, RuleError
from atout.engine.ismcts import sample_deal
from test_compiler_fuzz import mutants

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rules").glob("*.atout"))
OTHERS = sorted([*(ROOT / "tests" / "data").glob("*.atout"), *(ROOT / "tests" / "fixtures").rglob("*.atout"),
                 *(ROOT / "docs" / "examples").glob("*.atout"), *(ROOT / "tests" / "diagnostics" / "base").glob("*.atout")])


# the match variables at each deal's start and end, which the verifier's deal bounds may read
_DEAL_VALUES = "deal_values" in __import__("inspect").getsource(__import__("atout.engine.state").engine.state.State)


def _outcome(call):
    """What ``call()`` gives: ("ok", value), or the exception's kind and message."""
    try:
        return "ok", call()
    except RuleError as exc:
        return "RuleError", str(exc)
    except IllegalActionError as exc:
        return "IllegalActionError", str(exc)
    except ValueError as exc:
        return "ValueError", str(exc)


def _how(legal: dict) -> dict:
    return {a: (h[0], None if h[1] is None else h[1].name, *h[2:]) for a, h in legal.items()}


def _pending(st) -> list:
    # a random draw's entry ends with its location: a Span in the interpreter, the text in the compiled state
    return [(a, b[:4] if isinstance(b, tuple) else b) for a, b in st.pending]


def internals(st) -> dict:
    """What the rest of Atout reads of an engine state besides its API."""
    sel = st.selecting
    out = {
        "zones": [list(z) for z in st.zones], "vars": dict(st.vars), "var_order": list(st.vars),
        "dealer": st.dealer, "deal_number": st.deal_number, "actor": st.actor, "phase": st.phase,
        "terminal": st.terminal, "trick_cards": list(st.trick_cards), "tricks_won": list(st.tricks_won),
        "trick_leader": st.trick_leader, "trick_number": st.trick_number, "last_winner": st.last_winner,
        "to_play": st.to_play, "revealed": set(st.revealed), "log": (len(st.log), st.log[-8:]),
        "deal_log": (len(st.deal_log), st.deal_log[-2:]),
        "voids": set(st.voids), "deal_open": st.deal_open, "dirty": st.dirty,
        "selecting": None if sel is None else (sel[0].name, *sel[1:]), "pending": _pending(st),
        "deal_start": st._deal_start_returns, "history": list(st.history),
    }
    if _DEAL_VALUES:      # (when the interpreter keeps them too)
        out["deal_values"] = list(st.deal_values)
    return out


def snapshot(st, deep: bool) -> dict:
    """Everything ``st`` shows, exceptions included (as kind and message)."""
    g = st.game
    d = {"current_player": _outcome(st.current_player), "is_terminal": st.is_terminal(),
         "is_chance_node": st.is_chance_node(), "history": list(st.history), "returns": _outcome(st.returns),
         "rewards": _outcome(st.rewards), "legal": _outcome(st.legal_actions), "internals": internals(st),
         "dead_end": _outcome(st.is_dead_end), "player_to_move": _outcome(st.player_to_move)}
    legal = d["legal"][1] if d["legal"][0] == "ok" else []
    if st.is_chance_node():
        d["outcomes"] = st.chance_outcomes()
    else:
        d["chance_outcomes"] = _outcome(st.chance_outcomes)
        if not st.is_terminal():
            d["how"] = _outcome(lambda: _how(st._legal()))
            d["decision_actions"] = _outcome(st.decision_actions)
            for p in range(g.players):
                d[f"legal_for_{p}"] = _outcome(lambda p=p: st.legal_actions(p))
    ids = range(-1, g.num_distinct_actions() + 1) if deep else legal
    d["texts"] = {a: _outcome(lambda a=a: st.action_to_string(a)) for a in ids}
    if deep:
        d["full_log"], d["full_deal_log"] = list(st.log), list(st.deal_log)
        for p in range(g.players):
            d[f"obs_{p}"] = _outcome(lambda p=p: st.observation_string(p))
            d[f"info_{p}"] = _outcome(lambda p=p: st.information_state_string(p))
            d[f"infolog_{p}"] = _outcome(lambda p=p: st.information_state_log(p))
        d["bad_seat"] = _outcome(lambda: st.observation_string(g.players))
        d["str"] = _outcome(lambda: str(st))
    return d


def assert_same(a, b, where: str, deep: bool) -> None:
    sa, sb = snapshot(a, deep), snapshot(b, deep)
    if sa != sb:
        for k in sa:
            if sa[k] != sb.get(k):
                if isinstance(sa[k], dict) and isinstance(sb.get(k), dict):
                    diff = {x: (sa[k].get(x), sb[k].get(x)) for x in set(sa[k]) | set(sb[k])
                            if sa[k].get(x) != sb[k].get(x)}
                    raise AssertionError(f"{where}: {k} differs: {diff}")
                raise AssertionError(f"{where}: {k} differs:\ninterpreter {sa[k]!r}\ncompiled    {sb.get(k)!r}")
        raise AssertionError(f"{where}: differs")


def _probes(a, b, rng, where) -> None:
    """The verifier's and bots' hooks agree: playing a card to the trick (a probe), the trumps, the card order,
    which card beats which, the suit led; an illegal action's refusal; a determinized copy and its play."""
    g = a.game
    legal = a.legal_actions()   # (the caller made sure it raises no rule error)
    ph = g.phases.get(a.phase) if a.phase is not None else None
    if ph is not None and ph.kind == "trick" and a.selecting is None:
        assert _outcome(a._led_suit) == _outcome(b._led_suit), where
        ta, tb = _outcome(lambda: a._trump(ph.trick)), _outcome(lambda: b._trump(ph.trick))
        assert ta == tb, where
        if ta[0] == "ok":
            assert a._order(ta[1]) == b._order(ta[1]), where
            cards = [c for c in legal if c < g.num_cards]
            for x in cards[:3]:
                for y in cards[:3]:
                    assert a._beats(x, y, ta[1]) == b._beats(x, y, ta[1]), where
        cards = [c for c in legal if c < g.num_cards]
        if cards:
            c = cards[rng.randrange(len(cards))]
            pa, pb = a.clone(), b.clone()
            ra, rb = _outcome(lambda: pa._play_card(c)), _outcome(lambda: pb._play_card(c))
            assert ra == rb, where
            # (what follows the card is not run: the compiled code may have led the next trick already)
            for k in ("last_winner", "trick_cards", "tricks_won", "zones", "voids", "revealed"):
                assert getattr(pa, k) == getattr(pb, k), f"{where}: probe {k}"
    # an illegal action, refused alike (and the states are left as they were)
    bad = [x for x in range(-1, g.num_distinct_actions() + 1) if x not in legal]
    for x in ([bad[rng.randrange(len(bad))]] if bad else []) + [True, "3", 2.0]:
        ca, cb = a.clone(), b.clone()
        ra, rb = _outcome(lambda: ca.apply_action(x)), _outcome(lambda: cb.apply_action(x))
        assert ra == rb, f"{where}: illegal {x!r}"
    # a determinized copy for the seat to act, with the same deal of what it does not see
    if not a.is_terminal() and not a.is_chance_node():
        seat = a.current_player()
        if seat >= 0:
            deal = sample_deal(a, seat, random.Random(rng.randrange(1 << 30)))
            da, db = a.determinized(seat, deal), b.determinized(seat, deal)
            sub = random.Random(rng.randrange(1 << 30))
            for k in range(6):
                assert internals(da) == internals(db), f"{where}: determinized, step {k}"
                ra, rb = _outcome(da.legal_actions), _outcome(db.legal_actions)
                assert ra == rb, where
                if da.is_terminal() or ra[0] != "ok" or not ra[1]:
                    break
                x = ra[1][sub.randrange(len(ra[1]))]
                ea, eb = _outcome(lambda: da.apply_action(x)), _outcome(lambda: db.apply_action(x))
                assert ea == eb, f"{where}: determinized, step {k}"
                if ea[0] != "ok":
                    break


def play_both(game_ir, seeds, max_steps: int = 3000, deep_every: int = 3, probe_every: int = 7) -> int:
    """Play seeded random matches of ``game_ir`` in the interpreter and in the compiled engine side by side and
    compare them at every step; returns the number of steps compared."""
    ref, comp = Game(game_ir, compiled=False), Game(game_ir)
    total = 0
    for seed in seeds:
        rng = random.Random(seed)
        ra, rb = _outcome(ref.new_initial_state), _outcome(comp.new_initial_state)
        assert ra[0] == rb[0] and (ra[0] == "ok" or ra == rb), f"{game_ir.name} seed {seed}: start {ra} {rb}"
        if ra[0] != "ok":
            continue
        a, b = ra[1], rb[1]
        scored_a, scored_b = [], []
        a.on_score = lambda t, rows: scored_a.append((t, rows))
        b.on_score = lambda t, rows: scored_b.append((t, rows))
        n = 0
        while True:
            where = f"{game_ir.name} seed {seed} step {n}"
            assert_same(a, b, where, deep=(n % (deep_every if n < 300 else 10 * deep_every) == 0))
            assert scored_a == scored_b, where
            if a.is_terminal() or n >= max_steps:
                break
            if n % 11 == 5:      # a clone plays on exactly like the original
                a, b = a.clone(), b.clone()
            got = _outcome(a.legal_actions)
            if n % probe_every == 3 and got[0] == "ok":
                _probes(a, b, rng, where)
            if got[0] != "ok" or not got[1]:
                break            # a rule error computing the legal actions, or a dead end (compared above)
            legal = got[1]
            action = legal[rng.randrange(len(legal))]
            ea, eb = _outcome(lambda: a.apply_action(action)), _outcome(lambda: b.apply_action(action))
            assert ea == eb, f"{where}: applying {action}: {ea} {eb}"
            n += 1
            if ea[0] != "ok":     # a rule error: the same message; what the states show afterwards too (but after
                # the step limit: the compiled code stops the effects earlier than the interpreter, by its weights)
                assert "steps without a decision" in ea[1] or internals(a) == internals(b), where
                break
        total += n
    return total


def _variants(path: Path):
    """The rule file as written, then each of its options set to other values (a bool flipped, an int to its
    least value and the next, an int without a range to a fifth of its default)."""
    base = compile_file(str(path))
    yield "", base
    for o in base.options:
        if o.type.kind == "bool":
            values = ["false" if o.value else "true"]
        elif o.type.kind == "int" and o.type.low is not None:
            values = [str(v) for v in (o.type.low, o.type.low + 1) if v != o.value and v <= o.type.high]
        elif o.type.kind == "int":
            values = [str(o.value // 5 or 1)]
        else:
            values = []
        for v in values:
            try:
                yield f"{o.name}={v}", compile_file(str(path), {o.name: v})
            except CompileError:
                continue


def _long(path: Path) -> bool:
    return path.stem in ("whist", "solo_whist", "bridge", "hearts", "spades")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_games_and_their_options(path):
    steps = 0
    for label, g in _variants(path):
        matches = 3 if label else (8 if _long(path) else 30)
        steps += play_both(g, range(matches), max_steps=700 if _long(path) else 3000)
    assert steps > 1000


def _compiles(path):
    try:
        return compile_file(str(path))
    except CompileError:
        return None


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_test_games_and_examples(path):
    g = _compiles(path)
    if g is None:
        pytest.skip("does not compile (a diagnostics fixture)")
    play_both(g, range(12), max_steps=600)


def test_rule_error_cases(tmp_path):
    """The rule-error games of tests/test_rule_errors.py: the same error, the same message, at the same step."""
    import test_rule_errors as cases
    for name, kw in sorted(cases.CASES.items()):
        play_both(compile_file(str(cases._write(tmp_path, name, **kw))), range(6))


def test_effects_at_the_step_limit(tmp_path):
    """Effects that run without a rest are stopped by the interpreter's step limit with a rule error naming the
    phase; the compiled engine stops them with the same error, and runs effects just under the limit to their end
    (a loop of automatic phases; a long loop over a range)."""
    text = (ROOT / "tests" / "data" / "tiny_duel.atout").read_text(encoding="utf-8")
    old = "    points[dealer] += 1\n    end deal"
    assert old in text
    for n, body in [(3, "for i in 1..N { points[dealer] += 0 }"), (49_990, "for i in 1..N { points[dealer] += 0 }"),
                    (50_010, "for i in 1..N { points[dealer] += 0 }")]:
        path = tmp_path / f"long_{n}.atout"
        path.write_text(text.replace(old, "    " + body.replace("N", str(n)) + "\n" + old), encoding="utf-8")
        g = compile_file(str(path))
        play_both(g, range(3), deep_every=50, probe_every=1000)
    loop = text.replace(old, "    goto spin")
    loop += "\nphase spin {\n  do {\n    goto spin2\n  }\n}\nphase spin2 {\n  do {\n    goto spin\n  }\n}\n"
    path = tmp_path / "spin.atout"
    path.write_text(loop, encoding="utf-8")
    g = compile_file(str(path))
    steps = play_both(g, range(2), deep_every=50, probe_every=1000)
    a = Game(g, compiled=False).new_initial_state()
    rng = random.Random(0)
    with pytest.raises(RuleError, match="steps without a decision"):
        for _ in range(steps + 10):
            a.apply_action(rng.choice(a.legal_actions()))


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_mutants_agree(data, tmp_path_factory):
    """Mutants of Écarté and Nap (the compiler fuzzer's mutations) that compile: both engines agree on them,
    rule errors included."""
    text = data.draw(mutants())
    folder = tmp_path_factory.mktemp("mutant")
    path = folder / "mutant.atout"
    path.write_text(text, encoding="utf-8")
    try:
        g = compile_file(str(path))
    except (CompileError, RecursionError):
        return
    seed = data.draw(st.integers(0, 10_000))
    play_both(g, [seed], max_steps=400, deep_every=5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1), stem=st.sampled_from([p.stem for p in SHIPPED]))
def test_hypothesis_seeds(seed, stem):
    """Seeds hypothesis picks, on every shipped game."""
    play_both(compile_file(str(ROOT / "rules" / f"{stem}.atout")), [seed], max_steps=500, deep_every=4)


def test_a_construct_the_generator_does_not_translate_is_played_by_the_interpreter():
    """A language construct newer than the code generator (an IR field it does not know, set) does not stop the
    engine: the game is played by the interpreter."""
    import dataclasses

    from atout.compiler import ir
    from atout.engine.state import State
    game = compile_file(str(ROOT / "rules" / "euchre.atout"))
    Later = dataclasses.make_dataclass("Trick", [("shuffle_after", tuple, dataclasses.field(default=()))],
                                       bases=(ir.Trick,), frozen=True)
    play = next(p for p in game.phases if p.trick is not None)
    trick = Later(**{f.name: getattr(play.trick, f.name) for f in dataclasses.fields(ir.Trick)},
                  shuffle_after=(ir.EndDeal(),))
    later = dataclasses.replace(game, phases=tuple(dataclasses.replace(p, trick=trick) if p is play else p
                                                   for p in game.phases))
    g = Game(later)
    st = g.new_initial_state()
    assert type(st) is State and not g.compiled
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])

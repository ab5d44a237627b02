"""Every error path of the compiler, reached on purpose.

tests/diagnostics pins the exact rendering of one sample per error code; this table reaches the other
places where the compiler reports a mistake, each from the valid fixture game ``base/tiny.atout`` with one
edit, and checks the code and the gist of the message, and that the edit was the only thing found wrong.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from atout.cli import main
from atout.compiler import CompileError, compile_file

ROOT = Path(__file__).resolve().parent.parent
TINY = (ROOT / "tests" / "diagnostics" / "base" / "tiny.atout").read_text(encoding="utf-8")

PLAY = '  action play "I play" { goto play }'
PASS_BODY = "    points[dealer] += 1\n    end deal"


def _game(*edits: tuple[str, str]) -> str:
    """TINY with each (old, new) edit applied; old "" appends new at the end."""
    text = TINY
    for old, new in edits:
        if old == "":
            text = text + new + "\n"
        else:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
    return text


def _diagnostics(tmp_path: Path, text: str, name: str = "case.atout"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CompileError) as info:
        compile_file(str(path))
    return info.value.diagnostics


def _stmt(stmt: str) -> tuple[str, str]:
    """An edit putting ``stmt`` in the body of action 'pass'."""
    return PASS_BODY, f"    {stmt}\n{PASS_BODY}"


def _when(guard: str) -> tuple[str, str]:
    """An edit giving action 'play' the guard ``guard``."""
    return PLAY, f'  action play "I play" when {guard} {{ goto play }}'


CASES = {
    # -- declarations -------------------------------------------------------------------------------
    "one player": ([("players 2", "players 1")], "E104", "a game has 2 to 8 players, not 1"),
    "no game line": ([('game tiny "Tiny"', "")], "E101", "missing 'game NAME"),
    "no players": ([("players 2", "")], "E101", "missing 'players N'"),
    "no deck": ([("deck { suits hearts spades  ranks A K Q }", "")], "E101", "missing 'deck"),
    "deck without ranks": ([("  ranks A K Q }", " }")], "E101", "a deck needs 'suits' and 'ranks'"),
    "duplicate suit": ([("suits hearts spades", "suits hearts spades hearts")], "E102", "duplicate suit 'hearts'"),
    "duplicate rank": ([("ranks A K Q", "ranks A K Q K")], "E102", "duplicate rank 'K'"),
    "sides miss a seat": ([("players 2", "players 2 sides {0} {0}")], "E104", "sides must list every seat 0..1"),
    "colour of an unknown suit": ([("ranks A K Q }", "ranks A K Q  colors red { hearts clubs } }")], "E106",
                                  "unknown suit 'clubs' in colour 'red'"),
    "duplicate enum": ([("", "enum e { x }\nenum e { y }")], "E102", "duplicate name 'e'"),
    "duplicate enum value": ([("", "enum e { x y x }")], "E102", "duplicate enum value 'x'"),
    "enum named like a type": ([("", "enum card { x }")], "E102", "'card' is a built-in type"),
    "enum value named like a built-in": ([("", "enum e { x dealer }")], "E102", "'dealer' is a built-in name"),
    "option not constant": ([("", "option o: player = dealer")], "E104", "option 'o' must be a constant"),
    "option outside range": ([("int in 1..9 = 3", "int in 1..9 = 12")], "E114", "option 'target' = 12 is outside"),
    "option of unknown type": ([("", "option o: colour = none")], "E103", "unknown type 'colour'"),
    "zone named trick": ([("", "zone trick: public")], "E116", "'trick' is a built-in zone of trick play"),
    "zone without visibility": ([("", "zone pile: per player")], "E116", "needs a visibility"),
    "zone with two visibilities": ([("zone discards: public", "zone discards: public, hidden")], "E116",
                                   "has two visibilities (public and hidden)"),
    "zone per side": ([("zone discards: public", "zone discards: public, per side")], "E116",
                      "zones are 'per player', not 'per side'"),
    "no home zone": ([("zone stock: hidden, home", "zone stock: hidden")], "E116", "no zone is marked 'home'"),
    "two home zones": ([("zone discards: public", "zone discards: public, home")], "E116",
                       "zone 'discards' is a second 'home' zone"),
    "home zone per player": ([("zone stock: hidden, home", "zone stock: hidden"),
                              ("zone hand: per player, private", "zone hand: per player, private, home")],
                             "E116", "the home zone must be shared"),
    "zone named like a built-in": ([("", "zone winner: public")], "E102", "'winner' is a built-in name"),
    "per side without sides": ([("", "match var gp: int per side = 0")], "E104", "per side, but no sides"),
    "initial value outside range": ([("", "deal var x: int in 1..5 = 9")], "E114", "initial value 9 of 'x'"),
    "variable named players": ([("", "deal var players: int = 0")], "E102", "'players' is a built-in name"),
    "suit named twice": ([("", "option hearts: bool = true")], "E102", "'hearts' is both a suit and another name"),
    # -- phases and actions -------------------------------------------------------------------------------
    "second actor": ([("  actor eldest", "  actor eldest\n  actor dealer")], "E115", "has a second 'actor'"),
    "second trick": ([("phase play {", "phase play {\n  trick { count 1 then { end deal } }")], "E115",
                     "has a second 'trick' block"),
    "second do": ([("    goto declare\n  }\n", "    goto declare\n  }\n  do { goto declare }\n")], "E115",
                  "has a second 'do' block"),
    "do with an actor": ([("phase deal {", "phase deal {\n  actor dealer")], "E115", "mixes 'do' with actions"),
    "trick with an actor": ([("phase play {", "phase play {\n  actor dealer")], "E115",
                            "its actor is the player to play"),
    "empty phase": ([("", "phase idle { }")], "E115", "phase 'idle' has no actor, 'do' block or trick"),
    "duplicate action": ([(PLAY, PLAY + "\n" + PLAY)], "E102", "duplicate action 'play' in phase 'declare'"),
    "two card parameters": ([(PLAY, PLAY + "\n  action a(c: card in hand[actor]) { goto play }"
                                     "\n  action b(n: 1..2 cards from hand[actor] to discards) { goto play }")],
                            "E115", "has two ways to choose a card"),
    "card parameter in a trick phase": ([("    follow suit\n", "    follow suit\n"),
                                         ("  trick {", "  action pick(c: card in hand[actor]) { }\n  trick {")],
                                        "E115", "has two ways to choose a card"),
    "choose range high to low": ([(PLAY, PLAY + "\n  action d(n: 3..1 cards from hand[actor] to discards) "
                                              "{ goto play }")], "E114", "empty range 3..1"),
    "rank-typed domain parameter": ([(PLAY, PLAY + "\n  action d(x: rank) { goto play }")], "E104",
                                    "an action parameter ranges over a suit, a player, an enum or numbers (n: 0..13), "
                                    "not 'rank'"),
    "parameter named like a built-in": ([(PLAY, PLAY + "\n  action d(actor: player) { goto play }")], "E102",
                                        "'actor' is a built-in name"),
    "follow rule twice": ([("    follow suit", "    follow suit, suit")], "E102", "follow rule 'suit' given twice"),
    "trick without count": ([("    count 3\n", "")], "E115", "needs 'count N'"),
    "trick without then": ([("    then {\n      score deal_score\n      end deal\n    }\n", "")], "E115",
                           "needs 'then { ... }'"),
    "trick then falls off": ([("      end deal\n    }\n  }", "    }\n  }")], "E113",
                             "the trick block of 'play' can end without"),
    "do falls off": ([("    goto declare\n  }\n}", "  }\n}")], "E113", "phase 'deal' can end without"),
    "if without else falls off": ([("    points[dealer] += 1\n    end deal",
                                    "    if true { end deal }")], "E113", "action 'pass' can end without"),
    "trick phase without hand": ([("zone hand: per player, private", "zone cards: per player, private"),
                                  ("deal 3 from stock to hand", "deal 3 from stock to cards")], "E115",
                                 "there is no per-player zone 'hand'"),
    "actor inside a block": ([_stmt("actor dealer")], "E110", "'actor' is not allowed inside an effect block"),
    "trick at top level": ([("", "trick { count 1 }")], "E110", "'trick' is only allowed inside a phase"),
    "actor at top level": ([("", "actor dealer")], "E110", "'actor' is only allowed inside a phase"),
    # -- the match and properties -------------------------------------------------------------------------
    "match without start": ([("  start deal\n", "")], "E101", "the match needs 'start PHASE'"),
    "match starts nowhere": ([("  start deal", "  start dela")], "E109", "unknown phase 'dela'"),
    "match without ends when": ([("  ends when any(p in players: points[p] >= target)\n", "")], "E101",
                                "the match needs 'ends when CONDITION'"),
    "match without returns": ([("  returns(p) = points[p]\n", "")], "E101", "the match needs 'returns(p)"),
    "duplicate property": ([("", "property scoring_complete: complete deal_score")], "E102",
                           "duplicate property 'scoring_complete'"),
    "property over an unknown phase": ([("", "property t: terminates {plya}")], "E109", "unknown phase 'plya'"),
    "property reaching an unknown phase": ([("", "property c: can_end {declare} reach ply")], "E109",
                                           "unknown phase 'ply'"),
    "property reaching its own phase": ([("", "property c: can_force eldest {declare, play} reach play")],
                                        "E119", "reaches 'play', one of its own phases"),
    "complete an unknown table": ([("complete deal_score", "complete scores")], "E117",
                                  "unknown scoring table 'scores'"),
    "deal bound without gain": ([("", "property b: deal_bound total(points) <= 3")], "E119",
                                "does not use gain()"),
    "gain of a constant": ([("", "property b: deal_bound gain(3) <= 3")], "E119", "gain() takes a match variable"),
    "gain with two arguments": ([("", "property b: deal_bound gain(points[p], 1) <= 3")], "E107",
                                "'gain' takes 1 argument, given 2"),
    "can_force a non-player": ([("", "property f: can_force true {declare} reach play")], "E104",
                               "expected player, found bool"),
    # -- expressions -----------------------------------------------------------------------------------------
    "range high to low": ([_when("tricks(eldest) in 2..1")], "E114", "empty range 2..1"),
    "card of suit none": ([_when("has(hand[actor], K of none)")], "E106", "a card needs a suit, not 'none'"),
    "players as a value": ([_when("players == 2")], "E104", "'players' is only a quantifier domain"),
    "no such seat": ([("  start deal", "  first dealer 2\n  start deal")], "E104", "no seat 2: seats are 0..1"),
    "index a constant": ([_when("target[0] == 1")], "E112", "cannot index a value of type int"),
    "call a variable": ([_when("points(1) == 1")], "E108", "unknown function 'points'"),
    "zone argument not a zone": ([_when("size(3) > 0")], "E104", "type mismatch in 'size': expected a zone"),
    "total of a number": ([_when("total(3) > 0")], "E104", "expected a per-player or per-side variable"),
    "ord of a number": ([_when("ord(3) > 0")], "E104", "expected an enum value"),
    "compare a per-player variable": ([_when("points == 1")], "E112", "'points' has one value per player"),
    "compare a zone": ([_when("stock == stock")], "E104", "cannot compare zone with zone"),
    "compare a player with a suit": ([_when("dealer == hearts")], "E104", "type mismatch in '=='"),
    "order suits": ([_when("hearts < spades")], "E104", "'<' does not order values of type suit"),
    "quantify over a number": ([_when("any(x in target: true)")], "E104", "ranges over 'players' or a zone"),
    "quantify over hands": ([_when("any(c in hand: true)")], "E112", "'hand' is one zone per player"),
    "quantifier body not bool": ([_when("all(p in players: tricks(p))")], "E104", "the body of 'all'"),
    "not of an int": ([_when("not target")], "E104", "type mismatch in 'not'"),
    "arithmetic on a bool": ([_when("-true == 1")], "E104", "type mismatch in '-'"),
    "if with mixed branches": ([_when("(if true then 1 else hearts) == 1")], "E104", "type mismatch in 'else'"),
    "set of mixed items": ([_when("dealer in {eldest, hearts}")], "E104", "type mismatch in a set item"),
    "unknown name": ([_when("trumps == none")], "E103", "unknown name 'trumps'"),
    "unknown rank in a comparison": ([_when("rank(top(stock)) == Z")], "E105", "unknown rank 'Z'"),
    "per-player index by a card": ([_when("points[top(stock)] > 0")], "E104", "type mismatch in an index"),
    "per-side index by a bool": ([("players 2", "players 2 sides {0} {1}"),
                                  ("", "match var gp: int per side = 0"), _when("gp[true] > 0")], "E104",
                                 "expected a player or a side number, found bool"),
    # -- statements ----------------------------------------------------------------------------------------------
    "move from a number": ([_stmt("move 1 from target to stock")], "E104", "type mismatch in 'move'"),
    "move a bool count": ([_stmt("move true from stock to discards")], "E104", "a card count"),
    "deal to an unknown zone": ([("to hand starting", "to hnd starting")], "E103", "unknown zone 'hnd'"),
    "deal to a shared zone": ([("to hand starting", "to discards starting")], "E112",
                              "'deal' needs a per-player zone"),
    "deal starting with a number": ([("starting eldest", "starting true")], "E104", "'starting'"),
    "shuffle the hands": ([("    shuffle stock", "    shuffle hand")], "E112", "'hand' is one zone per player"),
    "reveal a number": ([_stmt("reveal 3")], "E104", "type mismatch in 'reveal'"),
    "gather a number": ([("    gather stock", "    gather 3")], "E104", "type mismatch in 'gather'"),
    "assign a built-in": ([_stmt("winner = eldest")], "E111", "cannot assign to 'winner'"),
    "assign eldest": ([_stmt("eldest = dealer")], "E111", "cannot assign to 'eldest'"),
    "add to the dealer": ([_stmt("dealer += 1")], "E111", "the dealer is set with 'dealer = PLAYER'"),
    "dealer set to a number": ([_stmt("dealer = true")], "E104", "the dealer"),
    "assign a zone": ([_stmt("stock = 1")], "E111", "cannot assign to 'stock'"),
    "assign an unknown variable": ([_stmt("pionts[dealer] = 1")], "E103", "unknown variable 'pionts'"),
    "index a single value": ([("", "deal var x: int = 0"), _stmt("x[0] = 1")], "E112",
                             "'x' is a single value and takes no index"),
    "add to a bool": ([("", "deal var b: bool = false"), _stmt("b += 1")], "E104", "'+=' needs an int variable"),
    "assign a per-player variable whole": ([("", "deal var x: int = 0"), _stmt("x = points")], "E112",
                                           "'points' has one value per player"),
    "if on an int": ([_stmt("if target { end deal }")], "E104", "the condition of 'if'"),
    "score an unknown table": ([_stmt("score deal_scor")], "E117", "unknown scoring table 'deal_scor'"),
    # -- the constructs of the trick-taking family (issue 9) --------------------------------------------
    "case without else": ([_stmt("points[dealer] += case target { 1: 2, 3: 4 }")], "E104",
                          "'case' without 'else': an int in 1..9 can take any value"),
    "case key of another type": ([_stmt("points[dealer] += case target { hearts: 1, else: 0 }")], "E104",
                                 "a 'case' key"),
    "case values of two types": ([_stmt("points[dealer] += case target { 1: 2, else: hearts }")], "E104",
                                 "the 'else' of 'case'"),
    "random added": ([("", "deal var x: int = 0"), _stmt("x += random {1, 2}")], "E104",
                     "'+= random' is not allowed"),
    "random range not constant": ([("", "deal var x: int = 0"), _stmt("x = random 1..size(stock)")], "E104",
                                  "must be constants"),
    "random range empty": ([("", "deal var x: int = 0"), _stmt("x = random 3..1")], "E114", "empty range 3..1"),
    "random weight zero": ([("", "deal var x: int = 0"), _stmt("x = random {1: 0, 2}")], "E114",
                           "a weight of 1 or more"),
    "random value of another type": ([("", "deal var x: int = 0"), _stmt("x = random {1, hearts}")], "E104",
                                     "a 'random' outcome"),
    "random range into a suit": ([("", "deal var x: suit = none"), _stmt("x = random 0..1")], "E104",
                                 "'random LO..HI' gives an int"),
    "for over sides without sides": ([_stmt("for s in sides { points[dealer] += 0 }")], "E104",
                                     "needs sides: this game has none"),
    "for over a range of bools": ([_stmt("for i in 1..true { points[dealer] += 0 }")], "E104",
                                  "the end of a 'for' range"),
    "for over a number": ([_stmt("for c in 3 { points[dealer] += 0 }")], "E104", "expected a zone"),
    "int parameter without a known range": ([(PLAY, PLAY + "\n  action d(n: 0..deal_number) { goto play }")],
                                            "E104", "a bound of an int parameter must have a known range"),
    "int parameter without a known range, reported once": ([(PLAY, PLAY + "\n  action d(n: 0..deal_number) when "
                                                                  "n > 0 { goto play }")], "E104",
                                                           "a bound of an int parameter must have a known range"),
    "rank range empty (K..Q: ranks rise from the weakest)": (
        [_stmt("if rank(top(stock)) in A..K { points[dealer] += 0 }")], "E114",
        "empty range A..K (ranks go from the weakest to the strongest)"),
    "int parameter empty": ([(PLAY, PLAY + "\n  action d(n: 3..1) { goto play }")], "E114", "empty range 3..1"),
    "int parameter too wide": ([(PLAY, PLAY + "\n  action d(n: 0..5000) { goto play }")], "E114",
                               "an int parameter of 5001 values"),
    "def with a wrong arity": ([("", "def f(a: int): int = a + 1"), _stmt("points[dealer] += f(1, 2)")], "E107",
                               "'f' takes 1 argument, given 2"),
    "def with an argument of another type": ([("", "def f(a: int): int = a + 1"),
                                              _stmt("points[dealer] += f(hearts)")], "E104", "argument 'a' of 'f'"),
    "def whose body has another type": ([("", "def f(a: int): bool = a + 1")], "E104", "the body of 'f'"),
    "def named like a function": ([("", "def size(a: int): int = a")], "E102", "'size' is a built-in function"),
    "def twice": ([("", "def f(a: int): int = a\ndef f(b: int): int = b")], "E102", "duplicate name 'f'"),
    "def parameter twice": ([("", "def f(a: int, a: int): int = a")], "E102", "parameter 'a' of 'f' given twice"),
    "def through another, recursive": ([("", "def f(a: int): int = g(a)\ndef g(a: int): int = f(a)")], "E121",
                                       "calls itself (f -> g -> f)"),
    "lead rule not a condition": ([("    follow suit\n", "    follow suit\n    lead c when 3\n")], "E104",
                                  "a 'lead' rule"),
    "card rule on an unknown name": ([("    follow suit\n", "    follow suit\n    card c when suit(d) == hearts\n")],
                                     "E103", "unknown name 'd'"),
    "card rule variable named like a built-in": ([("    follow suit\n", "    follow suit\n    card actor when true\n")],
                                                 "E102", "'actor' is a built-in name"),
    "option not constant, reported once": ([("", "option z: int = deal_number + 1"), _stmt("points[dealer] += z"),
                                            _when("z > 1")], "E104", "option 'z' must be a constant"),
    "range bound not constant": ([("", "deal var y: int in 0..(size(stock)) = 0")], "E104",
                                 "a range bound must be a constant"),
    "range bound from an option": ([("", "deal var y: int in target..2 = 2")], "E114", "empty range 3..2"),
    "move a bool": ([_stmt("move true from stock to discards")], "E104", "a card count (or a card)"),
    "holder of a player": ([_when("holder(dealer) == dealer")], "E104", "'holder'"),
    "clockwise of a card": ([_when("clockwise(A of hearts, 1) == dealer")], "E104", "'clockwise'"),
    "variable named like an enum value": ([("", "enum mood { calm angry }\ndeal var calm: int = 0")], "E102",
                                          "duplicate name 'calm'"),
    "end deal in a row": ([("row won: tricks(eldest) >= 2 => { points[eldest] += 1 }",
                            "row won: tricks(eldest) >= 2 => { end deal }")], "E110", "a scoring row only scores"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_path(name, tmp_path):
    edits, code, message = CASES[name]
    diags = _diagnostics(tmp_path, _game(*edits))
    assert [(d.code, message in d.message) for d in diags] == [(code, True)], \
        [(d.code, d.message) for d in diags]
    assert diags[0].span.line >= 1 and diags[0].span.col >= 1


# -- variants -------------------------------------------------------------------------------------------
VARIANT_CASES = {
    "redeclare without override": ("option target: int in 1..9 = 5", "E102",
                                   "duplicate name 'target': the base game already has this option"),
    "override a missing phase": ("override phase wait { actor dealer  action a { goto play } }", "E118",
                                 "cannot override phase 'wait'"),
    "override a missing action": ("phase declare { override action fold { goto play } }", "E118",
                                  "cannot override action 'fold': phase 'declare' has none"),
    "add an existing action": ("phase declare { action pass { goto play } }", "E102",
                               "duplicate action 'pass' in phase 'declare'"),
    "remove a missing option": ("remove option targte", "E118", "cannot remove option 'targte'"),
    "remove a missing action": ("remove action fold", "E118", "cannot remove action 'fold'"),
    "remove a missing row": ("remove row drawn", "E118", "cannot remove row 'drawn'"),
}


@pytest.mark.parametrize("name", sorted(VARIANT_CASES))
def test_variant_error_path(name, tmp_path):
    body, code, message = VARIANT_CASES[name]
    (tmp_path / "base.atout").write_text(TINY, encoding="utf-8")
    diags = _diagnostics(tmp_path, f'extends "base.atout"\n{body}\n', "variant.atout")
    assert [(d.code, message in d.message) for d in diags] == [(code, True)], \
        [(d.code, d.message) for d in diags]
    assert diags[0].span.path.endswith("variant.atout") and diags[0].span.line == 2


def test_a_valid_variant_changes_what_it_says(tmp_path, capsys, monkeypatch):
    (tmp_path / "base.atout").write_text(TINY, encoding="utf-8")
    (tmp_path / "variant.atout").write_text(
        'extends "base.atout"\ngame tiny2 "Tiny 2"\noverride option target: int in 1..9 = 5\n'
        'phase declare {\n  override action pass "I fold" { end deal }\n  action wait { goto declare }\n}\n'
        'remove row lost\nremove property scoring_complete\n', encoding="utf-8")
    game = compile_file(str(tmp_path / "variant.atout"))
    assert game.name == "tiny2" and game.options[0].value == 5
    assert [a.name for a in game.phase("declare").actions] == ["play", "pass", "wait"]
    assert game.phase("declare").actions[1].label == "I fold"
    assert [r.name for r in game.table("deal_score").rows] == ["won"] and game.properties == ()
    monkeypatch.chdir(tmp_path)
    assert main(["check", "variant.atout"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == ["variant of base.atout (tiny):", '  ~ game: tiny "Tiny" -> tiny2 "Tiny 2"',
                       "  ~ option target: 3 -> 5",
                       "  ~ phase declare: action pass changed, action wait added",
                       "  ~ table deal_score: row lost removed", "  - removed property scoring_complete"]



def test_a_variant_marks_what_changed_without_being_written(tmp_path, capsys, monkeypatch):
    """A newcomer's four-player Oh Hell: `players 4` changes every rule that reads player_count, and the summary
    listed them as if the variant had overridden them; those it did not write are marked."""
    (tmp_path / "base.atout").write_text(TINY + "property few: invariant size(stock) < 3 * player_count\n"
                                         "property many: invariant size(stock) >= 0\n", encoding="utf-8")
    (tmp_path / "variant.atout").write_text(
        'extends "base.atout"\ngame tiny3 "Tiny 3"\nplayers 3\n'
        'override property many: invariant size(stock) >= 0 or player_count == 3\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "variant.atout"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  ~ property few changed (not written in the variant: it reads what changed above)" in out
    assert "  ~ property many changed" in out

def test_extends_chain_too_deep(tmp_path):
    (tmp_path / "v0.atout").write_text(TINY, encoding="utf-8")
    for i in range(1, 11):
        (tmp_path / f"v{i}.atout").write_text(f'extends "v{i - 1}.atout"\n', encoding="utf-8")
    assert compile_file(str(tmp_path / "v8.atout")).name == "tiny"  # eight levels are fine
    diags = _diagnostics(tmp_path, 'extends "v10.atout"\n', "v11.atout")
    assert [d.code for d in diags] == ["E118"] and "deeper than 8 files" in diags[0].message


def test_unexpected_end_of_file_without_an_open_brace(tmp_path):
    diags = _diagnostics(tmp_path, 'game g "G"\nplayers')
    assert [(d.code, d.message, d.hint) for d in diags] == [("E003", "unexpected end of file", "expected a number")]


def test_compile_text_reports_remove_outside_a_variant():
    from atout.compiler import compile_text
    with pytest.raises(CompileError) as info:
        compile_text(TINY + "remove row lost\n", "t.atout")
    assert [d.code for d in info.value.diagnostics] == ["E118"]

"""Variants: ``extends``, ``override``, ``remove`` and ``atout check``'s report of what a variant
changes; the rules of rules/ecarte_classic.atout and rules/ecarte_ew.atout (digest §1)."""
from __future__ import annotations

from pathlib import Path

import pytest

from arranged_deals import card, deal_hands, feed

import atout
from atout.cli import main
from atout.compiler import CompileError

ROOT = Path(__file__).resolve().parents[2]
ECARTE = ROOT / "rules" / "ecarte.atout"
CLASSIC = ROOT / "rules" / "ecarte_classic.atout"
EW = ROOT / "rules" / "ecarte_ew.atout"


def write_variant(tmp_path, body: str) -> Path:
    path = tmp_path / "variant.atout"
    path.write_text(f'extends "{ECARTE}"\ngame variant "a variant"\n{body}', encoding="utf-8")
    return path


@pytest.mark.parametrize("body, line, col, what", [
    ("override option no_such_option: int = 1\n", 3, 17, "cannot override option 'no_such_option'"),
    ("override table no_such_table { }\n", 3, 16, "cannot override table 'no_such_table'"),
    ("override property no_such_prop: reachable\n", 3, 19, "cannot override property 'no_such_prop'"),
    ("override phase no_such_phase { actor eldest action a { goto play } }\n", 3, 16,
     "cannot override phase 'no_such_phase'"),
    ("phase declare {\n  override action proposee \"x\" { goto answer }\n}\n", 4, 19,
     "cannot override action 'proposee'"),
    ("remove option no_such_option\n", 3, 1, "cannot remove option 'no_such_option'"),
    ("remove row no_such_row\n", 3, 1, "cannot remove row 'no_such_row'"),
])
def test_overriding_or_removing_what_does_not_exist_is_an_error(tmp_path, body, line, col, what):
    path = write_variant(tmp_path, body)
    with pytest.raises(CompileError) as err:
        atout.compile_file(str(path))
    (d,) = err.value.diagnostics
    assert d.code == "E118" and what in d.message
    assert (d.span.path, d.span.line, d.span.col) == (str(path), line, col)


def test_misspelt_override_gets_a_hint(tmp_path):
    path = write_variant(tmp_path, "phase declare {\n  override action proposee \"x\" { goto answer }\n}\n")
    with pytest.raises(CompileError) as err:
        atout.compile_file(str(path))
    assert err.value.diagnostics[0].hint == "did you mean 'propose'?"


def test_redeclaring_without_override_is_a_duplicate(tmp_path):
    path = write_variant(tmp_path, "option target: int in 1..99 = 7\n")
    with pytest.raises(CompileError) as err:
        atout.compile_file(str(path))
    assert [d.code for d in err.value.diagnostics] == ["E102"]


def test_cli_check_reports_a_bad_variant_with_exit_status_2(tmp_path, capsys):
    path = write_variant(tmp_path, "override option no_such_option: int = 1\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:17: error[E118]" in err


def test_check_shows_what_a_variant_changes(capsys):
    assert main(["check", str(CLASSIC)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("variant of ") and out[1].endswith("(ecarte):")
    assert sorted(out[2:]) == sorted([
        '  ~ game: ecarte "Écarté (the source text)" -> ecarte_classic "Écarté (classic rules: PPC, BGA, CAV)"',
        "  - removed option reshuffle_current_discards",
        "  - removed option reshuffle_turnup",
        "  ~ phase declare: action propose changed",
        "  ~ phase elder_exchange: action discard changed",
        "  ~ phase dealer_exchange: action discard changed",
        "  + added property thirty_two_cards",
    ])
    assert main(["check", str(EW)]) == 0
    out = capsys.readouterr().out
    assert "  ~ option must_trump: true -> false" in out
    assert ("  ~ table deal_score: row refused_3_4 changed, row refused_vole changed, row refused_lost changed, "
            "row exchanged_eldest_3_4 changed, row exchanged_eldest_vole changed, row exchanged_dealer_3_4 changed, "
            "row exchanged_dealer_vole changed\n") in out


# -- Écarté, classic and EW: behaviour ---------------------------------------------------------
# The deal (rules/ecarte.atout): `deal first_packet, 5 - first_packet ... starting eldest` with
# first_packet 3: eldest 3, dealer 3, eldest 2, dealer 2; then the turn-up.  Dealer: seat 0.
def deal(game, eldest_hand: str, dealer_hand: str, turn_up: str):
    state = game.new_initial_state()
    e = [card(game, c) for c in eldest_hand.split()]
    d = [card(game, c) for c in dealer_hand.split()]
    deal_hands(state, {1: e, 0: d}, [3, 2], 1)
    feed(state, [card(game, turn_up)])
    return state


def say(state, text):
    found = [a for a in state.legal_actions() if state.action_to_string(a) == text]
    assert len(found) == 1, (text, [state.action_to_string(a) for a in state.legal_actions()])
    state.apply_action(found[0])


def exchange(state, game, elder_cards: int, dealer_cards: int):
    """One proposal, accepted; each player discards his first cards and draws (lowest cards)."""
    say(state, "I propose")
    say(state, "Please")
    for who, k in ((1, elder_cards), (0, dealer_cards)):
        hand = list(state.zones[game.zone_base["hand"] + who])
        for c in hand[:k]:
            state.apply_action(c)
        if state.current_player() == who and k < 5:
            state.apply_action(game.done_action)
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])


@pytest.fixture(scope="module")
def classic():
    return atout.load(str(CLASSIC))


@pytest.fixture(scope="module")
def ew():
    return atout.load(str(EW))


def hands(game):
    return deal(game, "KS QS JS AS 10S", "9S 8S 7S KH QH", "7D")


def test_classic_two_full_exchanges_leave_one_card_and_no_proposal(classic):
    """Digest §1 (classic): discards are dead; 21 drawable cards: two exchanges of 5 + 5 leave 1,
    and with too few cards left no proposal may be made (BGA): the non-dealer must play (PPC)."""
    g = classic
    state = hands(g)
    stock = g.zone_base["stock"]
    assert len(state.zones[stock]) == 21
    exchange(state, g, 5, 5)
    assert len(state.zones[stock]) == 11
    exchange(state, g, 5, 5)
    assert len(state.zones[stock]) == 1
    assert len(state.zones[g.zone_base["discards"]]) == 20      # dead, never back in the stock
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["I play"]


def test_classic_nobody_draws_more_than_the_stock_holds(classic):
    """Digest §1: with 6 cards left the non-dealer may discard at most 5 and must leave the dealer
    one; with 3 left he may take at most 2; the dealer at most what remains."""
    g = classic
    state = hands(g)
    exchange(state, g, 5, 5)
    exchange(state, g, 5, 3)                  # stock: 21 - 10 - 8 = 3
    assert len(state.zones[g.zone_base["stock"]]) == 3
    say(state, "I propose")
    say(state, "Please")
    hand = list(state.zones[g.zone_base["hand"] + 1])
    state.apply_action(hand[0])
    state.apply_action(hand[1])
    # two chosen: the most the non-dealer may take with 3 in the stock; the draw follows at once
    assert state.is_chance_node()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert len(state.zones[g.zone_base["stock"]]) == 1
    dealer_hand = list(state.zones[g.zone_base["hand"] + 0])
    state.apply_action(dealer_hand[0])        # the dealer takes the last card: his maximum
    assert state.is_chance_node()


def refused_after_an_exchange(game):
    """One exchange, then a second proposal that the dealer refuses; the non-dealer takes three
    tricks with K Q J of trumps (hearts) and the dealer two with K Q of spades.

    Non-dealer (seat 1): K♥ Q♥ J♥ 7♠ 8♠; dealer (seat 0): K♠ Q♠ 7♣ 8♣ 9♣; turn-up 10♥.
    Exchange: the non-dealer discards 8♠ and draws 9♠, the dealer discards 9♣ and draws 10♣."""
    state = deal(game, "KH QH JH 7S 8S", "KS QS 7C 8C 9C", "10H")
    say(state, "I propose")
    say(state, "Please")
    state.apply_action(card(game, "8S"))
    state.apply_action(game.done_action)
    feed(state, [card(game, "9S")])
    state.apply_action(card(game, "9C"))
    state.apply_action(game.done_action)
    feed(state, [card(game, "10C")])
    say(state, "I propose")
    say(state, "We play")
    plays = ["KH", "7C", "QH", "8C", "JH", "10C",   # the non-dealer leads and wins three trumps
             "7S", "QS",                           # the dealer must beat the 7♠: he wins
             "KS", "9S"]                           # and leads the K♠
    for c in plays:
        state.apply_action(card(game, c))
    return state


def test_classic_refusal_after_an_exchange_is_not_penalised(classic):
    """CAV, BEN: only the refusal of the first proposal carries the two-point penalty.  After an
    exchange the non-dealer's three tricks score 1 (source §6), not 2."""
    state = refused_after_an_exchange(classic)
    assert state.deal_log[0]["vars"]["exchanges"] == 1
    assert state.deal_log[0]["points"] == [0, 1]


def test_ew_refusal_after_an_exchange_is_penalised(ew):
    """EW: any refusal is penalised: the dealer refused and took only two tricks, so the
    non-dealer scores 2."""
    state = refused_after_an_exchange(ew)
    assert state.deal_log[0]["vars"]["exchanges"] == 1
    assert state.deal_log[0]["points"] == [0, 2]


def test_ew_dealer_may_stand_pat_and_follower_need_not_trump(ew):
    """EW: the dealer may take no card; AC, EW: a player void in the suit led need not trump."""
    g = ew
    state = deal(g, "KS QS JS AS 10S", "7H 8H 9H 7C 8C", "10H")   # trumps: hearts
    say(state, "I propose")
    say(state, "Please")
    state.apply_action(card(g, "10S"))
    state.apply_action(g.done_action)
    feed(state, [card(g, "9S")])
    assert g.done_action in state.legal_actions()        # the dealer may stand pat
    state.apply_action(g.done_action)
    say(state, "I play")
    state.apply_action(card(g, "KS"))                    # the dealer is void in spades, holds trumps
    legal = set(state.legal_actions()) & set(range(g.num_cards))
    assert legal == {card(g, c) for c in ("7H", "8H", "9H", "7C", "8C")}


def test_source_rules_make_the_void_follower_trump():
    """The base game (source §2): void in the suit led, he must trump."""
    g = atout.load(str(ECARTE))
    state = deal(g, "KS QS JS AS 10S", "7H 8H 9H 7C 8C", "10H")
    say(state, "I play")
    state.apply_action(card(g, "KS"))
    legal = set(state.legal_actions()) & set(range(g.num_cards))
    assert legal == {card(g, c) for c in ("7H", "8H", "9H")}

"""rules/whist.atout against the rules digest §2 and its checkable facts 16-18 (LW).

Every deal here is arranged (see arranged_deals.py): seats 0 and 2 are one side, 1 and 3 the other; the
dealer's last card is a club, so clubs are trumps.  Expected values are worked out by hand from
the rules, never read from the program.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from arranged_deals import card, cards, deal_hands, layout, play_tricks

import atout

ROOT = Path(__file__).resolve().parents[2]
WHIST = ROOT / "rules" / "whist.atout"
DEAL_PACKETS = [1] * 13           # rules/whist.atout: thirteen packets of one card, from eldest

# Club layouts (honours spread over the groups: A 10 9 8 / K 7 6 5 / Q 4 3 2, leftover J).
# Each gives the three club group winners and who holds the J of clubs, which wins the last trick.
CLUBS_TWO_TWO = ([0, 1, 2], 3)     # honours 2-2: A, Q to side 0; K, J to side 1.  Club tricks 2-2.
CLUBS_FOUR_0 = ([0, 0, 2], 2)      # side 0 holds A K Q J; it wins the 4 club tricks
CLUBS_FOUR_1 = ([1, 1, 3], 3)      # side 1 holds A K Q J
CLUBS_THREE_0 = ([0, 0, 2], 1)     # side 0 holds A K Q, side 1 the J: club tricks 3-1


@pytest.fixture(scope="module")
def game():
    return atout.load(str(WHIST))


def plain_tops(side0_wins: int, side0_seat=0, side1_seat=1) -> dict[str, list[int]]:
    """Winners of the nine plain-suit groups (spades, hearts, diamonds): side 0 wins the first
    ``side0_wins`` of them."""
    seats = [side0_seat] * side0_wins + [side1_seat] * (9 - side0_wins)
    return {"S": seats[0:3], "H": seats[3:6], "D": seats[6:9]}


def play_deal(game, state, side0_plain: int, clubs, dealer: int, plain_seats=(0, 1)) -> None:
    """Deal and play one arranged deal; ``clubs`` is one of the CLUBS_* layouts."""
    assert state.dealer == dealer
    club_tops, j_holder = clubs
    tops = plain_tops(side0_plain, *plain_seats)
    tops["C"] = club_tops
    rest = [p for p in range(4) if p != j_holder]
    leftovers = {"C": j_holder, "S": rest[0], "H": rest[1], "D": rest[2]}
    hands, tricks = layout(game, tops, leftovers, "C", dealer, honours_suit="C")
    deal_hands(state, hands, DEAL_PACKETS, (dealer + 1) % 4)
    play_tricks(state, tricks)


def test_the_deal_the_turn_up_and_the_lead(game):
    """Source §13, digest §2: 13 cards each; the dealer's last card fixes trumps and stays face up
    until trick 1 is complete; eldest (the dealer's left) leads; follow suit if able."""
    state = game.new_initial_state()
    tops = plain_tops(5)
    tops["C"] = [0, 1, 2]
    hands, _ = layout(game, tops, {"C": 3, "S": 0, "H": 1, "D": 2}, "C", 0, honours_suit="C")
    turn_up = hands[0][-1]
    deal_hands(state, hands, DEAL_PACKETS, 1)
    for p in range(4):
        assert len(state.zones[game.zone_base["hand"] + p]) == 13
    assert state.vars["turnup"] == turn_up
    assert state.vars["trumps"] == game.deck.suits.index("clubs")
    assert turn_up in state.zones[game.zone_base["hand"] + 0]      # the turn-up is the dealer's card
    assert state.current_player() == 1                              # eldest leads
    for p in range(4):                                              # everybody sees the turn-up
        assert f"turnup={game.card_str(turn_up)}" in state.observation_string(p)
    state.apply_action(next(c for c in hands[1] if game.suit_of[c] == 0))   # seat 1 leads a spade
    for _ in range(3):
        # every other seat holds spades, so every legal card is a spade (follow suit)
        legal = state.legal_actions()
        assert legal and all(game.suit_of[c] == 0 for c in legal)
        hand = state.zones[game.zone_base["hand"] + state.current_player()]
        assert set(legal) == {c for c in hand if game.suit_of[c] == 0}
        state.apply_action(legal[0])
    assert state.vars["turnup"] == -1                               # taken into the dealer's hand


def test_dealer_may_play_the_turn_up_to_the_first_trick(game):
    """LW: the turned-up card is the dealer's; he may play it to trick 1."""
    state = game.new_initial_state()
    # Eldest (seat 1) is void in spades... simplest: seat 1 leads a club and the dealer (seat 0)
    # holds the turned-up club.
    tops = plain_tops(5)
    tops["C"] = [0, 1, 2]
    hands, _ = layout(game, tops, {"C": 3, "S": 0, "H": 1, "D": 2}, "C", 0, honours_suit="C")
    turn_up = hands[0][-1]
    deal_hands(state, hands, DEAL_PACKETS, 1)
    lead = next(c for c in hands[1] if game.suit_of[c] == 3)
    state.apply_action(lead)
    for _ in range(2):
        state.apply_action(next(c for c in state.legal_actions() if game.suit_of[c] == 3))
    assert state.current_player() == 0
    assert turn_up in state.legal_actions()


@pytest.mark.parametrize("side0_plain, tricks_0, tricks_1, points", [
    (3, 5, 8, [0, 2]),
    (4, 6, 7, [0, 1]),
    (5, 7, 6, [1, 0]),     # fact 16: 7 tricks score 1
    (6, 8, 5, [2, 0]),     # fact 16: 8 tricks score 2
    (7, 9, 4, [3, 0]),
])
def test_each_trick_over_six_scores_one(game, side0_plain, tricks_0, tricks_1, points):
    """Digest fact 16 (LW): 7 tricks score 1 for the side, 8 score 2, 6 or fewer nothing.
    Honours are split 2-2 here, so they score nothing (fact 17)."""
    assert 2 + side0_plain == tricks_0 and 13 - tricks_0 == tricks_1   # the layout, by hand
    state = game.new_initial_state()
    play_deal(game, state, side0_plain, CLUBS_TWO_TWO, dealer=0)
    assert state.vars["points"] == points
    assert state.vars["scored"] == points
    assert state.vars["games"] == [0, 0]
    assert state.dealer == 1                                         # the deal passes to the left


@pytest.mark.parametrize("clubs, side0_plain, points", [
    (CLUBS_FOUR_0, 2, [4, 1]),    # side 0: 4 club tricks + 2 = 6 (nothing); side 1 takes 7 (1); four honours: 4
    (CLUBS_THREE_0, 3, [2, 1]),   # side 0: 3 + 3 = 6; side 1: 1 + 6 = 7 (1); three honours: 2
    (CLUBS_TWO_TWO, 4, [0, 1]),   # two honours each: nothing
])
def test_honours(game, clubs, side0_plain, points):
    """Digest fact 17 (LW): four honours held by one side score 4, three score 2, two nothing."""
    state = game.new_initial_state()
    play_deal(game, state, side0_plain, clubs, dealer=0)
    assert state.vars["points"] == points


def test_honours_option_off(game, tmp_path):
    """`honours = false` (a variant overriding the option): four honours score nothing."""
    variant = tmp_path / "whist_no_honours.atout"
    variant.write_text(f'extends "{WHIST}"\noverride option honours: bool = false\n', encoding="utf-8")
    g = atout.load(str(variant))
    state = g.new_initial_state()
    play_deal(g, state, 2, CLUBS_FOUR_0, dealer=0)
    assert state.vars["points"] == [0, 1]


def test_no_honours_at_four(game):
    """Digest fact 17: a side at 4 points (before the deal) scores no honours."""
    state = game.new_initial_state()
    play_deal(game, state, 2, CLUBS_FOUR_0, dealer=0)     # as above: [4, 1]
    assert state.vars["points"] == [4, 1]
    play_deal(game, state, 2, CLUBS_FOUR_0, dealer=1)     # again 6-7 and four honours to side 0
    assert state.vars["points"] == [4, 2]                 # side 1 +1 for tricks; side 0 at 4: no honours


def test_tricks_score_before_honours(game):
    """Digest §2 (LW): tricks are scored before honours; honours do not count once the tricks
    have won the game.  Side 1 at 4 takes 7 tricks (game) while side 0 holds four honours."""
    state = game.new_initial_state()
    play_deal(game, state, 1, CLUBS_TWO_TWO, dealer=0)    # side 0: 2 + 1 = 3 tricks; side 1: 10 -> 4 points
    assert state.vars["points"] == [0, 4]
    play_deal(game, state, 2, CLUBS_FOUR_0, dealer=1)     # side 0: 4 + 2 = 6; side 1: 7 -> game
    # Side 1 wins the game against 0 (a treble); side 0's honours were never scored.
    assert state.vars["rubber"] == [0, 3]
    assert state.vars["games"] == [0, 1]
    assert state.vars["points"] == [0, 0]


def test_rubber_two_games_to_nil(game):
    """Digest fact 18: a game won against 0 is worth 3; the rubber adds 2 and ends after two games
    if one side wins both.  Side 0 takes all 13 tricks twice (7 points each time: game)."""
    state = game.new_initial_state()
    play_deal(game, state, 9, CLUBS_FOUR_0, dealer=0)
    assert state.vars["rubber"] == [3, 0] and state.vars["games"] == [1, 0]
    assert state.vars["points"] == [0, 0]          # points beyond game do not carry over
    assert not state.is_terminal()
    play_deal(game, state, 9, CLUBS_FOUR_0, dealer=1)
    assert state.is_terminal()
    assert state.vars["rubber"] == [3 + 3 + 2, 0]
    assert state.returns() == [8, -8, 8, -8]
    assert len(state.deal_log) == 2                # two deals: the match ended with the second game


def test_game_values_double_and_single(game):
    """Digest fact 18: against 1-2 points a game is worth 2, against 3-4 worth 1."""
    state = game.new_initial_state()
    play_deal(game, state, 3, CLUBS_TWO_TWO, dealer=0)    # side 1: 2 + 6 = 8 tricks -> 2 points
    assert state.vars["points"] == [0, 2]
    play_deal(game, state, 9, CLUBS_FOUR_0, dealer=1)     # side 0: 13 tricks, game against 2: double
    assert state.vars["rubber"] == [2, 0] and state.vars["points"] == [0, 0]
    play_deal(game, state, 1, CLUBS_TWO_TWO, dealer=2)    # side 1: 2 + 8 = 10 tricks -> 4 points
    assert state.vars["points"] == [0, 4]
    assert not state.is_terminal()
    play_deal(game, state, 9, CLUBS_FOUR_0, dealer=3)     # side 0 again: game against 4, single, + rubber
    assert state.is_terminal()
    assert state.vars["rubber"] == [2 + 1 + 2, 0]
    assert state.returns() == [5, -5, 5, -5]


def test_rubber_goes_to_a_third_game(game):
    """Digest fact 18: the rubber is the best of three: at one game all, a third is played."""
    state = game.new_initial_state()
    play_deal(game, state, 9, CLUBS_FOUR_0, dealer=0)                          # side 0: game, 3
    play_deal(game, state, 0, CLUBS_FOUR_1, dealer=1, plain_seats=(0, 3))      # side 1: 13 tricks, 3
    assert state.vars["games"] == [1, 1] and state.vars["rubber"] == [3, 3]
    assert not state.is_terminal()
    play_deal(game, state, 9, CLUBS_FOUR_0, dealer=2)                          # side 0: 3 + 2
    assert state.is_terminal()
    assert state.vars["rubber"] == [8, 3]
    assert state.returns() == [5, -5, 5, -5]


def test_game_length_option(game, tmp_path):
    """game_points = 10 (long whist): 7 points are not yet a game."""
    variant = tmp_path / "long_whist.atout"
    variant.write_text(f'extends "{WHIST}"\noverride option game_points: int in 5..10 = 10\n', encoding="utf-8")
    g = atout.load(str(variant))
    state = g.new_initial_state()
    play_deal(g, state, 9, CLUBS_FOUR_0, dealer=0)     # 13 tricks: 7 points; honours (4) then count: 11
    assert state.vars["games"] == [1, 0]
    # 7 by tricks, then four honours (side 0 stood at 0 < 9): 11 >= 10, game against 0: a treble.
    assert state.vars["rubber"] == [3, 0]
    assert state.vars["scored"] == [11, 0]


def test_cards_helper_matches_the_deck(game):
    """The test helper's card names follow the deck (a guard for the other tests)."""
    assert game.card_str(card(game, "AS")) == "A♠"
    assert [game.card_str(c) for c in cards(game, "10H 2C QD")] == ["10♥", "2♣", "Q♦"]

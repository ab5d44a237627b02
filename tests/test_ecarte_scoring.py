"""The scoring of Écarté (rules digest §1, table of points per deal; §5 facts 3, 8-11, 14, 15) on
arranged deals whose points are worked out by hand below.  Expected values come from the rules,
never from the program's output.

All deals below turn up 7♥, so hearts are trumps, and the king of trumps (K♥) stays in the stock
unless a test gives it to someone.  ``HANDS[k]`` are five-card hands with which eldest (the
non-dealer) takes exactly ``k`` tricks when the cards are played in the order ``PLAYS[k]``; each
play was checked by hand against the follow rules (follow suit, beat the card led if able, trump
if void; source §2):

k=5  eldest Q♥ J♥ A♥ 10♥ 9♥, dealer no trump: eldest leads five trumps, the dealer (void in
     hearts, no trump) throws anything: eldest 5.
k=4  eldest leads Q♥ J♥ A♥ 10♥ (dealer discards diamonds and K♣): 4; then 7♠, dealer must
     follow and beat with K♠: dealer 1.
k=3  three trump leads win; 7♠ loses to K♠; the dealer leads K♦, eldest follows with 7♦: 3 - 2.
k=2  two trump leads win; 7♠ / K♠, K♦ / 7♦, K♣ / 7♣: 2 - 3.
k=1  Q♥ wins; 7♠ loses to Q♠ (the dealer must beat it: K♠ or Q♠); K♠ / 8♠, K♦ / 7♦, K♣ / 7♣:
     1 - 4.
k=0  nobody holds a trump; the dealer holds the king of each suit eldest leads or follows: 0 - 5.
"""
from __future__ import annotations

import pytest

from atout import IllegalActionError

from conftest import act, arrange_deal, card, cards, eldest_of, exchange, hand, named, play_cards, points

TURNUP = "7♥"
HANDS = {
    5: ("Q♥ J♥ A♥ 10♥ 9♥", "K♠ Q♠ K♦ Q♦ K♣"),
    4: ("Q♥ J♥ A♥ 10♥ 7♠", "K♠ Q♦ K♦ J♦ K♣"),
    3: ("Q♥ J♥ A♥ 7♠ 7♦", "K♠ K♦ Q♣ J♣ A♣"),
    2: ("Q♥ J♥ 7♠ 7♦ 7♣", "K♠ K♦ K♣ Q♣ J♣"),
    1: ("Q♥ 7♠ 7♦ 7♣ 8♠", "K♠ K♦ K♣ Q♠ Q♣"),
    0: ("7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣"),
}
PLAYS = {
    5: "Q♥ K♠ J♥ Q♠ A♥ K♦ 10♥ Q♦ 9♥ K♣",
    4: "Q♥ Q♦ J♥ J♦ A♥ K♦ 10♥ K♣ 7♠ K♠",
    3: "Q♥ Q♣ J♥ J♣ A♥ A♣ 7♠ K♠ K♦ 7♦",
    2: "Q♥ Q♣ J♥ J♣ 7♠ K♠ K♦ 7♦ K♣ 7♣",
    1: "Q♥ Q♣ 7♠ Q♠ K♠ 8♠ K♦ 7♦ K♣ 7♣",
    0: "7♠ K♠ Q♠ 8♠ K♦ 7♦ Q♦ 8♦ K♣ 7♣",
}

# Points of the deal as [eldest, dealer], by the digest §1 table, for eldest's k tricks:
# played without proposing: eldest 3-4 -> eldest 1, 5 -> eldest 2, 0-2 -> dealer 2 (source §4)
PLAYED = {5: [2, 0], 4: [1, 0], 3: [1, 0], 2: [0, 2], 1: [0, 2], 0: [0, 2]}
# the dealer refused the proposal: dealer (5-k tricks) 3-4 -> dealer 1, 5 -> dealer 2, 0-2 -> eldest 2 (§5)
REFUSED = {5: [2, 0], 4: [2, 0], 3: [2, 0], 2: [0, 1], 1: [0, 1], 0: [0, 2]}
# after at least one exchange: whoever takes 3-4 scores 1, 5 scores 2 (§6)
EXCHANGED = {5: [2, 0], 4: [1, 0], 3: [1, 0], 2: [0, 1], 1: [0, 1], 0: [0, 2]}


def deal_points(state, before: list[int]) -> list[int]:
    """The points of the deal just played, as [eldest, dealer] of that deal (dealer was seat 0)."""
    after = points(state)
    gain = [a - b for a, b in zip(after, before)]
    return [gain[1], gain[0]]


def start(ecarte):
    s = ecarte.new_initial_state()
    assert s.dealer == 0 and eldest_of(s) == 1
    return s


def finish_deal(state, k: int) -> None:
    play_cards(state, PLAYS[k])
    assert state.deal_number == 1, "the deal should be over after five tricks"
    assert state.tricks_won == [0, 0]  # a new deal has begun


@pytest.mark.parametrize("k", range(6))
def test_non_dealer_plays_without_proposing(ecarte, k):
    """Fact 8: eldest 3-4 tricks -> 1, 5 -> 2, 0-2 -> the dealer 2."""
    s = start(ecarte)
    arrange_deal(s, *HANDS[k], TURNUP)
    before = points(s)
    act(s, "play")
    assert s.phase == "play" and s.current_player() == 1
    finish_deal(s, k)
    assert deal_points(s, before) == PLAYED[k]
    assert s.deal_log[-1]["points"] == [PLAYED[k][1], PLAYED[k][0]]


@pytest.mark.parametrize("k", range(6))
def test_dealer_refuses_the_proposal(ecarte, k):
    """Fact 9: the dealer (5 - k tricks) 3-4 -> dealer 1, 5 -> dealer 2, 0-2 -> eldest 2."""
    s = start(ecarte)
    arrange_deal(s, *HANDS[k], TURNUP)
    before = points(s)
    act(s, "propose")
    assert s.current_player() == 0  # the dealer answers
    act(s, "refuse")
    assert s.current_player() == 1  # on refusal the non-dealer leads
    finish_deal(s, k)
    assert deal_points(s, before) == REFUSED[k]


def _exchange_into(s, k: int) -> None:
    """Propose, accept, and exchange one card each so that the hands become HANDS[k]."""
    e_final, d_final = (h.split() for h in HANDS[k])
    arrange_deal(s, " ".join(e_final[1:] + ["9♠"]), " ".join(d_final[1:] + ["10♠"]), TURNUP)
    act(s, "propose", "accept")
    assert s.phase == "elder_exchange" and s.current_player() == 1
    exchange(s, "9♠", e_final[0])
    assert s.phase == "dealer_exchange" and s.current_player() == 0
    exchange(s, "10♠", d_final[0])
    g = s.game
    assert hand(s, 1) == set(cards(g, HANDS[k][0])) and hand(s, 0) == set(cards(g, HANDS[k][1]))
    assert s.phase == "declare" and s.vars["exchanges"] == 1


@pytest.mark.parametrize("k", range(6))
def test_after_an_exchange_whoever_takes_three_scores(ecarte, k):
    """Fact 10: after an exchange, 3-4 tricks score 1 and 5 score 2, for whoever took them."""
    s = start(ecarte)
    _exchange_into(s, k)
    before = points(s)
    act(s, "play")
    finish_deal(s, k)
    assert deal_points(s, before) == EXCHANGED[k]


@pytest.mark.parametrize("k", [3, 4])
def test_refusing_a_later_proposal_is_not_penalised(ecarte, k):
    """CAV and BEN penalise only the refusal of the *first* proposal (digest §1): after one exchange a
    refusal leaves the exchange scoring.  Eldest takes k=3..4 tricks: 1 point, not the 2 of a refusal."""
    s = start(ecarte)
    _exchange_into(s, k)
    before = points(s)
    act(s, "propose", "refuse")
    finish_deal(s, k)
    assert deal_points(s, before) == [1, 0]


def test_turned_up_king_scores_for_the_dealer_before_play(ecarte):
    """Fact 3 / digest §1: a turned-up king gives the dealer 1 at once (PPC, EB); the deal's tricks
    still score: eldest plays and takes five -> 2; the deal awards 3 in all (the source's cap)."""
    s = start(ecarte)
    arrange_deal(s, *HANDS[5], "K♥")
    assert points(s) == [1, 0]  # before any decision
    assert s.phase == "declare" and s.vars["trumps"] == s.game.deck.suits.index("hearts")
    act(s, "play")
    play_cards(s, PLAYS[5])
    assert points(s) == [1, 2]


def test_a_turned_up_seven_scores_nothing(ecarte):
    s = start(ecarte)
    arrange_deal(s, *HANDS[5], TURNUP)
    assert points(s) == [0, 0]


def test_king_announced_before_the_first_card_scores(ecarte):
    """Fact 11: eldest holds K♥ (the king of trumps) and announces it before leading: +1; with five
    trump tricks played without proposing +2: 3 in the deal."""
    s = start(ecarte)
    arrange_deal(s, "K♥ Q♥ J♥ A♥ 10♥", "K♠ Q♠ K♦ Q♦ K♣", TURNUP)
    g = s.game
    act(s, "play")
    assert named(g, "announce_king") in s.legal_actions()
    act(s, "announce_king")
    assert points(s) == [0, 1]
    assert named(g, "announce_king") not in s.legal_actions()  # only once
    play_cards(s, "K♥ K♠ Q♥ Q♠ J♥ K♦ A♥ Q♦ 10♥ K♣")
    assert points(s) == [0, 3]


def test_king_not_announced_before_the_first_card_is_lost(ecarte):
    """Fact 11: once the holder has played his first card the announcement is no longer legal."""
    s = start(ecarte)
    arrange_deal(s, "K♥ Q♥ J♥ A♥ 10♥", "K♠ Q♠ K♦ Q♦ K♣", TURNUP)
    g = s.game
    announce = named(g, "announce_king")
    act(s, "play")
    play_cards(s, "Q♥")
    # the dealer to play: he does not hold the king
    assert announce not in s.legal_actions()
    play_cards(s, "K♠")
    assert s.current_player() == 1 and s.trick_number == 2
    assert announce not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="announce the king of trumps"):
        s.apply_action(announce)
    for c in "K♥ Q♠ J♥ K♦ A♥ Q♦ 10♥ K♣".split():
        assert announce not in s.legal_actions()
        play_cards(s, c)
    assert points(s) == [0, 2]  # the vole only


def test_dealer_announces_the_king_before_his_first_card(ecarte):
    """The dealer holding the king of trumps may announce it when he is to play to trick 1, not after."""
    s = start(ecarte)
    # dealer holds K♥; eldest leads 7♠, the dealer announces, then must follow with K♠ or Q♠.
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♥ K♠ Q♠ K♦ K♣", TURNUP)
    g = s.game
    announce = named(g, "announce_king")
    act(s, "play")
    assert announce not in s.legal_actions()  # eldest does not hold it
    play_cards(s, "7♠")
    assert s.current_player() == 0 and announce in s.legal_actions()
    act(s, "announce_king")
    assert points(s) == [1, 0]
    play_cards(s, "K♠")
    assert announce not in s.legal_actions()


def test_dealer_who_played_his_first_card_cannot_announce(ecarte):
    s = start(ecarte)
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♥ K♠ Q♠ K♦ K♣", TURNUP)
    announce = named(s.game, "announce_king")
    act(s, "play")
    play_cards(s, "7♠ K♠")
    assert s.current_player() == 0  # he won trick 1 and leads trick 2
    assert announce not in s.legal_actions()
    # dealer takes all five: eldest played without proposing and took 0 -> dealer 2, no king point
    play_cards(s, "K♥ 8♠ Q♠ 7♦ K♦ 8♦ K♣ 7♣")
    assert points(s) == [2, 0]


# -- the match --------------------------------------------------------------------------------------

def _deal(s, k: int, declare: str = "play") -> None:
    """One deal with HANDS[k] (eldest takes k tricks) played without proposing."""
    arrange_deal(s, *HANDS[k], TURNUP)
    act(s, declare)
    play_cards(s, PLAYS[k])


def _to_zero_four(ecarte):
    """Deal 1 (dealer 0): eldest seat 1 takes the vole: [0, 2].  Deal 2 (dealer 1): eldest seat 0 takes
    no trick: the dealer seat 1 scores 2: [0, 4]."""
    s = start(ecarte)
    _deal(s, 5)
    assert points(s) == [0, 2] and s.dealer == 1  # the deal alternates (source §10)
    _deal(s, 0)
    assert points(s) == [0, 4] and s.dealer == 0
    assert not s.is_terminal() and s.is_chance_node()  # 4 points do not end the match
    return s


def test_match_ends_as_soon_as_a_player_reaches_five(ecarte):
    """Fact 14: seat 1 at 4 takes a vole as eldest in deal 3 -> 6 >= 5: the match is over, no deal 4."""
    s = _to_zero_four(ecarte)
    _deal(s, 5)
    assert points(s) == [0, 6]
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]
    assert [d["points"] for d in s.deal_log] == [[0, 2], [0, 2], [0, 2]]  # per seat
    assert [d["tricks"] for d in s.deal_log] == [[0, 5], [0, 5], [0, 5]]
    assert all(d["complete"] for d in s.deal_log)  # the last deal was played to its end
    assert s.legal_actions() == []
    with pytest.raises(IllegalActionError):
        s.apply_action(0)


def test_match_does_not_end_below_five(ecarte):
    s = _to_zero_four(ecarte)
    _deal(s, 0)  # deal 3, dealer seat 0 scores 2: [2, 4]
    assert points(s) == [2, 4] and not s.is_terminal()


def test_turned_up_king_at_four_wins_without_play(ecarte):
    """Fact 3: at 4 points the dealer turning up a king wins at once, before any decision."""
    s = _to_zero_four(ecarte)
    _deal(s, 0)  # deal 3 (dealer 0): [2, 4]
    assert s.dealer == 1
    arrange_deal(s, *HANDS[3], "K♥")
    assert points(s) == [2, 5]
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]
    assert s.deal_log[-1]["points"] == [0, 1] and s.deal_log[-1]["complete"] is False  # ended before play


def test_king_announced_at_four_ends_the_match_before_play(ecarte):
    """Fact 14 with fact 11: seat 1 at 4 announces the king of trumps: 5, the match ends at once."""
    s = _to_zero_four(ecarte)
    assert s.dealer == 0 and eldest_of(s) == 1
    arrange_deal(s, "K♥ Q♥ J♥ A♥ 10♥", "K♠ Q♠ K♦ Q♦ K♣", TURNUP)
    act(s, "play", "announce_king")
    assert points(s) == [0, 5]
    assert s.is_terminal() and s.returns() == [-1.0, 1.0]
    assert len(hand(s, 1)) == 5  # no card was played


def test_match_with_first_packet_two(variant):
    """CAV law 8: packets of 2 then 3: the deal gives eldest 2, the dealer 2, eldest 3, the dealer 3."""
    g = variant("override option first_packet: int in 2..3 = 2")
    s = g.new_initial_state()
    e, d = cards(g, HANDS[5][0]), cards(g, HANDS[5][1])
    order = e[:2] + d[:2] + e[2:] + d[2:]
    for c in order:
        s.apply_action(c)
    s.apply_action(card(g, TURNUP))
    assert hand(s, 1) == set(e) and hand(s, 0) == set(d)

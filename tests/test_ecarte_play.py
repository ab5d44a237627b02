"""Play of Écarté on arranged deals: who leads, the follow rules, the trick winner, the exchange order
and the deal (rules digest §1 and §5 facts 1, 2, 4, 5, 6, 7, 12).

Hearts are trumps in every deal here (turn-up 7♥) unless said otherwise.  The first deal of a
match has dealer seat 0 and eldest seat 1.
"""
from __future__ import annotations

import random

import pytest

from atout import IllegalActionError

from conftest import act, arrange_deal, card, cards, chance, exchange, hand, named, play_cards, zone

RANKS_HIGH_FIRST = "K Q J A 10 9 8 7".split()  # digest §1: in every suit, trumps too


def new(game, eldest: str, dealer: str, turnup: str = "7♥", declare: str = "play"):
    s = game.new_initial_state()
    arrange_deal(s, eldest, dealer, turnup)
    act(s, declare)
    return s


def legal_cards(s) -> set[int]:
    return {a for a in s.legal_actions() if a < s.game.num_cards}


# -- fact 5: who leads ------------------------------------------------------------------------------

@pytest.mark.parametrize("declare", [("play",), ("propose", "refuse")])
def test_non_dealer_leads_trick_one(ecarte, declare):
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    act(s, *declare)
    assert s.phase == "play" and s.current_player() == 1
    assert legal_cards(s) == hand(s, 1)  # the leader may lead any card


def test_non_dealer_leads_after_an_exchange_in_the_second_deal(ecarte):
    """Deal 2 has dealer seat 1, so seat 0 (the non-dealer) leads."""
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    act(s, "play")
    play_cards(s, "7♠ K♠ Q♠ 8♠ K♦ 7♦ Q♦ 8♦ K♣ 7♣")
    assert s.dealer == 1
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    assert s.current_player() == 0  # eldest declares
    act(s, "propose", "accept")
    exchange(s, "7♠", "9♠")
    exchange(s, "K♠", "10♠")
    act(s, "play")
    assert s.current_player() == 0


def test_winner_of_each_trick_leads_the_next(ecarte):
    """Eldest (1) wins tricks 1-2 with trumps and loses trick 3 to K♠, so the dealer (0) leads tricks
    4 and 5; in trick 5 eldest, void in clubs, must trump A♣ with A♥ and wins: 3 tricks to 2, and
    eldest, who played without proposing, scores 1 (source §4)."""
    s = new(ecarte, "Q♥ J♥ A♥ 7♠ 7♦", "K♠ K♦ Q♣ J♣ A♣")
    leaders, winners = [], []
    for pair in ["Q♥ Q♣", "J♥ J♣", "7♠ K♠", "K♦ 7♦"]:
        leaders.append(s.current_player())
        play_cards(s, pair)
        winners.append(s.last_winner)
    assert leaders == [1, 1, 1, 0] and winners == [1, 1, 0, 0]
    assert s.current_player() == 0 and s.tricks_won == [2, 2]
    assert legal_cards(s) == {card(ecarte, "A♣")}
    play_cards(s, "A♣")
    assert legal_cards(s) == {card(ecarte, "A♥")}  # void in clubs: must trump
    play_cards(s, "A♥")
    assert s.deal_log[-1]["points"] == [0, 1]  # eldest took 3 (the fifth with A♥)


# -- facts 6, 7: the follow rules (source §2; must follow, must head, must trump) ------------------------

def test_holding_a_higher_card_of_the_suit_led_he_must_play_one(ecarte):
    """Fact 6: 10♠ led; the dealer holds A♠ and J♠ (higher: J > A > 10), 8♠ (lower), a trump and a
    diamond: only A♠ and J♠ are legal."""
    s = new(ecarte, "10♠ 7♦ 8♦ 7♣ 8♣", "A♠ J♠ 8♠ Q♥ K♦")
    play_cards(s, "10♠")
    assert s.current_player() == 0
    assert legal_cards(s) == set(cards(ecarte, "A♠ J♠"))
    for bad in ("8♠", "Q♥", "K♦"):
        with pytest.raises(IllegalActionError, match=bad):
            s.apply_action(card(ecarte, bad))


def test_holding_only_lower_cards_of_the_suit_led_he_must_follow(ecarte):
    """K♠ led; the dealer holds 8♠ 7♠ and trumps: he must follow suit (any spade), not trump."""
    s = new(ecarte, "K♠ 7♦ 8♦ 7♣ 8♣", "8♠ 7♠ Q♥ J♥ K♦")
    play_cards(s, "K♠")
    assert legal_cards(s) == set(cards(ecarte, "8♠ 7♠"))


def test_void_in_the_suit_led_with_a_trump_he_must_trump(ecarte):
    """Fact 7: 7♠ led; the dealer has no spade and holds Q♥ 8♥: every legal card is a trump."""
    s = new(ecarte, "7♠ 7♦ 8♦ 7♣ 8♣", "Q♥ 8♥ K♦ K♣ A♣")
    play_cards(s, "7♠")
    assert legal_cards(s) == set(cards(ecarte, "Q♥ 8♥"))


def test_void_without_trumps_any_card(ecarte):
    s = new(ecarte, "7♠ 7♦ 8♦ 7♣ 8♣", "K♦ Q♦ K♣ A♣ 9♣")
    play_cards(s, "7♠")
    assert legal_cards(s) == hand(s, 0)


def test_trump_led_must_be_followed_and_headed(ecarte):
    """A trump led is a suit led: follow with a higher trump if able (J♥ beats A♥; 9♥ does not)."""
    s = new(ecarte, "A♥ 7♦ 8♦ 7♣ 8♣", "J♥ 9♥ K♦ K♣ K♠")
    play_cards(s, "A♥")
    assert legal_cards(s) == {card(ecarte, "J♥")}


def test_follow_rules_on_random_states(ecarte):
    """Facts 6 and 7 at every second card of many random deals: recompute the allowed set by the
    rules and compare."""
    rng = random.Random(11)
    g = ecarte
    order = {r: i for i, r in enumerate(RANKS_HIGH_FIRST)}  # 0 is the highest
    suit = g.suit_of

    def rank_pos(c):
        return order[g.deck.ranks[c % g.nranks]]
    checked = 0
    for _ in range(60):
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.phase == "play" and not s.is_chance_node() and len(s.trick_cards) == 1:
                led = s.trick_cards[0][1]
                trump = s.vars["trumps"]
                h = hand(s, s.current_player())
                same = {c for c in h if suit[c] == suit[led]}
                higher = {c for c in same if rank_pos(c) < rank_pos(led)}
                trumps = {c for c in h if suit[c] == trump}
                if higher:
                    expected = higher
                elif same:
                    expected = same
                elif trumps:
                    expected = trumps
                else:
                    expected = h
                assert legal_cards(s) == expected, str(s)
                checked += 1
            s.apply_action(rng.choice(s.legal_actions()))
    assert checked > 500


def test_without_must_trump_a_void_player_may_discard(variant):
    """Option must_trump = false (AC, EW do not require trumping): void in the suit led, holding a
    trump, the second player may play any card; he still must follow suit and head when he can."""
    g = variant("override option must_trump: bool = false")
    s = new(g, "7♠ 7♦ 8♦ 7♣ 8♣", "Q♥ 8♥ K♦ K♣ A♣")
    play_cards(s, "7♠")
    assert legal_cards(s) == hand(s, 0)
    s = new(g, "10♠ 7♦ 8♦ 7♣ 8♣", "A♠ J♠ 8♠ Q♥ K♦")
    play_cards(s, "10♠")
    assert legal_cards(s) == set(cards(g, "A♠ J♠"))


def test_without_must_head_any_card_of_the_suit_led(variant):
    g = variant("override option must_head: bool = false")
    s = new(g, "10♠ 7♦ 8♦ 7♣ 8♣", "A♠ J♠ 8♠ Q♥ K♦")
    play_cards(s, "10♠")
    assert legal_cards(s) == set(cards(g, "A♠ J♠ 8♠"))


# -- fact 1: the trick winner ---------------------------------------------------------------------------

def _trick_winner(game, lead: str, follow: str, dealer_rest: str) -> int:
    """Eldest (seat 1) leads ``lead`` and the dealer (seat 0) plays ``follow``; returns the winner."""
    plain_fill = [c for c in "7♦ 8♦ 9♦ 10♦".split()]
    s = new(game, " ".join([lead] + plain_fill), " ".join([follow] + dealer_rest.split()))
    play_cards(s, f"{lead} {follow}")
    return s.last_winner


@pytest.mark.parametrize("suit", ["♠", "♥"])
def test_rank_order_in_every_suit_trumps_too(ecarte, suit):
    """Fact 1: K > Q > J > A > 10 > 9 > 8 > 7 in plain suits and in trumps: for every pair of ranks,
    eldest leads the one and the dealer follows with the other; the higher one wins."""
    fill = "K♣ Q♣ J♣ A♣"
    for i, hi in enumerate(RANKS_HIGH_FIRST):
        for lo in RANKS_HIGH_FIRST[i + 1:]:
            if "7" in (hi, lo) and suit == "♥":
                continue  # 7♥ is the turn-up here
            assert _trick_winner(ecarte, lo + suit, hi + suit, fill) == 0, f"{hi}{suit} should beat {lo}{suit}"
            # the dealer holding only the lower card follows with it and loses
            assert _trick_winner(ecarte, hi + suit, lo + suit, fill) == 1, f"{hi}{suit} should beat {lo}{suit}"


def test_any_trump_beats_any_plain_card(ecarte):
    """Fact 1: the lowest trump (8♥; 7♥ is turned up) beats the king of a plain suit."""
    assert _trick_winner(ecarte, "K♠", "8♥", "K♣ Q♣ J♣ A♣") == 0


def test_a_card_of_another_plain_suit_never_wins(ecarte):
    """Void without trumps, the dealer's K♣ does not beat the 7♠ led."""
    assert _trick_winner(ecarte, "7♠", "K♣", "Q♣ J♣ A♣ 10♣") == 1


# -- fact 12: the exchange -------------------------------------------------------------------------------

def test_exchange_order_and_counts(ecarte):
    """After "I propose" / "Please" the non-dealer discards 1 to 5 and draws as many, then the dealer
    (source §8).  Nobody may stop at 0 cards; a 5-card discard ends the choice by itself."""
    g = ecarte
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    act(s, "propose")
    assert s.current_player() == 0
    assert set(s.legal_actions()) == {named(g, "accept"), named(g, "refuse")}
    act(s, "accept")
    # eldest: every card of his hand, no "done" yet (at least one card)
    assert s.phase == "elder_exchange" and s.current_player() == 1
    assert set(s.legal_actions()) == hand(s, 1)
    with pytest.raises(IllegalActionError):
        act(s, "done")
    act(s, "7♠")
    assert named(g, "done") in s.legal_actions() and s.current_player() == 1
    act(s, "8♠", "done")
    # he draws two before the dealer acts
    assert s.is_chance_node()
    assert len(s.chance_outcomes()) == 21  # the stock (the turn-up is not in it)
    chance(s, "9♠ 10♠")
    assert hand(s, 1) == set(cards(g, "9♠ 10♠ 7♦ 8♦ 7♣"))
    # the dealer, who must take at least one (the source §8), here takes five
    assert s.phase == "dealer_exchange" and s.current_player() == 0
    assert set(s.legal_actions()) == hand(s, 0)
    act(s, "K♠", "Q♠", "K♦", "Q♦", "K♣")
    assert s.is_chance_node()  # the fifth card closes the choice
    chance(s, "J♠ A♠ J♦ A♦ J♣")
    assert hand(s, 0) == set(cards(g, "J♠ A♠ J♦ A♦ J♣"))
    assert s.phase == "declare" and s.current_player() == 1 and s.vars["exchanges"] == 1
    assert sorted(zone(s, "discards")) == sorted(cards(g, "7♠ 8♠ K♠ Q♠ K♦ Q♦ K♣"))
    assert len(zone(s, "stock")) == 21 - 7


def test_discarded_cards_are_not_drawn_back_in_the_same_exchange(ecarte):
    s = ecarte.new_initial_state()
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    act(s, "propose", "accept", "7♠", "done")
    assert card(ecarte, "7♠") not in [c for c, _ in s.chance_outcomes()]
    with pytest.raises(IllegalActionError, match="7♠"):
        s.apply_action(card(ecarte, "7♠"))


# -- facts 2, 4: the deal ------------------------------------------------------------------------------------

def test_after_the_deal_five_each_one_turned_up_21_in_stock(ecarte):
    s = ecarte.new_initial_state()
    assert s.is_chance_node() and len(s.chance_outcomes()) == 32
    arrange_deal(s, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "J♦")
    assert len(hand(s, 0)) == len(hand(s, 1)) == 5
    assert zone(s, "turnup") == [card(ecarte, "J♦")]
    assert len(zone(s, "stock")) == 21
    assert s.vars["trumps"] == ecarte.deck.suits.index("diamonds")
    assert not s.is_chance_node() and s.current_player() == 1


def test_turnup_never_enters_a_hand_nor_is_drawn(ecarte):
    """Facts 2 and 4 over many random matches: at the end of every deal's dealing 5/5/1/21; the
    turn-up is never a chance outcome, never in a hand, and stays turned up until the deal ends."""
    rng = random.Random(5)
    deals = 0
    for _ in range(80):
        s = ecarte.new_initial_state()
        turnup = None
        deal_no = -1
        while not s.is_terminal():
            if s.deal_number != deal_no:
                deal_no, turnup = s.deal_number, None
            if turnup is None and zone(s, "turnup"):
                turnup = zone(s, "turnup")[0]
                deals += 1
                if s.phase == "declare":  # (a turned-up king may have ended the match)
                    assert len(hand(s, 0)) == len(hand(s, 1)) == 5 and len(zone(s, "stock")) == 21
            if turnup is not None:
                assert zone(s, "turnup") == [turnup]
                assert turnup not in hand(s, 0) | hand(s, 1)
                if s.is_chance_node():
                    assert turnup not in [c for c, _ in s.chance_outcomes()]
            s.apply_action(rng.choice(s.legal_actions()))
    assert deals > 300

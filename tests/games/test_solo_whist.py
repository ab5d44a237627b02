"""rules/solo_whist.atout against the source text §13-16, the rules digest §3 and its checkable
facts 19-25.

The dealer of the first deal is seat 0, so eldest is seat 1 and the auction goes 1, 2, 3, 0.
Arranged deals (arranged_deals.py) let each seat win exactly the tricks the test chooses; expected
settlements are worked out by hand from the stakes of digest §3 (pagat) and EB's over- and
undertricks, never read from the program.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from arranged_deals import deal_hands, layout, play_tricks

import atout
from atout.engine.observe import visible

ROOT = Path(__file__).resolve().parents[2]
SOLO = ROOT / "rules" / "solo_whist.atout"
PACKETS = [3, 3, 3, 3, 1]          # rules/solo_whist.atout: packets of three, the last four singly
CONTRACTS = ["proposal", "solo", "misere", "abondance", "royal_abondance", "misere_ouverte",
             "abondance_declaree"]
# what players see of a contract (the enum's labels in rules/solo_whist.atout); the tests name contracts by
# their names in the rules
LABEL = {"misere": "misère", "royal_abondance": "royal abondance", "misere_ouverte": "misère ouverte",
         "abondance_declaree": "abondance déclarée"}


def shown(text: str) -> str:
    """'bid misere_ouverte' as the engine writes it: 'bid misère ouverte'."""
    verb, _, rest = text.partition(" ")
    return f"{verb} {LABEL.get(rest, rest)}" if verb == "bid" and rest else text


@pytest.fixture(scope="module")
def game():
    return atout.load(str(SOLO))


def variant(tmp_path, text: str):
    path = tmp_path / "solo_variant.atout"
    path.write_text(f'extends "{SOLO}"\n{text}\n', encoding="utf-8")
    return atout.load(str(path))


def any_deal(game):
    """A new match with any deal (the lowest card each time): for tests of the auction alone."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def texts(state) -> list[str]:
    return sorted(state.action_to_string(a) for a in state.legal_actions())


def say(state, text: str) -> None:
    """Take the legal action whose text is ``text`` (e.g. "bid solo", "I accept", "pass")."""
    text = shown(text)
    found = [a for a in state.legal_actions() if state.action_to_string(a) == text]
    assert len(found) == 1, f"{text!r} is not legal; legal: {texts(state)}"
    state.apply_action(found[0])


def bids_above(contract: str | None) -> list[str]:
    start = 0 if contract is None else CONTRACTS.index(contract) + 1
    return [shown("bid " + c) for c in CONTRACTS[start:]]


def suit(game, name: str) -> int:
    return game.deck.suits.index(name)


# -- the deal ----------------------------------------------------------------------------------
def test_thirteen_cards_and_the_turn_up(game):
    """Digest fact 19, source §13: every hand holds 13 cards; the turned-up last card is the
    dealer's 13th and fixes trumps; it is shown to all until the first trick is complete."""
    state = game.new_initial_state()
    hands, tricks = layout(game, {s: [1, 2, 3] for s in "SHDC"}, {"S": 0, "H": 1, "D": 2, "C": 3}, "H", 0)
    deal_hands(state, hands, PACKETS, 1)
    hand = game.zone_base["hand"]
    assert [len(state.zones[hand + p]) for p in range(4)] == [13, 13, 13, 13]
    turn_up = hands[0][-1]
    assert turn_up in state.zones[hand + 0]
    assert state.vars["turnup"] == turn_up and state.vars["trumps"] == suit(game, "hearts")
    for p in range(4):
        assert f"turnup={game.card_str(turn_up)}" in state.observation_string(p)
    for call in ("bid solo", "pass", "pass", "pass"):
        say(state, call)
    play_tricks(state, tricks[:1])
    assert state.vars["turnup"] == -1


# -- the auction (source §14-16) ---------------------------------------------------------------
def test_eldest_speaks_first_and_may_make_any_bid(game):
    state = any_deal(game)
    assert state.current_player() == 1
    assert texts(state) == sorted(bids_above(None) + ["pass"])


def test_each_bid_outranks_the_last(game):
    """Digest fact 20, source §14: the ladder proposal < solo < misère < abondance < royal
    abondance < misère ouverte < abondance déclarée; each bid must outrank the last."""
    state = any_deal(game)
    say(state, "bid solo")
    assert texts(state) == sorted(bids_above("solo") + ["pass"])
    say(state, "bid abondance")
    assert texts(state) == sorted(bids_above("abondance") + ["pass"])
    say(state, "bid misere_ouverte")
    assert texts(state) == sorted(bids_above("misere_ouverte") + ["pass"])
    say(state, "bid abondance_declaree")
    assert state.current_player() == 1
    assert texts(state) == ["pass"]          # nothing outranks abondance déclarée


def test_a_player_who_passed_bids_no_more(game):
    """Source §14: a player who passes takes no further part in the auction."""
    state = any_deal(game)
    say(state, "pass")              # seat 1
    say(state, "bid solo")          # seat 2
    say(state, "pass")              # seat 3
    say(state, "bid misere")        # seat 0
    assert state.current_player() == 2      # seats 1 and 3 have passed: skipped
    say(state, "pass")                      # seat 2: everybody but seat 0 has passed
    assert state.phase == "play"
    assert state.vars["playing"] == CONTRACTS.index("misere") and state.vars["declarer"] == 0
    assert state.current_player() == 1      # eldest leads (fact 21)


def test_eldest_having_passed_may_accept_a_proposal(game):
    """Source §15: if the first bidder passed he may come back to accept a proposal, the only
    such case; the proposer's partner is whoever first accepts."""
    state = any_deal(game)
    say(state, "pass")              # seat 1 (eldest)
    say(state, "bid proposal")      # seat 2
    say(state, "pass")              # seat 3
    say(state, "pass")              # seat 0
    assert state.current_player() == 1
    assert texts(state) == ["I accept", "pass"]      # he may accept, not bid
    say(state, "I accept")
    assert state.phase == "play"
    assert state.vars["playing"] == CONTRACTS.index("proposal")
    assert (state.vars["declarer"], state.vars["acceptor"]) == (2, 1)
    assert state.vars["trumps"] == state.game.suit_of[state.vars["turnup"]]   # the turned suit


def test_only_eldest_comes_back(game):
    """Source §15: another player who passed may not accept."""
    state = any_deal(game)
    say(state, "pass")              # seat 1
    say(state, "pass")              # seat 2
    say(state, "bid proposal")      # seat 3
    say(state, "pass")              # seat 0
    assert state.current_player() == 1 and texts(state) == ["I accept", "pass"]
    say(state, "pass")              # eldest declines
    # seat 2 passed and is not eldest: skipped; the turn comes back to the proposer
    assert state.current_player() == 3
    assert "I accept" not in texts(state)


def test_unaccepted_proposal_may_be_raised_to_solo(game):
    """Source §16: if nobody accepts, the proposer may bid against himself, e.g. solo."""
    state = any_deal(game)
    for call in ("pass", "pass", "bid proposal", "pass", "pass"):
        say(state, call)
    assert state.current_player() == 3
    assert texts(state) == sorted(bids_above("proposal") + ["pass"])
    say(state, "bid solo")
    assert state.phase == "play"
    assert state.vars["playing"] == CONTRACTS.index("solo")
    assert (state.vars["declarer"], state.vars["acceptor"]) == (3, -1)


def test_unaccepted_proposal_not_raised_throws_the_hands_in(game):
    """Source §16: if he does not raise, the cards are shuffled and dealt again."""
    state = any_deal(game)
    for call in ("pass", "pass", "bid proposal", "pass", "pass", "pass"):
        say(state, call)
    assert state.is_chance_node()           # a new deal
    assert state.deal_number == 1 and state.dealer == 1
    assert state.vars["units"] == [0, 0, 0, 0]


def test_all_four_pass(game):
    """Digest fact 23: all four pass: no contract; the deal passes to the left."""
    state = any_deal(game)
    for _ in range(4):
        say(state, "pass")
    assert state.is_chance_node()
    assert state.deal_number == 1 and state.dealer == 1
    assert state.vars["units"] == [0, 0, 0, 0]
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 2      # the new eldest


def test_accepted_proposal_stands_when_the_others_pass(game):
    state = any_deal(game)
    for call in ("bid proposal", "pass", "I accept", "pass"):
        say(state, call)
    assert state.phase == "play"
    assert (state.vars["declarer"], state.vars["acceptor"]) == (1, 3)


def test_a_proposal_is_accepted_once(game):
    state = any_deal(game)
    say(state, "bid proposal")
    say(state, "I accept")
    assert "I accept" not in texts(state)


def test_an_overcalled_proposal_has_no_partnership(game):
    """Digest fact 24: proposal and acceptance is the only two-against-two contract."""
    state = any_deal(game)
    for call in ("bid proposal", "I accept", "bid misere", "pass"):
        say(state, call)
    assert state.current_player() == 1           # the proposer has not passed: he speaks again
    assert texts(state) == sorted(bids_above("misere") + ["pass"])
    say(state, "pass")
    assert state.current_player() == 2           # so does the acceptor
    say(state, "pass")
    assert state.phase == "play"
    assert state.vars["playing"] == CONTRACTS.index("misere")
    assert (state.vars["declarer"], state.vars["acceptor"]) == (3, -1)
    assert state.vars["trumps"] == -1            # fact 21: misère has no trumps


def test_the_auction_always_ends_within_thirteen_calls(game):
    """Digest §4.5: the auction always ends.  Bound, by hand: at most 7 bids (the ladder rises),
    4 first passes, 1 acceptance and eldest's one second chance: 13 calls."""
    rng = random.Random(7)
    state = game.new_initial_state()
    seen_endings = set()
    for _ in range(400):
        while state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        calls = 0
        deals = state.deal_number
        while state.phase == "auction" and state.deal_number == deals and not state.is_terminal():
            legal = state.legal_actions()
            passes = [a for a in legal if state.action_to_string(a) == "pass"]
            # pass half the time, so that all-pass deals and unaccepted proposals occur too
            state.apply_action(passes[0] if passes and rng.random() < 0.5 else rng.choice(legal))
            calls += 1
            assert calls <= 13
        seen_endings.add("redeal" if state.deal_number > deals else state.phase)
        # finish the deal at random
        while not state.is_chance_node() and not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            state = game.new_initial_state()
    assert seen_endings == {"redeal", "play", "name_trumps"}


def test_every_contract_can_be_reached(game):
    """Digest §4.5: each of the seven contracts can be won in the auction."""
    for c in CONTRACTS:
        state = any_deal(game)
        say(state, "bid " + c)
        if c == "proposal":
            say(state, "I accept")
        while state.phase == "auction":
            say(state, "pass")
        assert state.vars["playing"] == CONTRACTS.index(c)


# -- contracts and settlement (digest §3, facts 21, 22, 25) --------------------------------------
def arranged(game, tops, leftovers, turn_suit="C"):
    state = game.new_initial_state()
    hands, tricks = layout(game, tops, leftovers, turn_suit, 0)
    deal_hands(state, hands, PACKETS, 1)
    return state, tricks


# Proposal: seats 1 and 2 take S 3, H 3, D 1, C 1 and the last trick (2 of clubs, trumps): 9.
PROPOSAL_9 = ({"S": [1, 2, 1], "H": [2, 1, 2], "D": [1, 3, 0], "C": [3, 0, 1]},
              {"C": 2, "S": 0, "H": 1, "D": 3})
# Proposal: seats 1 and 2 take S 2, H 1, D 1, C 1 and the last trick: 6.
PROPOSAL_6 = ({"S": [1, 2, 0], "H": [2, 3, 0], "D": [1, 3, 0], "C": [3, 0, 1]},
              {"C": 2, "S": 0, "H": 1, "D": 3})


def test_proposal_won_with_an_overtrick(game):
    """8 undertaken with the partner, 9 taken: 1 unit + 1 overtrick, each declarer from one opponent."""
    state, tricks = arranged(game, *PROPOSAL_9)
    for call in ("bid proposal", "I accept", "pass", "pass"):
        say(state, call)
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == 9
    assert state.vars["units"] == [-2, 2, 2, -2]


def test_proposal_without_over_and_undertricks(tmp_path):
    g = variant(tmp_path, "override option over_under: bool = false")
    state, tricks = arranged(g, *PROPOSAL_9)
    for call in ("bid proposal", "I accept", "pass", "pass"):
        say(state, call)
    play_tricks(state, tricks)
    assert state.vars["units"] == [-1, 1, 1, -1]


def test_proposal_lost_by_two(game):
    """6 of 8: lost, 1 unit + 2 undertricks to each opponent."""
    state, tricks = arranged(game, *PROPOSAL_6)
    for call in ("bid proposal", "I accept", "pass", "pass"):
        say(state, call)
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == 6
    assert state.vars["units"] == [3, -3, -3, 3]


def test_solo_won_with_an_overtrick(game):
    """Seat 3 takes S 2, H 1, D 1, C 1 and the last trick: 6 of 5, 2 units from each opponent."""
    state, tricks = arranged(game, {"S": [3, 3, 0], "H": [3, 1, 2], "D": [3, 0, 1], "C": [3, 0, 1]},
                             {"C": 3, "S": 0, "H": 1, "D": 2})
    for call in ("pass", "pass", "bid solo", "pass"):
        say(state, call)
    play_tricks(state, tricks)
    assert state.vars["units"] == [-2, -2, -2, 6]


def test_solo_lost_by_two(game):
    """Seat 3 takes S 1, H 1 and the last trick: 3 of 5, pays 1 + 2 to each opponent."""
    state, tricks = arranged(game, {"S": [3, 0, 1], "H": [3, 2, 0], "D": [1, 2, 0], "C": [2, 0, 1]},
                             {"C": 3, "S": 0, "H": 1, "D": 2})
    for call in ("pass", "pass", "bid solo", "pass"):
        say(state, call)
    play_tricks(state, tricks)
    assert state.vars["units"] == [3, 3, 3, -9]


MISERE_TOPS = {"S": [0, 1, 3], "H": [0, 1, 3], "D": [0, 1, 3], "C": [0, 1, 3]}


def test_misere_won_and_without_trumps(game):
    """Facts 21-22: misère has no trumps.  Seat 2 holds no group's top card; in the last trick
    seat 3 (winner of trick 12) leads the 2 of diamonds and seat 2 throws the 2 of clubs, the
    turned suit: with clubs trumps he would take it, without trumps he takes nothing."""
    state, tricks = arranged(game, MISERE_TOPS, {"C": 2, "S": 0, "H": 1, "D": 3})
    for call in ("pass", "bid misere", "pass", "pass"):
        say(state, call)
    assert state.vars["trumps"] == -1
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == 0
    assert state.vars["units"] == [-2, -2, 6, -2]


@pytest.mark.parametrize("tops_s, taken", [([2, 1, 3], 1), ([2, 2, 2], 3)])
def test_misere_lost_by_any_trick(game, tops_s, taken):
    """Fact 22: a misère declarer who takes a trick has lost; no over/undertricks in misère."""
    tops = dict(MISERE_TOPS, S=tops_s)
    state, tricks = arranged(game, tops, {"C": 2, "S": 0, "H": 1, "D": 3})
    for call in ("pass", "bid misere", "pass", "pass"):
        say(state, call)
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == taken
    assert state.vars["units"] == [2, 2, -6, 2]


def test_abondance_declarer_names_trumps(game):
    """Abondance: the declarer names trumps (spades); 10 tricks of 9: 3 units, no overtricks.
    Seat 1 takes S 3, H 3, D 2, C 1 and the last trick with the 2 of spades (trumps)."""
    state, tricks = arranged(game, {"S": [1, 1, 1], "H": [1, 1, 1], "D": [1, 1, 3], "C": [1, 2, 3]},
                             {"S": 1, "H": 0, "D": 2, "C": 3})
    for call in ("bid abondance", "pass", "pass", "pass"):
        say(state, call)
    assert state.phase == "name_trumps" and state.current_player() == 1
    assert texts(state) == sorted(f"trumps {s}" for s in game.deck.suits)
    say(state, "trumps spades")
    assert state.vars["trumps"] == suit(game, "spades")
    assert state.current_player() == 1      # eldest leads
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == 10
    assert state.vars["units"] == [-3, 9, -3, -3]


def test_royal_abondance_lost(game):
    """Royal abondance: 9 tricks with the turned suit as trumps; 8 taken: lost, 3 units to each."""
    state, tricks = arranged(game, {"S": [1, 1, 1], "H": [1, 1, 1], "D": [1, 0, 3], "C": [0, 2, 3]},
                             {"C": 1, "S": 0, "H": 2, "D": 3})
    for call in ("bid royal_abondance", "pass", "pass", "pass"):
        say(state, call)
    assert state.phase == "play" and state.vars["trumps"] == suit(game, "clubs")
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == 8
    assert state.vars["units"] == [3, -9, 3, 3]


def test_misere_ouverte_hand_exposed_after_the_first_trick(game):
    """Misère ouverte: no trumps; the declarer's hand is exposed to all after trick 1 (FOS);
    won: 4 units from each opponent."""
    state, tricks = arranged(game, {s: [0, 1, 2] for s in "SHDC"}, {"C": 3, "S": 0, "H": 1, "D": 2})
    for call in ("pass", "pass", "bid misere_ouverte", "pass"):
        say(state, call)
    assert state.vars["trumps"] == -1
    slot = game.zone_base["hand"] + 3
    assert not any(visible(state, slot, p) for p in (0, 1, 2))
    play_tricks(state, tricks[:1])
    assert all(visible(state, slot, p) for p in (0, 1, 2))
    shown = " ".join(game.card_str(c) for c in state.zones[slot])
    assert game.card_str(state.zones[slot][0]) in state.observation_string(0)
    assert "hand[3]: 12 cards" not in state.observation_string(0), shown
    play_tricks(state, tricks[1:])
    assert state.vars["units"] == [-4, -4, -4, 12]


def test_plain_misere_hand_stays_hidden(game):
    state, tricks = arranged(game, MISERE_TOPS, {"C": 2, "S": 0, "H": 1, "D": 3})
    for call in ("pass", "bid misere", "pass", "pass"):
        say(state, call)
    play_tricks(state, tricks[:5])
    slot = game.zone_base["hand"] + 2
    assert not any(visible(state, slot, p) for p in (0, 1, 3))


def test_abondance_declaree_declarer_leads(game):
    """Fact 21: in abondance déclarée the declarer leads; no trumps (WIKI-S); all 13: 6 units."""
    state, tricks = arranged(game, {s: [2, 2, 2] for s in "SHDC"}, {"S": 0, "H": 1, "D": 2, "C": 3})
    for call in ("pass", "bid abondance_declaree", "pass", "pass"):
        say(state, call)
    assert state.phase == "play"
    assert state.current_player() == 2
    assert state.vars["trumps"] == -1
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == 13
    assert state.vars["units"] == [-6, -6, 18, -6]


def test_abondance_declaree_lost_with_twelve(game):
    state, tricks = arranged(game, {"S": [0, 2, 2], "H": [2, 2, 2], "D": [2, 2, 2], "C": [2, 2, 2]},
                             {"S": 0, "H": 1, "D": 2, "C": 3})
    for call in ("pass", "bid abondance_declaree", "pass", "pass"):
        say(state, call)
    play_tricks(state, tricks)
    assert state.deal_log[-1]["vars"]["taken"] == 12
    assert state.vars["units"] == [6, 6, -18, 6]


def test_abondance_declaree_with_trumps_named(tmp_path):
    """FOS reading (option declaree_names_trumps): the declarer names trumps, and still leads."""
    g = variant(tmp_path, "override option declaree_names_trumps: bool = true")
    state = any_deal(g)
    for call in ("pass", "bid abondance_declaree", "pass", "pass"):
        say(state, call)
    assert state.phase == "name_trumps" and state.current_player() == 2
    say(state, "trumps hearts")
    assert state.vars["trumps"] == suit(g, "hearts")
    assert state.current_player() == 2


def test_settlement_is_zero_sum_and_tricks_sum_to_13(game):
    """Fact 25, on random matches: every deal's settlement sums to zero; 13 tricks are played."""
    from atout.engine.bots import RandomBot
    from atout.engine.simulate import play_match
    for seed in range(3):
        rng = random.Random(seed)
        result = play_match(game, [RandomBot(rng.randrange(2**32)) for _ in range(4)], rng)
        assert result.deals and all(sum(d["points"]) == 0 for d in result.deals)
        assert sum(result.returns) == 0
        plays = [s for s in result.steps if s["player"] >= 0 and s["text"].startswith("play ")]
        played_deals = sum(1 for d in result.deals if d["vars"]["stake"] > 0)
        assert len(plays) == 52 * played_deals

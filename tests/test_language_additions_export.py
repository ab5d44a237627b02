"""The constructs added for Euchre (docs/language.md, trick play and the match): ``bowers RANK``, ``skip A, B`` and
``first dealer random``, checked on hand-made Euchre deals whose outcomes follow from the rules of Euchre
(pagat.com "Euchre": the right and left bowers, following the suit led where the left bower is a trump)."""
from __future__ import annotations

from pathlib import Path

import pytest

from atout.compiler import CompileError, compile_file, compile_text, ir
from atout.engine import Game

RULES = Path(__file__).resolve().parent.parent / "rules"


def _euchre(tmp_path=None, lone_defender=False) -> Game:
    if not lone_defender:
        return Game(compile_file(str(RULES / "euchre.atout")))
    v = tmp_path / "euchre_lone.atout"
    v.write_text(f'extends "{RULES / "euchre.atout"}"\noverride option allow_lone_defender: bool = true\n')
    return Game(compile_file(str(v)))


def _ids(game: Game, names: str) -> list[int]:
    by_name = {game.card_str(c): c for c in range(game.num_cards)}
    return [by_name[n] for n in names.split()]


def _names(game: Game, ids) -> set[str]:
    return {game.card_str(c) for c in ids}


def _slot(game: Game, name: str, value=None) -> int:
    return game.slot_index[(name, value)]


def _deal(game: Game, hands: dict[int, str], upcard: str):
    """Dealer seat 0 (North); the deal gives one card at a time starting with the dealer."""
    s = game.new_initial_state()
    assert s.is_chance_node() and s.chance_outcomes() == [(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]
    s.apply_action(0)
    cards = {p: _ids(game, h) for p, h in hands.items()}
    for k in range(5):
        for p in range(4):
            s.apply_action(cards[p][k])
    s.apply_action(_ids(game, upcard)[0])
    return s


# N holds H9 S10 DJ HJ HQ; E leads.  The upcard (9 of clubs) is turned down; East names hearts in round 2.
HANDS = {0: "9♥ 10♠ J♦ J♥ Q♥", 1: "Q♦ A♣ K♣ Q♣ J♣", 2: "9♦ 10♦ K♦ A♦ 10♣", 3: "9♠ J♠ Q♠ K♠ A♠"}


def _hearts_by_east(game, hands=HANDS, alone=False):
    s = _deal(game, hands, "9♣")
    for _ in range(4):
        s.apply_action(_slot(game, "pass"))
    assert s.current_player() == 1
    s.apply_action(_slot(game, "call", game.deck.suits.index("hearts")))
    s.apply_action(_slot(game, "alone" if alone else "partner"))
    return s


def test_left_bower_does_not_follow_its_printed_suit():
    g = _euchre()
    s = _hearts_by_east(g)
    assert s.current_player() == 1 and _names(g, s.legal_actions()) == {"Q♦", "A♣", "K♣", "Q♣", "J♣"}
    s.apply_action(_ids(g, "Q♦")[0])
    # South must follow diamonds.
    assert _names(g, s.legal_actions()) == {"9♦", "10♦", "K♦", "A♦"}
    s.apply_action(_ids(g, "A♦")[0])
    s.apply_action(_ids(g, "9♠")[0])
    # North's jack of diamonds is the left bower, a heart: North has no diamond and may play any card.
    assert s.current_player() == 0
    assert _names(g, s.legal_actions()) == {"9♥", "10♠", "J♦", "J♥", "Q♥"}
    s.apply_action(_ids(g, "J♦")[0])
    assert s.tricks_won == [1, 0, 0, 0] and s.current_player() == 0  # the left bower trumps the ace led


def test_left_bower_follows_trumps_and_beats_the_ace():
    g = _euchre()
    hands = dict(HANDS)
    hands[1] = "A♥ A♣ K♣ Q♣ J♣"
    s = _hearts_by_east(g, hands)
    s.apply_action(_ids(g, "A♥")[0])
    assert _names(g, s.legal_actions()) == {"9♦", "10♦", "K♦", "A♦", "10♣"}  # South has no trump
    s.apply_action(_ids(g, "9♦")[0])
    s.apply_action(_ids(g, "9♠")[0])
    # Hearts led: North must play a heart, and the left bower is one.
    assert _names(g, s.legal_actions()) == {"9♥", "J♦", "J♥", "Q♥"}
    s.apply_action(_ids(g, "J♦")[0])
    assert s.tricks_won == [1, 0, 0, 0]


def test_right_bower_beats_left_bower():
    g = _euchre()
    hands = dict(HANDS)
    hands[1] = "J♥ A♣ K♣ Q♣ J♣"
    hands[0] = "9♥ 10♠ J♦ A♥ Q♥"
    s = _hearts_by_east(g, hands)
    s.apply_action(_ids(g, "J♥")[0])
    s.apply_action(_ids(g, "9♦")[0])
    s.apply_action(_ids(g, "9♠")[0])
    s.apply_action(_ids(g, "J♦")[0])
    assert s.tricks_won == [0, 1, 0, 0] and s.current_player() == 1


def test_two_players_sit_out(tmp_path):
    """A lone maker (East) against a lone defender (South): West and North sit out, tricks have two cards."""
    g = _euchre(tmp_path, lone_defender=True)
    s = _hearts_by_east(g, alone=True)
    # East is the dealer's left and the maker, so South (dealer + 2) is asked first.
    assert s.current_player() == 2
    s.apply_action(_slot(g, "alone"))
    assert s.current_player() == 1
    s.apply_action(_ids(g, "Q♦")[0])
    assert s.current_player() == 2
    s.apply_action(_ids(g, "A♦")[0])
    assert s.tricks_won == [0, 0, 1, 0] and s.current_player() == 2 and not s.trick_cards


def test_first_dealer_random_is_a_chance_node_over_seats():
    g = _euchre()
    s = g.new_initial_state()
    assert s.current_player() == -1 and s.legal_actions() == [0, 1, 2, 3]
    assert s.action_to_string(2) == "seat 2 deals"
    s.apply_action(2)
    assert s.dealer == 2 and s.is_chance_node() and len(s.chance_outcomes()) == 24
    assert g.max_chance_outcomes() == 24


GAME = """game t
players 2
deck { suits a b  ranks K Q J }
zone stock: hidden, home
zone hand: per player, private
phase deal { do { deal 3 from stock to hand starting eldest
  goto play } }
phase play { trick { count 3 trump a %s then { end deal } } }
match { start deal ends when deal_number >= 1 returns(p) = tricks(p) }
"""


def test_bowers_needs_paired_colours():
    with pytest.raises(CompileError) as exc:
        compile_text(GAME % "bowers J")
    text = exc.value.render()
    assert "error[E104]" in text and "colours" in text and "colors black" in text


def test_bowers_needs_a_rank():
    with pytest.raises(CompileError) as exc:
        compile_text(GAME % "bowers 5")
    assert "error[E105]" in exc.value.render()  # unknown rank '5'


def test_first_dealer_given_twice():
    text = GAME.replace("match { start", "match { first dealer 0 first dealer random start") % ""
    with pytest.raises(CompileError) as exc:
        compile_text(text)
    assert "error[E102]" in exc.value.render() and "'first dealer' is given twice" in exc.value.render()


def test_dump_of_games_without_the_additions_is_unchanged():
    text = ir.dump(compile_file(str(RULES / "ecarte.atout")))
    assert "more_skips" not in text and "bowers" not in text and "first_dealer_random" not in text
    text = ir.dump(compile_file(str(RULES / "euchre.atout")))
    assert "bowers: 2" in text and "first_dealer_random: True" in text  # J is strength 2 in A K Q J 10 9

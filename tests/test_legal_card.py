"""Tricks played by hand: a card choice whose guard always leaves a legal card (:mod:`atout.verify.legal_card`).

The card-blind abstraction cannot tell which cards a hand holds, so the follow-suit guard of a hand-coded trick
(``when led == none or suit(c) == led or all(d in hand[actor]: suit(d) != led)``) may fail for every card it
tries, and ``builtin:no_dead_end`` was unknown even on three tricks.  z3 now proves, once per action, that a
nonempty zone always holds a card satisfying the guard; the expected lemmas below are worked out by hand."""
from __future__ import annotations

from pathlib import Path

import pytest

from atout.compiler import compile_file, compile_text
from atout.engine import Game
from atout.verify.cli import verify_game
from atout.verify.crosscheck import CrossCheck
from atout.verify.legal_card import always_legal

DATA = Path(__file__).resolve().parent / "data"

GAME = """
game lemma "a card choice"
players 4
deck {{ suits spades hearts diamonds clubs  ranks A K Q J }}
zone stock: hidden, home
zone hand: per player, private
zone pile: public
deal var led: suit = none
deal var n: int in 0..3 = 0
phase deal {{ do {{ gather stock  shuffle stock  deal 4 from stock to hand starting eldest  goto play }} }}
phase play {{
  actor eldest
  action play(c: card in {zone}) when {guard} {{
    move c from {zone} to pile
    led = suit(c)
    n += 1
    if n < 3 {{ goto play }}
    end deal
  }}
}}
match {{ start deal  ends when deal_number >= 1  returns(p) = 0 }}
"""


def _lemma(guard: str, zone: str = "hand[actor]") -> bool:
    g = Game(compile_text(GAME.format(guard=guard, zone=zone)))
    ph = next(ph for ph in g.ir.phases if ph.name == "play")
    (act,) = ph.actions
    return always_legal(g, act, 20_000_000, ph.actor)     # as the abstraction asks it (Abstraction.surely_legal)


@pytest.mark.parametrize("guard, holds", [
    # follow suit, or any card when void in the suit led (or on a lead): always a card
    ("led == none or suit(c) == led or all(d in hand[actor]: suit(d) != led)", True),
    # the same with 'any' and 'count' for the void
    ("suit(c) == led or not any(d in hand[actor]: suit(d) == led)", True),
    ("suit(c) == led or count(d in hand[actor]: suit(d) == led) == 0", True),
    # a card of the hand is in the hand
    ("has(hand[actor], c)", True),
    # a lone card may always be played, else one that is not the highest: a hand of two cards of one rank
    # (A of spades, A of hearts) has none
    ("size(hand[actor]) == 1 or any(d in hand[actor]: rank(d) > rank(c))", False),
    # must follow, no exception: a player void in the suit led is stuck
    ("led == none or suit(c) == led", False),
    # a condition on another variable: false when n is 2, whatever the cards
    ("n < 2", False),
    # true for every card: trivially a card
    ("true", True),
    # the void read on another zone (the pile) says nothing of the hand: not proved
    ("suit(c) == led or all(d in pile: suit(d) != led)", False),
])
def test_the_lemma_by_hand(guard, holds):
    assert _lemma(guard) is holds


def test_the_phase_actor_names_the_same_hand():
    """In a choice phase whose actor is 'eldest', hand[eldest] and hand[actor] are one hand at its decisions
    (the actor is read again from the phase at every rest); another player's hand is not."""
    assert _lemma("suit(c) == led or all(d in hand[actor]: suit(d) != led)", zone="hand[eldest]") is True
    assert _lemma("suit(c) == led or all(d in hand[eldest]: suit(d) != led)") is True
    assert _lemma("suit(c) == led or all(d in hand[dealer]: suit(d) != led)", zone="hand[eldest]") is False


def test_a_zone_without_a_player_index():
    """The parameter's zone may be a shared one (the stock): the same reasoning on that set."""
    assert _lemma("suit(c) == led or all(d in stock: suit(d) != led)", zone="stock") is True
    assert _lemma("suit(c) == led", zone="stock") is False


def _verdicts(path: Path) -> tuple[dict, CrossCheck]:
    cross = CrossCheck()
    results, _ = verify_game(Game(compile_file(str(path))), cross=cross)
    return {r.name: r.verdict for r in results}, cross


def test_tricks_by_hand_are_decided():
    """By hand (the file's header): the guard always leaves a card, so no dead end, and every property holds.
    Before the lemma, builtin:no_dead_end, no_rule_error and no_trap were unknown (78 abstract states "may
    have no legal action")."""
    verdicts, cross = _verdicts(DATA / "tricks_by_hand.atout")
    assert set(verdicts.values()) == {"proved"}, verdicts
    # the abstraction covers the engine's matches, and the proved properties hold in their states
    assert cross.matches > 0 and cross.states > 0 and not cross.failures, cross.as_json()


def test_must_follow_is_still_a_dead_end():
    """The control: without the void clause the lemma fails and the real dead end is refuted, never proved."""
    verdicts, _ = _verdicts(DATA / "tricks_by_hand_must_follow.atout")
    assert verdicts["builtin:no_dead_end"] == "refuted"
    assert verdicts["builtin:no_rule_error"] == "refuted"


# -- the rank and suit of a chosen card, forgotten -------------------------------------------------------------
RANKS = DATA / "tricks_by_hand_ranks.atout"


def test_the_chosen_card_variables_by_hand():
    """best_rank and best_suit are set only to none or from the card played and read only in the 'if' that
    decides the best card: forgettable.  'led' is compared with none (a lead or not), 'best_by' is a player
    that indexes taken_n, 'in_trick' and 'done' are ints: none of them is."""
    from atout.verify.liveness import chosen_card_vars
    assert chosen_card_vars(compile_file(str(RANKS))) == {"best_rank", "best_suit"}
    # a card variable (tricks_by_hand keeps the best card as a card): nothing of this kind
    assert chosen_card_vars(compile_file(str(DATA / "tricks_by_hand.atout"))) == frozenset()
    # read anywhere else (here best_rank, by an invariant): not forgettable; best_suit still is
    text = RANKS.read_text(encoding="utf-8") + "\nproperty ranked: invariant best_rank == none or done < 5\n"
    assert chosen_card_vars(compile_text(text)) == {"best_suit"}


def test_ranks_forgotten_every_property_proved():
    """By hand (the file's header): every property holds.  The exploration keeping best_rank and best_suit
    grows 8 times past the states without them and is given up; the one that forgets them decides every
    property, and the cross-check maps the engine's matches into it."""
    verdicts, cross = _verdicts(RANKS)
    assert set(verdicts.values()) == {"proved"}, verdicts
    assert cross.matches > 0 and not cross.failures, cross.as_json()


def test_the_forgotten_abstraction_covers_the_engine():
    """Soundness of forgetting, from the start (no probe): every engine match of the cross-check lies in the
    abstraction that forgets best_rank and best_suit at every rest and writes them as any value."""
    from atout.verify.checker import Budget
    budget = Budget(coarsen_at=1)     # forget from the first exploration on
    cross = CrossCheck()
    results, _ = verify_game(Game(compile_file(str(RANKS))), budget=budget, cross=cross)
    assert {r.verdict for r in results} == {"proved"}
    assert any("a chosen card's rank or suit" in r.method for r in results)
    assert cross.states > 0 and not cross.failures, cross.as_json()


# -- a phase whose actions together always leave one -------------------------------------------------------------
PHASE_GAME = """
game phase_lemma "a choice read from the hand"
players 2
deck {{ suits spades hearts diamonds clubs  ranks A K Q J }}
zone stock: hidden, home
zone hand: per player, private
zone pile: public
deal var named: suit = none
phase deal {{ do {{ gather stock  shuffle stock  deal 3 from stock to hand starting eldest  goto choose }} }}
phase choose {{
  actor eldest
  {actions}
}}
match {{ start deal  ends when deal_number >= 1  returns(p) = 0 }}
"""


def _phase_lemma(actions: str):
    from atout.verify.legal_card import phase_always_legal
    g = Game(compile_text(PHASE_GAME.format(actions=actions)))
    ph = next(ph for ph in g.ir.phases if ph.name == "choose")
    return phase_always_legal(g, ph, 20_000_000)


@pytest.mark.parametrize("actions, holds", [
    # two actions whose guards complement one another: one of them is always legal
    ('action declare "declare" when any(c in hand[actor]: rank(c) == K) { end deal }\n'
     'action pass "pass" when all(c in hand[actor]: rank(c) != K) { end deal }', True),
    # name a suit you hold: some suit, whenever the hand holds a card
    ('action name(s: suit) "name" when any(c in hand[actor]: suit(c) == s) { named = s  end deal }', True),
    # name a suit of which you hold the ace: a hand without an ace has none
    ('action name(s: suit) "name" when any(c in hand[actor]: suit(c) == s and rank(c) == A) { end deal }', False),
    # both actions need a king: a hand without one has none
    ('action declare "declare" when any(c in hand[actor]: rank(c) == K) { end deal }\n'
     'action pass "pass" when size(hand[actor]) > 3 { end deal }', False),
])
def test_the_phase_lemma_by_hand(actions, holds):
    zones = _phase_lemma(actions)
    assert (zones is not None) is holds
    if holds:     # the one zone its guards read, which must hold a card
        assert [str(z.base.name) for z in zones] == ["hand"]


def _phase_verdicts(actions: str) -> dict:
    cross = CrossCheck()
    results, _ = verify_game(Game(compile_text(PHASE_GAME.format(actions=actions))), cross=cross)
    assert not cross.failures, cross.as_json()
    return {r.name: r.verdict for r in results}


def test_a_suit_named_from_the_hand_is_decided():
    """By hand: a hand of 3 cards holds some suit, so 'name' always has a legal value (no dead end); before the
    phase lemma the abstraction read each suit's 'any' on anonymous cards apart, and no_dead_end was unknown."""
    v = _phase_verdicts('action name(s: suit) "name" when any(c in hand[actor]: suit(c) == s) '
                        '{ named = s  end deal }')
    assert v["builtin:no_dead_end"] == "proved" and v["builtin:no_rule_error"] == "proved"


def test_naming_an_ace_held_is_a_real_dead_end():
    """The control: a hand of 3 cards of 16 often holds no ace, and then no suit may be named: refuted."""
    v = _phase_verdicts('action name(s: suit) "name" when any(c in hand[actor]: suit(c) == s and rank(c) == A) '
                        '{ end deal }')
    assert v["builtin:no_dead_end"] == "refuted"


def test_zones_indexed_by_a_local_are_no_premise():
    """'any(p in players: any(c in hand[p]: ...))' reads another hand for each p: no one set of cards stands for
    them, so the phase lemma is not proved from it, and the verifier neither fails nor proves the dead ends
    (it failed with a KeyError on 'p' while the lemma took hand[p] for one zone)."""
    acts = ('action declare "declare" when any(p in players: any(c in hand[p]: rank(c) == K)) { end deal }\n'
            'action pass "pass" when all(p in players: all(c in hand[p]: rank(c) != K)) { end deal }')
    assert _phase_lemma(acts) is None
    cross = CrossCheck()
    results, _ = verify_game(Game(compile_text(PHASE_GAME.format(actions=acts))), cross=cross)
    assert not any("verifier failed" in r.method for r in results), [r.method for r in results]
    assert not cross.failures, cross.as_json()

"""Perfect recall: a seat's information state is what it observed, in order, and nothing else.

Each case is built by hand: deals arranged card by card, actions chosen, and what the seat saw worked out from the
rules (which zones it sees, which choices are face down).  Two histories that differ only in what a seat never saw
give it the same information state; two that differ in something it saw once (a card turned up and then buried, a
card it discarded face down, the turn-up of Whist taken back into the dealer's hand) give different ones, although
its observation now is the same.  Along random matches the seat's log only grows, equal information states allow
the same moves, and the OpenSpiel tensor tells apart exactly the information states the string tells apart.
"""
from __future__ import annotations

import random

import pytest
from _agreement import ROOT
from atout.compiler import compile_text
from atout.engine import Game
from conftest import ECARTE, act, arrange_deal, card, cards, hand
from hypothesis import given, settings
from hypothesis import strategies as st

import atout

# A tiny game: two cards each; a card is turned up for all to see; the dealer buries it face down, or shows his
# hand (reveal) and then buries it; two tricks.
PEEK = """game peek "Peek"
players 2
deck { suits hearts spades  ranks A K Q }
zone stock: hidden, home
zone hand: per player, private
zone shown: public
zone pile: hidden
match var points: int in 0..9 per player = 0
phase deal {
  do {
    gather stock
    shuffle stock
    deal 2 from stock to hand starting eldest
    move 1 from stock to shown
    goto bury
  }
}
phase bury {
  actor dealer
  action bury "bury the turned-up card" {
    move all from shown to pile
    goto play
  }
  action show "show my hand, bury the card" {
    reveal hand[actor]
    move all from shown to pile
    goto play
  }
}
phase play {
  trick {
    count 2
    follow suit
    then {
      score s
      end deal
    }
  }
}
table s {
  row a: tricks(eldest) >= 1 => { points[eldest] += 1 }
  row b: tricks(eldest) == 0 => { points[dealer] += 1 }
}
match {
  start deal
  ends when any(p in players: points[p] >= 2)
  returns(p) = points[p]
}
"""


@pytest.fixture(scope="module")
def peek():
    return Game(compile_text(PEEK, "peek.atout"))


@pytest.fixture(scope="module")
def whist():
    return atout.load(str(ROOT / "rules" / "whist.atout"))


@pytest.fixture(scope="module")
def euchre():
    return atout.load(str(ROOT / "rules" / "euchre.atout"))


def deal_to(state, wanted: dict[str, str]) -> None:
    """Resolve chance nodes until a decision: a card drawn to the zone slot labelled ``L`` (``hand[1]``) is the next
    of ``wanted[L]`` (card names, in order), any other draw the lowest card that is not wanted."""
    g = state.game
    queue = {label: cards(g, names) for label, names in wanted.items()}
    while state.is_chance_node():
        label = g.zone_slots[state.pending[0][1]].label
        reserved = {c for q in queue.values() for c in q}
        if queue.get(label):
            c = queue[label].pop(0)
        else:
            c = min(c for c in state.legal_actions() if c not in reserved)
        state.apply_action(c)
    assert not any(queue.values()), f"cards not dealt: {queue}"


def slot(g, label: str) -> int:
    return next(i for i, s in enumerate(g.zone_slots) if s.label == label)


# -- (1) histories that differ only in what a seat never saw ------------------------------------------------

def test_peek_the_other_hand_is_not_seen(peek):
    """Seat 0 (the dealer) holds A♥ K♥ in both; seat 1 holds Q♥ A♠ or Q♠ A♠ (the Q♥ / Q♠ left in the stock):
    seat 0 sees the same (the turned-up K♠, its own bury), seat 1 does not."""
    a, b = peek.new_initial_state(), peek.new_initial_state()
    deal_to(a, {"hand[1]": "Q♥ A♠", "hand[0]": "A♥ K♥", "shown": "K♠"})
    deal_to(b, {"hand[1]": "Q♠ A♠", "hand[0]": "A♥ K♥", "shown": "K♠"})
    for s in (a, b):
        s.apply_action(peek.slot_index[("bury", None)])
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    # what seat 0 saw, entry by entry: the deal, a packet of two to eldest (hand[1], slot 2) unseen, its own two
    # cards (hand[0], slot 1; ids: A♥ 0, K♥ 1, Q♥ 2, A♠ 3, K♠ 4, Q♠ 5), the turned-up K♠ (slot 3), its bury
    # (action 6, the first named action), the K♠ going face down to the pile (slot 3 -> slot 4), the trick phase
    assert a.information_state_log(0) == [
        "deal:0", ">deal", "c2:?", "c2:?", "c1:0", "c1:1", "c3:4", ">bury", "0:6", "m3>4=4", ">play"]


def test_ecarte_the_dealers_cards_are_not_seen_by_eldest():
    """Écarté: eldest (seat 1) holds the same five cards; the dealer holds K♠ Q♠ K♦ Q♦ K♣ or K♠ Q♠ K♦ Q♦ A♣;
    both propose/accept and eldest discards 7♠: eldest cannot tell them apart."""
    g = atout.load(ECARTE)
    a, b = g.new_initial_state(), g.new_initial_state()
    arrange_deal(a, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    arrange_deal(b, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ A♣", "7♥")
    for s in (a, b):
        act(s, "propose", "accept", "7♠", "done")
    assert a.current_player() == b.current_player() == -1      # eldest's replacement card is drawn
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.information_state_string(0) != b.information_state_string(0)


def test_whist_cards_of_other_seats_are_not_seen(whist):
    """Whist, seat 0 deals: seats 0 and 2 hold the same thirteen cards in both matches, A♥ and K♥ change places
    between seats 1 and 3; eldest (seat 1) leads Q♥ and seat 2, void, plays 2♦.  Seats 0 and 2 cannot tell the
    matches apart, seats 1 and 3 can; once seat 3 follows with K♥ / A♥, every seat can."""
    g = whist
    spades = "A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ 6♠ 5♠ 4♠ 3♠ 2♠"
    diamonds = "A♦ K♦ Q♦ J♦ 10♦ 9♦ 8♦ 7♦ 6♦ 5♦ 4♦ 3♦ 2♦"
    hearts_1 = "A♥ Q♥ J♥ 10♥ 9♥ 8♥ 7♥ 6♥ 5♥ 4♥ 3♥ 2♥ A♣"
    hearts_3 = "K♥ K♣ Q♣ J♣ 10♣ 9♣ 8♣ 7♣ 6♣ 5♣ 4♣ 3♣ 2♣"
    swap = {"A♥": "K♥", "K♥": "A♥"}

    def swapped(names):
        return " ".join(swap.get(c, c) for c in names.split())
    a, b = g.new_initial_state(), g.new_initial_state()
    deal_to(a, {"hand[0]": spades, "hand[1]": hearts_1, "hand[2]": diamonds, "hand[3]": hearts_3})
    deal_to(b, {"hand[0]": spades, "hand[1]": swapped(hearts_1), "hand[2]": diamonds, "hand[3]": swapped(hearts_3)})
    assert a.dealer == 0 and a.current_player() == 1
    for s in (a, b):
        s.apply_action(card(g, "Q♥"))
        s.apply_action(card(g, "2♦"))
    for p in (0, 2):
        assert a.information_state_string(p) == b.information_state_string(p)
    for p in (1, 3):
        assert a.information_state_string(p) != b.information_state_string(p)
    a.apply_action(card(g, "K♥"))
    b.apply_action(card(g, "A♥"))
    for p in range(4):
        assert a.information_state_string(p) != b.information_state_string(p)


def test_euchre_hands_of_others_are_not_seen(euchre):
    """Euchre: seat 1's five cards and the upcard are the same; seats 2 and 3 swap the A♠ and the K♠ (so do the
    cards left in the kitty): seat 1 sees the same through two passes, seats 2 and 3 do not."""
    g = euchre
    base = {"hand[1]": "9♥ 10♥ J♥ Q♥ K♥", "hand[0]": "9♦ 10♦ J♦ Q♦ K♦", "upcard": "A♥"}
    a, b = g.new_initial_state(), g.new_initial_state()
    deal_to(a, {**base, "hand[2]": "A♠ 9♣ 10♣ J♣ Q♣", "hand[3]": "K♠ 9♠ 10♠ J♠ Q♠"})
    deal_to(b, {**base, "hand[2]": "K♠ 9♣ 10♣ J♣ Q♣", "hand[3]": "A♠ 9♠ 10♠ J♠ Q♠"})
    passing = g.slot_index[("pass", None)]
    for s in (a, b):
        s.apply_action(passing)
        s.apply_action(passing)
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.information_state_string(0) == b.information_state_string(0)
    for p in (2, 3):
        assert a.information_state_string(p) != b.information_state_string(p)


def test_peek_a_hand_shown_is_in_the_log(peek):
    """The dealer (seat 0) shows A♥ K♥ (reveal): seat 1's log has them (slot 1: hand[0]), its observation too."""
    s = peek.new_initial_state()
    deal_to(s, {"hand[1]": "Q♥ A♠", "hand[0]": "A♥ K♥", "shown": "K♠"})
    s.apply_action(peek.slot_index[("show", None)])
    assert s.information_state_log(1)[-4:] == ["0:7", "r1=0,1", "m3>4=4", ">play"]
    assert "hand[0]: A♥ K♥" in s.observation_string(1).splitlines()


def test_hearts_cards_received_in_the_pass():
    """Hearts, passing to the left (the random direction's outcome 1): seat 0 passes its first three cards; seat 1,
    which receives them, has them in its log, by card; seats 2 and 3 only that three cards went from seat 0's
    'passed' to seat 1's hand."""
    g = atout.load(str(ROOT / "rules" / "hearts.atout"))
    s = g.new_initial_state()
    assert s.action_to_string(1) == "direction = left"
    s.apply_action(1)
    deal_to(s, {})
    chosen = {}
    for seat in range(4):
        assert s.current_player() == seat
        chosen[seat] = sorted(s.legal_actions())[:3]
        for c in chosen[seat]:
            s.apply_action(c)
    src, dst = slot(g, "passed[0]"), slot(g, "hand[1]")
    ids = ",".join(str(c) for c in chosen[0])
    assert f"m{src}>{dst}={ids}" in s.information_state_log(1)
    assert f"m{src}>{dst}={ids}" in s.information_state_log(0)
    for p in (2, 3):
        assert f"m{src}>{dst}=#3" in s.information_state_log(p)
    assert set(chosen[0]) <= hand(s, 1)


def test_a_dealer_chosen_from_hidden_cards_and_the_exported_module_agrees(tmp_path):
    """A variant of Peek where the holder of A♥ becomes the dealer (``dealer = holder(A of hearts)``, a fact of
    the hidden hands): with A♥ dealt to seat 1, seat 0's log says ``dealer:1`` when play comes to rest, and the
    exported module gives both seats the same information states as the engine at every step of a match."""
    from _agreement import export_python
    text = PEEK.replace("    move 1 from stock to shown\n", "    move 1 from stock to shown\n"
                        "    if holder(A of hearts) != none { dealer = holder(A of hearts) }\n")
    path = tmp_path / "peek_dealer.atout"
    path.write_text(text, encoding="utf-8")
    g = atout.load(str(path))
    s = g.new_initial_state()
    deal_to(s, {"hand[1]": "A♥ A♠", "hand[0]": "K♥ Q♥", "shown": "K♠"})
    assert s.dealer == 1 and s.current_player() == 1
    assert s.information_state_log(0)[-2:] == [">bury", "dealer:1"]
    mod = export_python(path, tmp_path, "peek_dealer_module")
    rng = random.Random(4)
    changes = 0
    for _ in range(8):
        a, b = g.new_initial_state(), mod.Game().new_initial_state()
        while not a.is_terminal():
            for p in range(2):
                assert a.information_state_string(p) == b.information_state_string(p)
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
        changes += sum(t.startswith("dealer:") for t in a.information_state_log(0))
    assert changes > 0


# -- (2) histories a seat tells apart, although it observes the same now ---------------------------------------

def test_peek_a_card_turned_up_then_buried(peek):
    """The turned-up card is K♠ or Q♠ (the other stays in the stock); once the dealer buries it face down, both
    seats observe the same, and both remember which card it was."""
    a, b = peek.new_initial_state(), peek.new_initial_state()
    deal_to(a, {"hand[1]": "Q♥ A♠", "hand[0]": "A♥ K♥", "shown": "K♠"})
    deal_to(b, {"hand[1]": "Q♥ A♠", "hand[0]": "A♥ K♥", "shown": "Q♠"})
    for s in (a, b):
        s.apply_action(peek.slot_index[("bury", None)])
    for p in (0, 1):
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_string(p) != b.information_state_string(p)
    assert "c3:4" in a.information_state_log(1) and "c3:5" in b.information_state_log(1)   # K♠ = 4, Q♠ = 5


def test_ecarte_a_card_discarded_face_down():
    """Écarté: eldest holds 7♠ or 9♠ with 8♠ 7♦ 8♦ 7♣, discards it face down and draws 9♣: eldest then holds the
    same five cards and observes the same, but remembers the card he discarded; the dealer saw neither."""
    g = atout.load(ECARTE)
    a, b = g.new_initial_state(), g.new_initial_state()
    arrange_deal(a, "7♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    arrange_deal(b, "9♠ 8♠ 7♦ 8♦ 7♣", "K♠ Q♠ K♦ Q♦ K♣", "7♥")
    act(a, "propose", "accept", "7♠", "done")
    act(b, "propose", "accept", "9♠", "done")
    for s in (a, b):
        s.apply_action(card(g, "9♣"))
        assert hand(s, 1) == set(cards(g, "8♠ 7♦ 8♦ 7♣ 9♣"))
    assert a.current_player() == b.current_player() == 0        # the dealer's exchange
    for p in (0, 1):
        assert a.observation_string(p) == b.observation_string(p)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.information_state_string(0) == b.information_state_string(0)


def test_whist_the_turn_up_taken_back_into_the_dealers_hand(whist):
    """Whist: the dealer's (seat 0) last card is turned up: 2♥ or 3♥, the other held by seat 1.  After trick 1, in
    which neither is played, the turn-up is face down in the dealer's hand: seats 1 and 2 observe the same in both
    matches, but they saw the turn-up."""
    g = whist
    h0 = "A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ 6♠ 5♠ 4♠ 3♠"
    h1 = "A♦ K♦ Q♦ J♦ 10♦ 9♦ 8♦ 7♦ 6♦ 5♦ 4♦ 3♦ 2♦"
    h2 = "A♣ K♣ Q♣ J♣ 10♣ 9♣ 8♣ 7♣ 6♣ 5♣ 4♣ 3♣ 2♣"
    h3 = "A♥ K♥ Q♥ J♥ 10♥ 9♥ 8♥ 7♥ 6♥ 5♥ 4♥ 2♠"
    a, b = g.new_initial_state(), g.new_initial_state()
    deal_to(a, {"hand[0]": h0 + " 2♥", "hand[1]": h1, "hand[2]": h2, "hand[3]": h3 + " 3♥"})
    deal_to(b, {"hand[0]": h0 + " 3♥", "hand[1]": h1, "hand[2]": h2, "hand[3]": h3 + " 2♥"})
    assert a.vars["turnup"] == card(g, "2♥") and b.vars["turnup"] == card(g, "3♥")
    assert a.vars["trumps"] == b.vars["trumps"] == g.deck.suits.index("hearts")
    for s in (a, b):    # trick 1: eldest (seat 1) leads A♦; seat 2 has no diamond, seat 3 none, the dealer none
        for c in ("A♦", "2♣", "2♠", "3♠"):
            s.apply_action(card(g, c))
    assert a.vars["turnup"] == b.vars["turnup"] == -1
    for p in (1, 2):   # seat 1 and seat 2 hold the same cards in both and saw the turn-up
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_string(p) != b.information_state_string(p)
    assert f"turnup={card(g, '2♥')}" in a.information_state_log(2)
    assert f"turnup={card(g, '3♥')}" in b.information_state_log(2)


# -- (3) along random matches -----------------------------------------------------------------------------

def _walk(game, rng, on_state) -> None:
    s = game.new_initial_state()
    while True:
        on_state(s)
        if s.is_terminal():
            return
        s.apply_action(rng.choice(s.legal_actions()))


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_log_only_grows_and_equal_information_states_allow_the_same_moves(seed):
    """Over 80 random matches of Peek from ``seed``: at every step each seat's log extends its log of the step
    before; its information state string is a function of its log; two states with the same information state for
    the seat to act give it the same legal actions (and such states are met from different histories)."""
    game = Game(compile_text(PEEK, "peek.atout"))
    rng = random.Random(seed)
    legal_by_info: dict[str, list[int]] = {}
    histories_by_info: dict[str, set] = {}
    string_by_log: dict[tuple, str] = {}
    last: dict[int, list[str]] = {}

    def check(s):
        for p in range(2):
            log = s.information_state_log(p)
            before = last.get(p, [])
            assert log[:len(before)] == before, (before, log)
            last[p] = log
            info = s.information_state_string(p)
            assert string_by_log.setdefault((p, tuple(log)), info) == info
        if not s.is_chance_node() and not s.is_terminal():
            p = s.current_player()
            info = s.information_state_string(p)
            assert legal_by_info.setdefault(info, s.legal_actions()) == s.legal_actions()
            histories_by_info.setdefault(info, set()).add(tuple(s.history))

    for _ in range(80):
        last.clear()
        _walk(game, rng, check)
    assert any(len(h) > 1 for h in histories_by_info.values())


@pytest.mark.parametrize("stem", ["ecarte", "euchre"])
def test_the_log_only_grows_in_shipped_games(stem):
    game = atout.load(str(ROOT / "rules" / f"{stem}.atout"))
    rng = random.Random(3)
    last: dict[int, list[str]] = {}

    def check(s):
        for p in range(game.players):
            log = s.information_state_log(p)
            assert log[:len(last.get(p, []))] == last.get(p, [])
            last[p] = log
    _walk(game, rng, check)
    assert len(last[0]) > 20


# -- (4) OpenSpiel: the tensor and the string agree on which histories a seat tells apart --------------------

def test_openspiel_tensor_tells_apart_what_the_string_tells_apart(tmp_path):
    """Every state of tiny_duel (target=1) with its decisions: two states give a seat the same information-state
    tensor exactly when they give it the same string.  At the first decision, eldest's (seat 1) log rows are, in the
    layout of docs/export.md: the deal by seat 0, phase 'deal', its own two cards, two cards to seat 0 unseen,
    phase 'declare'."""
    pyspiel = pytest.importorskip("pyspiel")
    np = pytest.importorskip("numpy")
    from _agreement import load_module
    from atout.export import render
    rule_file = ROOT / "tests" / "data" / "tiny_duel.atout"
    out = tmp_path / "os_recall_tiny.py"
    out.write_text(render(str(rule_file), "openspiel"), encoding="utf-8")
    mod = load_module(out, "os_recall_tiny")
    game = pyspiel.load_game(f"{mod.SHORT_NAME}(target=1)")
    by_string: dict[tuple, bytes] = {}
    by_tensor: dict[tuple, str] = {}
    n = 0

    def visit(state):
        nonlocal n
        if state.is_terminal():
            return
        if not state.is_chance_node():
            for p in range(2):
                s = state.information_state_string(p)
                t = np.asarray(state.information_state_tensor(p), dtype=np.float32).tobytes()
                assert by_string.setdefault((p, s), t) == t
                assert by_tensor.setdefault((p, t), s) == s
                n += 1
        for a in state.legal_actions():
            visit(state.child(a))
    visit(game.new_initial_state())
    assert n > 100 and len(by_string) > 20

    # the layout, by hand: 8 kinds, 2 seats, ids (4 cards + the named actions 'I play', 'I pass': 6, then one
    # column 'not seen'), the slot cards come from, the slot they go to (stock, hand[0], hand[1], discards, trick,
    # taken[0], taken[1]: 7 each), the variable or phase (1 variable, 3 phases: 3), the value
    state = game.new_initial_state()
    for c in (0, 3, 1, 2):          # A♥ K♠ to seat 1 (eldest), K♥ A♠ to seat 0 (the dealer)
        state.apply_action(c)
    assert state.current_player() == 1
    assert list(mod.SLOT_LABEL) == ["stock", "hand[0]", "hand[1]", "discards", "trick", "taken[0]", "taken[1]"]
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(state, 1)
    rows = observer.dict["log"]
    width = 8 + 2 + 7 + 7 + 7 + 3 + 1
    assert rows.shape[1] == width and observer.dict["log_overflow"][0] == 0
    ids, to, item = 10, 24, 31            # (the slots cards come from: 17..23)

    def row(*ones):
        r = np.zeros(width, np.float32)
        r[list(ones)] = 1
        return r
    expected = [row(6, 8 + 0),                    # deal, dealer seat 0
                row(5, item + 0),                 # phase 'deal' (the first phase)
                row(1, ids + 0, to + 2),          # chance: A♥ to hand[1]
                row(1, ids + 3, to + 2),          # chance: K♠ to hand[1]
                row(1, ids + 6, to + 1),          # chance: not seen, to hand[0]
                row(1, ids + 6, to + 1),
                row(5, item + 1)]                 # phase 'declare'
    for k, r in enumerate(expected):
        assert (rows[k] == r).all(), (k, np.nonzero(rows[k]))
    assert not rows[len(expected):].any()

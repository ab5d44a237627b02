"""The information-set Monte Carlo bot: it never reads what its seat may not see, its deals are consistent
with what the seat has seen, and it plays legal moves to the end of matches."""
from __future__ import annotations

import random

import pytest

from _agreement import ROOT
from atout.engine import load
from atout.engine.ismcts import ISMCTSBot, sample_deal, unseen_cards
from atout.engine.observe import visible
from atout.engine.simulate import play_match
from atout.engine.bots import make_bot


class Peeked(AssertionError):
    """The bot read something its seat may not see."""


class Sealed(list):
    """A face-down zone: its size may be read, its cards may not."""

    def _no(self, *a, **k):
        raise Peeked("a hidden zone's cards were read")
    __iter__ = __getitem__ = __contains__ = __reversed__ = index = count = copy = _no

    def __len__(self):
        return list.__len__(self)


class SealedHistory(list):
    def _no(self, *a, **k):
        raise Peeked("the history (every chance outcome) was read")
    __iter__ = __getitem__ = __contains__ = __len__ = __reversed__ = copy = _no


class SealedEntry(tuple):
    """A log entry of another seat's hidden choice: who and that it was hidden may be read, not the card."""

    def __getitem__(self, i):
        if i == 1 or isinstance(i, slice):
            raise Peeked("another seat's hidden choice was read")
        return tuple.__getitem__(self, i)

    def __iter__(self):
        raise Peeked("another seat's hidden choice was unpacked")


class SealedValue(list):
    def _no(self, *a, **k):
        raise Peeked("a hidden variable was read")
    __iter__ = __getitem__ = __contains__ = __len__ = __eq__ = _no


def seal(state, seat: int):
    """The state as a peeking bot would meet it: every hidden thing raises when read."""
    s = state.clone()
    s.zones = [list(z) if visible(s, i, seat) or s.game.zone_slots[i].name in ("taken", "trick") else Sealed(z)
               for i, z in enumerate(s.zones)]
    s.history = SealedHistory()
    s.log = [e if e[2] or e[0] == seat or e[0] < 0 and e[2] else SealedEntry(e) for e in s.log]
    for v in s.game.ir.vars:
        if v.visibility == "hidden":
            s.vars[v.name] = SealedValue()
    return s


def _decisions(game, seed, count):
    """States where a seat decides among several moves, from a random match."""
    rng, state, out = random.Random(seed), game.new_initial_state(), []
    while not state.is_terminal() and len(out) < count:
        if not state.is_chance_node() and len(state.legal_actions()) > 1 and rng.random() < 0.4:
            out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize("stem", ["ecarte", "whist", "euchre", "bridge"])
def test_the_bot_never_reads_what_its_seat_may_not_see(stem):
    game = load(str(ROOT / "rules" / f"{stem}.atout"))
    for state in _decisions(game, 3, 6):
        seat = state.current_player()
        sealed = seal(state, seat)
        with pytest.raises(Peeked):        # the seal is real: reading a hidden hand raises
            list(next(z for z in sealed.zones if isinstance(z, Sealed) and list.__len__(z)))
        a = ISMCTSBot(1, iterations=8).step(sealed)
        assert a in state.legal_actions()


def test_a_sampled_deal_is_consistent_with_what_the_seat_has_seen():
    game = load(str(ROOT / "rules" / "whist.atout"))
    rng = random.Random(5)
    for state in _decisions(game, 8, 12):
        seat = state.current_player()
        cards, sizes = unseen_cards(state, seat)
        hidden_truth = sorted(c for i in sizes for c in state.zones[i])
        assert sorted(cards) == hidden_truth          # exactly the cards the seat cannot place
        for _ in range(5):
            deal = sample_deal(state, seat, rng)
            assert {i: len(z) for i, z in deal.items()} == sizes
            assert sorted(c for z in deal.values() for c in z) == hidden_truth
            for p, suit in state.voids:          # a seat seen void in a suit is dealt none of it
                hand = game.hand_base + p
                if hand in deal:
                    assert all(game.suit_of[c] != suit for c in deal[hand])


def test_voids_are_what_the_table_saw():
    game = load(str(ROOT / "rules" / "whist.atout"))
    rng, state = random.Random(2), game.new_initial_state()
    seen = 0
    while not state.is_terminal() and state.deal_number == 0:
        if not state.is_chance_node() and state.trick_cards and game.phases[state.phase].kind == "trick":
            led = game.suit_of[state.trick_cards[0][1]]
            p = state.current_player()
            a = rng.choice(state.legal_actions())
            state.apply_action(a)
            if game.suit_of[a] != led:      # Whist: follow suit if able (LW): not following shows a void
                assert (p, led) in state.voids
                seen += 1
            # a void is true: the seat holds no card of that suit
            for q, suit in state.voids:
                assert all(game.suit_of[c] != suit for c in state.zones[game.hand_base + q])
            continue
        state.apply_action(rng.choice(state.legal_actions()))
    assert seen > 0


def test_the_bot_plays_matches_to_the_end():
    game = load(str(ROOT / "rules" / "ecarte.atout"))
    r = play_match(game, [ISMCTSBot(1, iterations=10), make_bot("greedy", 2)], random.Random(3))
    assert sorted(r.returns) == [-1.0, 1.0]


def test_the_search_budget_is_named_with_the_bot():
    from atout.engine.bots import bot_name
    from atout.engine.ismcts import DEFAULT_ITERATIONS
    assert make_bot("ismcts", 1).iterations == DEFAULT_ITERATIONS == 200
    assert make_bot("ismcts:400", 1).iterations == 400
    assert bot_name("ismcts:0400") == "ismcts:400"
    for bad in ("ismcts:0", "ismcts:-3", "ismcts:1.5", "ismcts:", "ismcts:100001", "greedy:4", "foo"):
        with pytest.raises(ValueError):
            bot_name(bad)
        with pytest.raises(KeyError):
            make_bot(bad, 1)


def test_a_bad_bot_at_the_command_line_is_refused_with_what_is_accepted(capsys):
    from atout.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["simulate", str(ROOT / "rules" / "ecarte.atout"), "-n", "1", "--bot", "ismcts:zero"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "ismcts:N" in err and "Traceback" not in err
    # a budget given with the bot plays, and the report names the bot with its budget
    assert main(["simulate", str(ROOT / "rules" / "ecarte.atout"), "-n", "1", "--bot", "ismcts:3", "--json"]) in (0, None)
    out = capsys.readouterr().out
    assert '"ismcts:3"' in out

"""Shared helpers for the engine tests: arrange deals of Écarté by driving the chance nodes.

The Écarté rule file deals ``first_packet, 5 - first_packet`` cards (3 then 2 by default) from the
stock to the hands starting with eldest (the non-dealer), then turns up one card (``rules/ecarte.atout``,
phase ``deal``; CAV law 8).  Every card drawn from the hidden stock is a chance node whose outcome is a
card id, so a test gives each player a known hand, the turn-up, and the order of the cards drawn in an
exchange by applying those card ids as the chance outcomes, in that order.

Cards are written as the engine names them (``K♠``, ``10♥``) or in ASCII (``Ks``, ``10h``, ``Th``).
"""
from __future__ import annotations

import os

import pytest

import atout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECARTE = os.path.join(ROOT, "rules", "ecarte.atout")
GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")

SUIT_LETTERS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


# -- the end of the run ----------------------------------------------------------------------------------------
# After the last test and the summary, the process leaves with the session's exit status at once, without the
# interpreter's finalization.  Some runs (seen with OpenSpiel's pybind11 registry of the Python games the tests
# register, next to Starlette's test clients) ended every test passed and then aborted in finalization ("Fatal
# Python error: PyThreadState_Get ... finalizing", status 134), which would make a green run red.  Set
# ATOUT_TESTS_FINALIZE=1 to finalize normally (to look for such crashes).
_SESSION_STATUS: dict[str, int] = {}


def pytest_sessionfinish(session, exitstatus):
    _SESSION_STATUS["status"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if "status" in _SESSION_STATUS and os.environ.get("ATOUT_TESTS_FINALIZE") != "1":
        import sys
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_SESSION_STATUS["status"])


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/golden/* from the current program instead of comparing "
                          "(read the diff before committing it)")


@pytest.fixture
def update_goldens(request) -> bool:
    return bool(request.config.getoption("--update-goldens") or os.environ.get("ATOUT_UPDATE_GOLDENS"))


_GAMES: dict[str, atout.Game] = {}


def load_game(path: str = ECARTE) -> atout.Game:
    """Compile a rule file once per test session."""
    if path not in _GAMES:
        _GAMES[path] = atout.load(path)
    return _GAMES[path]


@pytest.fixture
def ecarte() -> atout.Game:
    return load_game(ECARTE)


@pytest.fixture
def variant(tmp_path):
    """``variant("override option must_trump: bool = false", ...)`` -> a Game of Écarté with those lines."""
    def make(*lines: str) -> atout.Game:
        path = tmp_path / "variant.atout"
        path.write_text(f'extends "{ECARTE}"\n' + "\n".join(lines) + "\n", encoding="utf-8")
        return atout.load(str(path))
    return make


# -- cards ------------------------------------------------------------------------------------------

def card(game: atout.Game, name: str) -> int:
    """The id of a card named ``K♠``, ``10♥``, ``Ks``, ``10h`` or ``Th``."""
    name = name.strip()
    if name[-1].lower() in SUIT_LETTERS:
        name = name[:-1] + SUIT_LETTERS[name[-1].lower()]
    if name[0] in "tT" and len(name) == 2:
        name = "10" + name[1]
    name = name[:-1].upper() + name[-1]
    for c in range(game.num_cards):
        if game.card_str(c) == name:
            return c
    raise ValueError(f"no card named {name!r}")


def cards(game: atout.Game, names: str) -> list[int]:
    """Ids of the space-separated card names, in order."""
    return [card(game, n) for n in names.split()]


def hand(state, player: int) -> set[int]:
    g = state.game
    return set(state.zones[g.hand_base + player])


def zone(state, name: str, owner: int | None = None) -> list[int]:
    g = state.game
    i = g.zone_base[name] + (owner or 0)
    return state.zones[i]


# -- driving a state -----------------------------------------------------------------------------------

def named(game: atout.Game, name: str) -> int:
    """The action id of a named action slot: ``play``, ``propose``, ``accept``, ``refuse``,
    ``announce_king``, ``done``."""
    return game.slot_index[(name, None)]


def chance(state, names: str) -> None:
    """Apply the cards ``names`` as the next chance outcomes, in order (each must be a chance node)."""
    for c in cards(state.game, names):
        assert state.is_chance_node(), f"expected a chance node before drawing {state.game.card_str(c)}"
        state.apply_action(c)


def arrange_deal(state, eldest: str, dealer: str, turnup: str, first_packet: int = 3) -> None:
    """Deal the five cards of ``eldest`` and of ``dealer`` and turn up ``turnup``.

    The engine deals ``first_packet`` to eldest, ``first_packet`` to the dealer, then the rest to
    eldest and to the dealer, then the turn-up; the outcomes are applied in that order.
    """
    e, d = eldest.split(), dealer.split()
    assert len(e) == len(d) == 5
    k = first_packet
    order = e[:k] + d[:k] + e[k:] + d[k:] + [turnup]
    chance(state, " ".join(order))
    g = state.game
    el = (state.dealer + 1) % g.players
    assert hand(state, el) == set(cards(g, eldest)), "the deal did not give eldest the arranged hand"
    assert hand(state, state.dealer) == set(cards(g, dealer)), "the deal did not give the dealer the arranged hand"


def act(state, *actions: str) -> None:
    """Apply named actions (``propose``, ``accept``...) or cards (``K♠``) of the player to act, in order."""
    g = state.game
    for a in actions:
        assert not state.is_chance_node(), f"expected a decision before {a!r}"
        if (a, None) in g.slot_index:
            state.apply_action(named(g, a))
        else:
            state.apply_action(card(g, a))


def play_cards(state, names: str) -> None:
    """Play the cards ``names`` in order, each by whoever is to play (illegal cards raise)."""
    act(state, *names.split())


def exchange(state, discard: str, draw: str) -> None:
    """The player to act discards the cards ``discard`` (then ``done`` if fewer than 5) and draws ``draw``
    from the stock, in that order."""
    d = discard.split()
    act(state, *d)
    if len(d) < 5:
        act(state, "done")
    assert len(draw.split()) == len(d)
    chance(state, draw)


def eldest_of(state) -> int:
    return (state.dealer + 1) % state.game.players


def points(state) -> list[int]:
    return list(state.vars["points"])

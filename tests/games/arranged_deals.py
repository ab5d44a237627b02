"""Arranged deals for the game tests.

Card ids follow the IR's encoding (docs: ``suit_index * len(ranks) + rank_index``, ranks listed
highest first).  A deal is a sequence of chance outcomes, one card at a time, in the order of the
rule file's ``deal`` statement: for each packet size, each player from the first receives that
many cards.  ``deal_hands`` turns "who should hold what" into that sequence and feeds it.

``layout`` builds the hands used by the whist and solo whist scoring tests.  Each suit is cut into
three groups of four cards and one leftover card; every player holds one card of every group and
one leftover.  Played group by group, every player follows suit in each of the first twelve
tricks, so the trick goes to whoever holds the group's highest card, which the test chooses.  In
the last trick each player holds one card of a different suit: a trump wins it if there is one,
otherwise the card led (the winner of trick twelve leads).
"""
from __future__ import annotations

SUITS = ("spades", "hearts", "diamonds", "clubs")


def card(game, name: str) -> int:
    """Card id of a short name: ``"AS"``, ``"10H"``, ``"QC"`` (rank, then the suit's initial)."""
    rank, letter = name[:-1], name[-1].upper()
    suits = [s[0].upper() for s in game.deck.suits]
    return suits.index(letter) * len(game.deck.ranks) + list(game.deck.ranks).index(rank)


def cards(game, text: str) -> list[int]:
    return [card(game, t) for t in text.split()]


def deal_order(players: int, first: int, packets: list[int]) -> list[int]:
    """Seats in the order they receive cards (``deal P1, P2, ... starting first``)."""
    order = []
    for k in packets:
        for j in range(players):
            order += [(first + j) % players] * k
    return order


def feed(state, outcomes) -> None:
    """Apply chance outcomes (card ids) one by one; each must be asked for."""
    for c in outcomes:
        assert state.is_chance_node(), "the rules asked for no more cards"
        state.apply_action(c)


def deal_hands(state, hands: dict[int, list[int]], packets: list[int], first: int) -> None:
    """Deal ``hands[p]`` (in list order) to each seat ``p``, following ``packets`` from ``first``."""
    queues = {p: list(h) for p, h in hands.items()}
    seq = [queues[p].pop(0) for p in deal_order(state.game.players, first, packets)]
    assert not any(queues.values()), "hands larger than the deal"
    feed(state, seq)


def group_names(suit_letter: str, honours_split: bool) -> list[list[str]]:
    """The three groups and the leftover of one suit (highest card first in each group).

    Normally A K Q J / 10 9 8 7 / 6 5 4 3, leftover 2.  With ``honours_split`` the four honours
    are spread over the groups, so that one side may hold three or four of them:
    A 10 9 8 / K 7 6 5 / Q 4 3 2, leftover J."""
    if honours_split:
        groups = [["A", "10", "9", "8"], ["K", "7", "6", "5"], ["Q", "4", "3", "2"], ["J"]]
    else:
        groups = [["A", "K", "Q", "J"], ["10", "9", "8", "7"], ["6", "5", "4", "3"], ["2"]]
    return [[r + suit_letter for r in g] for g in groups]


def layout(game, tops: dict[str, list[int]], leftovers: dict[str, int], turn_suit: str, dealer: int,
           honours_suit: str | None = None):
    """Hands for a 13-trick deal played group by group.

    ``tops[s]``: for suit letter ``s`` (S, H, D, C), the seats that get the highest card of its
    three groups (they win those tricks).  ``leftovers``: suit letter -> seat (a permutation).
    ``turn_suit``: the suit of the dealer's last card (the turn-up).  ``honours_suit``: the suit
    whose honours are spread (see :func:`group_names`).
    Returns ``(hands, tricks)``: each seat's 13 cards in dealing order, and the twelve group tricks
    as ``{seat: card}`` in playing order followed by the leftovers' trick.
    """
    n = game.players
    hands: dict[int, list[int]] = {p: [] for p in range(n)}
    tricks = []
    for s in "SHDC":
        names = group_names(s, s == honours_suit)
        for g, top in zip(names[:3], tops[s]):
            others = [p for p in range(n) if p != top]
            trick = {top: card(game, g[0])}
            for p, c in zip(others, g[1:]):
                trick[p] = card(game, c)
            tricks.append(trick)
            for p, c in trick.items():
                hands[p].append(c)
    last = {}
    for s, p in leftovers.items():
        last[p] = card(game, group_names(s, s == honours_suit)[3][0])
        hands[p].append(last[p])
    tricks.append(last)
    assert sorted(last) == list(range(n)), "leftovers must go one to each seat"
    # The dealer's last card is the turn-up: put one of his cards of `turn_suit` last.
    suit_index = "SHDC".index(turn_suit)
    turn = next(c for c in hands[dealer] if c // len(game.deck.ranks) == suit_index)
    hands[dealer].remove(turn)
    hands[dealer].append(turn)
    return hands, tricks


def play_tricks(state, tricks) -> None:
    """Play the tricks of :func:`layout`: whoever is to play plays his card of the current group."""
    for trick in tricks:
        for _ in range(len(trick)):
            p = state.current_player()
            state.apply_action(trick[p])


def seat_tricks(state) -> list[int]:
    """Tricks won by each seat in the current deal (the public trick count of the rules)."""
    return list(state.tricks_won)

"""An information-set Monte Carlo tree search player (``--bot ismcts``), for any compiled game.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE
TCIAIG 2012): every iteration deals the cards the bot's seat cannot see again, at random but consistently with
what the seat has seen, then walks one tree of the seat's information sets with UCB1 (the availability count of
each action), expands one action, plays the rest of the deal at random and backs up each seat's value.

What the seat has seen, and nothing else, shapes a deal (:func:`sample_deal`):

* the cards of the zones it sees (its hand, public zones, revealed zones) stay where they are, as do the cards
  of the tricks taken (they were face up on the table);
* every other zone keeps its size (sizes are public) and is filled from the cards the seat has not seen;
* a seat that failed to follow a suit gets no card of it (``state.voids``, public: it was seen);
* the cards the seat itself put face down (its discards, in the log as its own hidden choices) go back to
  the face-down zones that are not hands, when they fit.

The bot never reads a hidden zone's cards, a hidden variable, the history or another seat's hidden choice:
:meth:`State.determinized` builds each sampled state without them, and ``tests/test_ismcts.py`` runs the bot on
a state where such a read raises.  The search budget is a number of iterations (deterministic for a seed;
never a time limit).  A rollout stops at the end of the deal in progress: a finished match is valued by its
returns, an unfinished one by the seat's share of the deal's score (see :func:`value`).
"""
from __future__ import annotations

import math
import random

#: Iterations per decision by default (the figure ``bench/ismcts.py`` reports against).
DEFAULT_ITERATIONS = 200
#: In a rollout, the share of moves played at random; the others are the greedy bot's (engine/bots.py).
ROLLOUT_RANDOM = 0.2
#: UCB1's exploration constant.
EXPLORATION = 0.7


def unseen_cards(state, seat: int) -> tuple[list[int], dict[int, int]]:
    """(the cards ``seat`` cannot place, {zone slot it does not see: its size}) -- without reading those slots.

    A slot is seen when :func:`observe.visible` says so; the tricks taken (``taken``) are known too.  The
    unplaced cards are every card of the deck minus the cards of the slots known."""
    from .observe import visible
    g = state.game
    known, sizes = set(), {}
    for i, slot in enumerate(g.zone_slots):
        if visible(state, i, seat) or slot.name in ("taken", "trick"):
            known.update(state.zones[i])
        else:
            sizes[i] = len(state.zones[i])
    return [c for c in range(g.num_cards) if c not in known], sizes


def sample_deal(state, seat: int, rng: random.Random) -> dict[int, list[int]]:
    """A random deal of the cards ``seat`` cannot place into the zones it does not see, each keeping its size,
    no card of a suit to a seat known void in it, the seat's own discards to face-down zones that are not
    hands when they fit.  Falls back to ignoring the voids when no deal respects them (after 20 tries)."""
    g = state.game
    cards, sizes = unseen_cards(state, seat)
    # (only the seat's own entries are read: another seat's hidden choice and a hidden chance card are not)
    own_hidden = {e[1] for e in state.log if e[0] == seat and not e[2] and 0 <= e[1] < g.num_cards}
    hands = {i for i in sizes if g.zone_slots[i].name == "hand"}
    void_of = {}
    for p, suit in state.voids:
        void_of.setdefault(p, set()).add(suit)
    suit_of = g.suit_of
    for attempt in range(21):
        pool = list(cards)
        rng.shuffle(pool)
        deal: dict[int, list[int]] = {i: [] for i in sizes}
        # the seat's own discards first, to the face-down zones that are not hands
        mine = [c for c in pool if c in own_hidden]
        rest = [c for c in pool if c not in own_hidden]
        for c in mine:
            spots = [i for i in sizes if i not in hands and len(deal[i]) < sizes[i]]
            if spots:
                deal[spots[0]].append(c)
            else:
                rest.append(c)
        # hands with voids are the most constrained: fill them first
        order = sorted(sizes, key=lambda i: (-len(void_of.get(g.zone_slots[i].owner, ())), i))
        ok = True
        for i in order:
            need = sizes[i] - len(deal[i])
            banned = void_of.get(g.zone_slots[i].owner, set()) if i in hands and attempt < 20 else set()
            take = [c for c in rest if suit_of[c] not in banned][:need]
            if len(take) < need:
                ok = False
                break
            taken = set(take)
            rest = [c for c in rest if c not in taken]
            deal[i].extend(take)
        if ok:
            return deal
    raise AssertionError("unreachable: the last try ignores the voids")  # pragma: no cover


def _score(state, seat: int) -> float:
    """The seat's part of the match score: its per-player int match variables, and its side's per-side ones."""
    g = state.game
    total = 0.0
    side = next((k for k, s in enumerate(g.ir.sides) if seat in s), None)
    for v in g.ir.vars:
        if v.scope != "match" or v.type.kind != "int" or v.per is None:
            continue
        val = state.vars[v.name]
        if v.per == "player":
            total += val[seat]
        elif side is not None:
            total += val[side]
    return total


def value(state, start_scores: list[float]) -> list[float]:
    """Each seat's value of a rollout's end: the returns when the match is over (scaled to -1..1 by the largest
    absolute return), else the seat's score gain in the deal less the mean of the others', squashed by tanh."""
    n = state.game.players
    if state.is_terminal():
        r = state.returns()
        m = max(1e-9, max(abs(x) for x in r))
        return [x / m for x in r]
    gains = [_score(state, p) - start_scores[p] for p in range(n)]
    out = []
    for p in range(n):
        others = [gains[q] for q in range(n) if q != p]
        out.append(math.tanh(gains[p] - sum(others) / max(1, len(others))))
    return out


class _Node:
    __slots__ = ("visits", "avail", "total", "children")

    def __init__(self):
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.children: dict[int, _Node] = {}


class ISMCTSBot:
    """``step(state)`` returns the action of the seat to act after ``iterations`` ISMCTS iterations."""
    name = "ismcts"

    def __init__(self, seed: int | None = None, iterations: int = DEFAULT_ITERATIONS):
        from .bots import GreedyBot
        self.rng = random.Random(seed)
        self.iterations = iterations
        self._greedy = GreedyBot(seed)

    def step(self, state) -> int:
        legal = state.decision_actions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player()
        n = state.game.players
        root = _Node()
        for _ in range(self.iterations):
            sim = state.determinized(seat, sample_deal(state, seat, self.rng))
            start = [_score(sim, p) for p in range(n)]
            deal = sim.deal_number
            node, path = root, []
            # selection and expansion, through decisions (chance outcomes are drawn, not in the tree)
            while True:
                self._chance(sim)
                if sim.is_terminal() or sim.deal_number != deal:
                    break
                acts = sim.legal_actions()
                mover = sim.current_player()
                for a in acts:
                    child = node.children.get(a)
                    if child is not None:
                        child.avail += 1
                untried = [a for a in acts if a not in node.children]
                if untried:
                    a = self.rng.choice(untried)
                    node.children[a] = child = _Node()
                    child.avail = 1
                    sim.apply_action(a)
                    path.append((child, mover))
                    break
                a = max(acts, key=lambda x: self._ucb(node.children[x]))
                node = node.children[a]
                sim.apply_action(a)
                path.append((node, mover))
            # rollout to the end of the deal: the greedy bot's moves, with some at random
            while not sim.is_terminal() and sim.deal_number == deal:
                if sim.is_chance_node():
                    self._chance(sim)
                else:
                    sim.apply_action(self._rollout_move(sim))
            vals = value(sim, start)
            for node_, mover in path:
                node_.visits += 1
                node_.total += vals[mover]
        return max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1, -a))

    def _rollout_move(self, sim) -> int:
        acts = sim.legal_actions()
        if len(acts) == 1:
            return acts[0]
        if self.rng.random() < ROLLOUT_RANDOM:
            return self.rng.choice(acts)
        return self._greedy.step(sim)

    def _chance(self, sim) -> None:
        while sim.is_chance_node():
            outcomes = sim.chance_outcomes()
            sim.apply_action(outcomes[self.rng.randrange(len(outcomes))][0])

    @staticmethod
    def _ucb(child: _Node) -> float:
        if child.visits == 0:
            return float("inf")
        return child.total / child.visits + EXPLORATION * math.sqrt(math.log(max(1, child.avail)) / child.visits)

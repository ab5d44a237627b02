"""Play a match at the terminal against bots (``atout play``).

At each of your decisions the table is shown as your seat sees it (your hand,
the turn-up, the trick, the score) with the legal actions numbered.  Answer
with the number, the action's text (``I propose``), or a card (``K♠``, ``ks``,
``10h``).  ``help`` lists the commands; ``quit`` or ctrl-D leaves.
"""
from __future__ import annotations

import random
import sys

from .bots import make_bot
from .game import Game
from .observe import observation_string

QUIT_WORDS = {"quit", "exit", "q"}
SUIT_LETTERS = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}


def _card_aliases(game: Game, card: int) -> set[str]:
    s, i = divmod(card, game.nranks)
    rank = game.deck.ranks[i].lower()
    suit = game.deck.suits[s].lower()
    names = {game.card_str(card).lower(), f"{rank} of {suit}", f"{rank}{suit[0]}", f"{rank} {suit}"}
    return names


def parse_choice(game: Game, state, text: str, legal: list[int]) -> tuple[int | None, str | None]:
    """Interpret ``text`` as one of ``legal``: returns (action, None) or (None, reason)."""
    t = " ".join(text.strip().lower().split())
    if not t:
        return None, "type a number, an action or a card"
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(legal):
            return legal[k - 1], None
        return None, f"{k} is not in the list: choose 1 to {len(legal)}"
    for a in legal:
        if state.action_to_string(a).lower() == t:
            return a, None
    matches = []
    for a in legal:
        if a < game.num_cards:
            words = t.split()
            card_text = words[-1] if words else t
            if t in _card_aliases(game, a) or card_text in _card_aliases(game, a):
                matches.append(a)
        elif state.action_to_string(a).lower().startswith(t):
            matches.append(a)
    if len(matches) == 1:
        return matches[0], None
    if len(matches) > 1:
        return None, f"'{text.strip()}' is ambiguous: " + ", ".join(state.action_to_string(a) for a in matches)
    for c in range(game.num_cards):
        if t in _card_aliases(game, c) or t.split()[-1] in _card_aliases(game, c):
            return None, f"{game.card_str(c)} is not a legal action here"
    return None, f"'{text.strip()}' is not a legal action here"


def play_terminal(game: Game, seat: int, bot: str, seed: int | None, input_fn=input, out=None) -> int:
    """Run an interactive match; returns the exit status (0, also when the player quits)."""
    out = out or sys.stdout

    def say(*a):
        print(*a, file=out, flush=True)

    rng = random.Random(seed)
    bots = {p: make_bot(bot, rng.randrange(2**32)) for p in range(game.players) if p != seat}
    state = game.new_initial_state()
    say(f"{game.ir.title}: you are seat {seat}; opponents: {bot}. Type 'help' for help, 'quit' to leave.")
    deals_seen = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        elif state.current_player() != seat:
            p = state.current_player()
            a = bots[p].step(state)
            text = state.action_to_string(a)
            state.apply_action(a)
            if not state.log[-1][2]:  # a hidden choice (a discard): show that it happened, not the card
                text = text.split(" ")[0] + " a card"
            say(f"seat {p} ({bot}): {text}")
        else:
            legal = state.legal_actions()
            say("")
            say(observation_string(state, seat))
            for i, a in enumerate(legal, 1):
                say(f"  {i:2d}. {state.action_to_string(a)}")
            while True:
                try:
                    text = input_fn(f"seat {seat}> ")
                except EOFError:
                    say("\nbye (the match was left unfinished)")
                    return 0
                if text.strip().lower() in QUIT_WORDS:
                    say("bye (the match was left unfinished)")
                    return 0
                if text.strip().lower() in ("help", "?"):
                    say("answer with the number of an action, its text, or a card (K♠, ks, 10h); "
                        "'quit' or ctrl-D leaves")
                    continue
                action, reason = parse_choice(game, state, text, legal)
                if action is None:
                    say(f"  refused: {reason}")
                    continue
                break
            say(f"you: {state.action_to_string(action)}")
            state.apply_action(action)
        if len(state.deal_log) > deals_seen:
            for d in state.deal_log[deals_seen:]:
                deals_seen += 1
                say(f"-- deal {deals_seen} over: points this deal {d['points']}")
                _score_line(state, say)
    say("")
    say("== match over")
    _score_line(state, say)
    r = state.returns()
    say("returns: " + ", ".join(f"seat {p}: {x:g}" for p, x in enumerate(r)))
    say("you win" if r[seat] == max(r) and r.count(max(r)) == 1 else "you lose" if r[seat] < max(r) else "a tie")
    return 0


def _score_line(state, say) -> None:
    g = state.game
    parts = []
    for v in g.ir.vars:
        if v.scope == "match":
            val = state.vars[v.name]
            parts.append(f"{v.name} {val}" if not isinstance(val, list) else
                         f"{v.name} " + " ".join(f"seat {i}: {x}" for i, x in enumerate(val)))
    say("   score: " + "; ".join(parts))

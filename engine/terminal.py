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
from .observe import _cards, table_string

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
    for a in legal:  # the rule file's name of a named action: 'propose', 'accept', 'announce king'
        if a >= game.num_cards and game.slot(a).name.replace("_", " ") == t.replace("_", " "):
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
            name = game.card_str(c)
            legal_cards = [game.card_str(a) for a in legal if a < game.num_cards]
            hand = []
            if game.hand_base is not None and state.actor >= 0:
                hand = state.zones[game.hand_base + state.actor]
            if c not in hand:
                return None, f"{name} is not in your hand"
            if legal_cards:
                return None, f"{name} may not be played now (the follow rules); legal: " \
                             + " ".join(legal_cards)
            return None, f"{name} is not a legal action here"
    return None, f"'{text.strip()}' is not a legal action here"


def action_label(state, action: int) -> str:
    """The action's text, with the rule file's name of a named action when the text does not say it
    (``Please (accept)``, ``We play (refuse)``)."""
    text = state.action_to_string(action)
    g = state.game
    if action >= g.num_cards and 0 <= action - g.num_cards < len(g.ir.action_slots):
        slot = g.slot(action)
        words = slot.name.split("_")
        if slot.name != "done" and not any(w.lower() in text.lower() for w in words):
            return f"{text} ({' '.join(words)})"
    return text


def play_terminal(game: Game, seat: int, bot: str, seed: int | None, input_fn=input, out=None) -> int:
    """Run an interactive match; returns the exit status (0, also when the player quits).

    ``seat`` is the person's 0-based seat; the other seats are played by ``bot`` (``random`` or
    ``greedy``); ``seed`` fixes the shuffles and the bots.  ``input_fn(prompt)`` reads one answer
    (``EOFError`` leaves, like ``quit``); everything is printed to ``out`` (default stdout).
    """
    out = out or sys.stdout

    def say(*a):
        print(*a, file=out, flush=True)

    rng = random.Random(seed)
    bots = {p: make_bot(bot, rng.randrange(2**32)) for p in range(game.players) if p != seat}
    state = game.new_initial_state()
    say(f"{game.ir.title}: you are seat {seat}; opponents: {bot}. Type 'help' for help, 'quit' to leave.")
    deals_seen = 0
    drawn: dict[int, list[int]] = {}  # draws since the last decision: destination zone -> cards
    last_selecting = False
    while not state.is_terminal():
        before_score = _scores(state)
        trick_before = list(state.trick_cards)
        tricks_before = list(state.tricks_won)
        deal_before = len(state.deal_log)
        if state.is_chance_node():
            dst = state.pending[0][1]
            outcomes = state.chance_outcomes()
            card = outcomes[rng.randrange(len(outcomes))][0]
            in_deal = state.phase == game.ir.match.start
            state.apply_action(card)
            if not in_deal:
                drawn.setdefault(dst, []).append(card)
            actor = None
        else:
            _report_draws(state, seat, drawn, say)
            actor = state.current_player()
            if actor != seat:
                a = bots[actor].step(state)
                text = state.action_to_string(a)
                state.apply_action(a)
                if not state.log[-1][2]:  # a hidden choice (a discard): show that it happened, not the card
                    text = text.split(" ")[0] + " a card"
                say(f"seat {actor} ({bot}): {text}")
                last_selecting = False
            else:
                legal = state.legal_actions()
                say("")
                if last_selecting and state.selecting is not None:
                    hand = state.zones[game.hand_base + seat] if game.hand_base is not None else []
                    say(f"your hand: {_cards(state, hand) or '-'}")
                else:
                    say(table_string(state, seat))
                for i, a in enumerate(legal, 1):
                    say(f"  {i:2d}. {action_label(state, a)}")
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
                last_selecting = state.selecting is not None
        if actor is not None and trick_before and not state.trick_cards and state.history[-1] < game.num_cards:
            # a card completed the trick on the table
            _report_trick(state, seat, trick_before + [(actor, state.history[-1])], tricks_before, deal_before, say)
        if len(state.deal_log) > deals_seen:
            _report_draws(state, seat, drawn, say)
            for d in state.deal_log[deals_seen:]:
                deals_seen += 1
                tricks = d.get("tricks")
                how = ""
                if not d.get("complete", True):
                    shown = _public_zones(state)
                    how = " (the match ended before play" + (f"; {shown}" if shown else "") + ")"
                say(f"-- deal {deals_seen} over{how}: "
                    + (f"tricks {_by_seat(tricks, seat)}; " if tricks and any(tricks) else "")
                    + f"points this deal {_by_seat(d['points'], seat)}")
                _score_line(state, say, seat)
        elif _scores(state) != before_score:
            shown = _public_zones(state) if actor is None else ""
            _score_line(state, say, seat, prefix=f"{shown}: " if shown else "")
    say("")
    say("== match over")
    _score_line(state, say, seat)
    r = state.returns()
    say("returns: " + ", ".join(f"seat {p}: {x:g}" for p, x in enumerate(r)))
    say("you win" if r[seat] == max(r) and r.count(max(r)) == 1 else "you lose" if r[seat] < max(r) else "a tie")
    return 0


def _scores(state):
    return [list(v) if isinstance(v, list) else v for k, v in sorted(state.vars.items())
            if any(x.name == k and x.scope == "match" for x in state.game.ir.vars)]


def _by_seat(values, seat: int) -> str:
    return ", ".join(f"{'you' if p == seat else f'seat {p}'} {v}" for p, v in enumerate(values))


def _public_zones(state) -> str:
    g = state.game
    return "; ".join(f"{slot.label} {' '.join(g.card_str(c) for c in state.zones[i])}"
                     for i, slot in enumerate(g.zone_slots)
                     if slot.visibility == "public" and slot.name != "trick" and state.zones[i])


def _report_trick(state, seat, cards, tricks_before, deal_before, say) -> None:
    """Say who played what to the trick just completed and who took it."""
    g = state.game
    after = state.tricks_won if len(state.deal_log) == deal_before else state.deal_log[deal_before].get("tricks")
    winner = None
    if after is not None:
        winner = next((p for p in range(g.players) if after[p] > tricks_before[p]), None)
    played = ", ".join(f"{'you' if p == seat else f'seat {p}'} {g.card_str(c)}" for p, c in cards)
    who = "" if winner is None else f" -> {'you take' if winner == seat else f'seat {winner} takes'} it"
    say(f"   trick: {played}{who}")


def _report_draws(state, seat, drawn, say) -> None:
    """Say what was drawn since the last decision: your cards by name, others' by number."""
    g = state.game
    for dst, cards in drawn.items():
        slot = g.zone_slots[dst]
        if slot.owner == seat:
            say(f"you draw {' '.join(g.card_str(c) for c in cards)}")
        elif slot.owner is not None:
            say(f"seat {slot.owner} draws {len(cards)} card{'s' if len(cards) != 1 else ''}")
    drawn.clear()


def _score_line(state, say, seat: int | None = None, prefix: str = "") -> None:
    g = state.game
    parts = []
    for v in g.ir.vars:
        if v.scope == "match":
            val = state.vars[v.name]
            parts.append(f"{v.name} {val}" if not isinstance(val, list) else
                         f"{v.name} " + ", ".join(f"{'you' if i == seat else f'seat {i}'} {x}"
                                                  for i, x in enumerate(val)))
    say(f"   {prefix}score: " + "; ".join(parts))

"""Play a match at the terminal against bots (``atout play``).

At each of your decisions the table is shown as your seat sees it (your hand,
the turn-up, the trick, the score) with the legal actions numbered.  Answer
with one move per line: the number, the action's text (``I propose``), its name in the
rules (``propose``), or a card (``K♠``, ``ks``, ``10h``); a line naming two moves, or a
name several legal moves share (``bid``), is refused with the reason, as is a move that
is not legal now.  Enter plays a forced move; ``show`` shows the table again; ``help``
lists the commands and the moves; ``quit`` or ctrl-D leaves.
"""
from __future__ import annotations

import os
import random
import sys
import unicodedata

from .bots import make_bot
from .game import Game
from atout.compiler import ir

from .observe import _cards, labelled_value, seat_label, side_label, table_string, trick_phase_reads, trump_suit

QUIT_WORDS = {"quit", "exit", "q"}
SUIT_LETTERS = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}


def _card_aliases(game: Game, card: int) -> set[str]:
    s, i = divmod(card, game.nranks)
    rank = game.deck.ranks[i].lower()
    suit = game.deck.suits[s].lower()
    names = {game.card_str(card).lower(), f"{rank} of {suit}", f"{rank}{suit[0]}", f"{rank} {suit}"}
    return names


def _norm(text: str) -> str:
    """Lower case, accents and underscores dropped, spaces collapsed: 'Misère_ouverte' -> 'misere ouverte'."""
    t = unicodedata.normalize("NFKD", text.lower())
    t = "".join(ch for ch in t if not unicodedata.combining(ch))
    return " ".join(t.replace("_", " ").split())


def _aliases(game: Game, state, a: int) -> set[str]:
    """Every way to name action ``a`` in this state: its text ('bid misere ouverte', 'play k♠'), a card's
    names alone or after the verb ('ks', 'play 10h'), a named action's name in the rules ('propose',
    'bid', which several bids share) and a parameter's value alone ('solo', 'spades')."""
    text = _norm(state.action_to_string(a))
    names = {text}
    if a < game.num_cards:
        verb = text.split()[0]
        cards = {_norm(x) for x in _card_aliases(game, a)}
        names |= cards | {f"{verb} {c}" for c in cards}
    else:
        slot = game.slot(a)
        names |= {_norm(slot.name), _norm(slot.text)}
        if slot.value is not None and " " in _norm(slot.text):
            value = _norm(slot.text).split(" ", 1)[1]
            names |= {value, f"{_norm(slot.name)} {value}"}
            ident = _enum_value_name(game, slot)
            if ident is not None:      # an enum value's name in the rules, beside its label
                names |= {_norm(ident), f"{_norm(slot.name)} {_norm(ident)}"}
    return names


def _enum_value_name(game: Game, slot) -> str | None:
    for ph in game.ir.phases:
        for act in ph.actions:
            p = act.param
            if act.name == slot.name and p is not None and p.kind == "domain" and p.type.kind == "enum":
                e = next((e for e in game.ir.enums if e.name == p.type.enum), None)
                if e is not None and 0 <= slot.value < len(e.values):
                    return e.values[slot.value]
    return None


def _is_card_word(game: Game, word: str) -> bool:
    return any(word in {_norm(x) for x in _card_aliases(game, c)} for c in range(game.num_cards))


def parse_choice(game: Game, state, text: str, legal: list[int]) -> tuple[int | None, str | None]:
    """Interpret one line ``text`` as exactly one of ``legal``: returns (action, None) or (None, reason).

    A line is a number from the list, or one action named by its text, its name in the rules or a card; a
    name several legal actions share is ambiguous and refused, as is a line naming two actions or a word that
    names nothing; an action of the game that is not legal now is refused with the reason (the follow
    rules, or the condition of the rule that allows it).  An empty line plays the only legal action."""
    t = _norm(text)
    if not t:
        if len(legal) == 1:
            return legal[0], None
        return None, "type a number, an action or a card ('help' lists them)"
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(legal):
            return legal[k - 1], None
        return None, f"{k} is not in the list: choose 1 to {len(legal)}"
    aliases = {a: _aliases(game, state, a) for a in legal}
    exact = [a for a in legal if t in aliases[a]]
    if len(exact) == 1:
        return exact[0], None
    if len(exact) > 1:
        return None, f"'{text.strip()}' is ambiguous: it names " + ", ".join(
            state.action_to_string(a) for a in exact) + "; type the one you mean or its number"
    # an action of the game, but not legal now: say why
    others = [a for a in range(game.num_distinct_actions()) if a not in legal and t in _aliases(game, state, a)]
    if others:
        return None, _why_not(game, state, others[0], legal)
    words = t.split()
    if len(words) > 1 and sum(_is_card_word(game, w) for w in words) > 1:
        return None, f"'{text.strip()}' names {sum(_is_card_word(game, w) for w in words)} cards: one action " \
                     "per line (type one, then the next)"
    prefix = [a for a in legal if any(n == t or n.startswith(t + " ") or (" " not in t and n.startswith(t))
                                      for n in aliases[a])]
    if len(prefix) == 1:
        return prefix[0], None
    if len(prefix) > 1:
        return None, f"'{text.strip()}' is ambiguous: " + ", ".join(state.action_to_string(a) for a in prefix)
    import difflib
    close = difflib.get_close_matches(t, sorted({n for a in legal for n in aliases[a]}), n=1, cutoff=0.75)
    if close:
        return None, f"'{text.strip()}' is not a legal action here; did you mean '{close[0]}'?"
    known = {w for a in legal for n in aliases[a] for w in n.split()}
    unknown = [w for w in words if w not in known and not _is_card_word(game, w)]
    if unknown:
        return None, f"'{unknown[0]}' names no action here ('help' lists the legal ones)"
    return None, f"'{text.strip()}' is not a legal action here ('help' lists the legal ones)"


def _why_not(game: Game, state, a: int, legal: list[int]) -> str:
    """Why action ``a`` (an action of the game) is not legal in ``state``."""
    name = state.action_to_string(a)
    if a < game.num_cards:
        hand = state.zones[game.hand_base + state.actor] if game.hand_base is not None and state.actor >= 0 else []
        card = game.card_str(a)
        legal_cards = [game.card_str(x) for x in legal if x < game.num_cards]
        if a not in hand:
            return f"{card} is not in your hand"
        if legal_cards:
            return f"{card} may not be played now (the follow rules); legal: " + " ".join(legal_cards)
        return f"{card} is not a legal action here"
    from atout.compiler import ir, span_text
    slot = game.slot(a)
    ph = next((p for p in game.ir.phases if p.name == state.phase), None)
    act = next((x for x in ph.actions if x.name == slot.name), None) if ph is not None else None
    if act is None:
        return f"'{name}' belongs to another phase (now: {state.phase})"
    guard = act.guard
    cond = span_text(getattr(guard, "span", None)) if guard is not None else None
    if cond and not isinstance(guard, ir.Const):
        sp = guard.span
        return f"'{name}' is not allowed now: its condition `{cond}` does not hold " \
               f"({os.path.basename(sp.path)}:{sp.line})"
    return f"'{name}' is not legal now"


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
    if game.ir.sides:
        say(f"partners: {partnerships(game, seat)}")
    deals_seen = 0
    announced = (None, None)          # (deal number, trick phase) whose start was announced
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
                legal = state.decision_actions()      # a dead end is a rule error
                say("")
                if last_selecting and state.selecting is not None:
                    hand = state.zones[game.hand_base + seat] if game.hand_base is not None else []
                    say(f"your hand: {_cards(state, hand) or '-'}")
                else:
                    say(table_string(state, seat))
                def moves():
                    for i, a in enumerate(legal, 1):
                        say(f"  {i:2d}. {action_label(state, a)}")
                    if len(legal) == 1:
                        say("  (the only legal move: press Enter to play it)")
                moves()
                while True:
                    try:
                        text = input_fn(f"seat {seat}> ")
                    except (EOFError, OSError, RuntimeError):   # ctrl-D, or no terminal to read from
                        say("\nbye (the match was left unfinished)")
                        return 0
                    if text.strip().lower() in QUIT_WORDS:
                        say("bye (the match was left unfinished)")
                        return 0
                    if text.strip().lower() in ("help", "?"):
                        say("one move per line: its number, its text ('I propose'), its name in the rules "
                            "('propose'), or a card (K♠, ks, 10h, 'play 10h'); Enter plays a forced move; "
                            "'show' shows the table again; 'quit' or ctrl-D leaves.  Your moves:")
                        moves()
                        continue
                    if text.strip().lower() == "show":
                        say(table_string(state, seat))
                        moves()
                        continue
                    action, reason = parse_choice(game, state, text, legal)
                    if action is None:
                        say(f"  refused: {reason}")
                        continue
                    break
                say(f"you: {state.action_to_string(action)}")
                state.apply_action(action)
                last_selecting = state.selecting is not None
        ph = game.phases.get(state.phase)
        if ph is not None and ph.kind == "trick" and announced != (state.deal_number, state.phase) \
                and not state.pending:
            announced = (state.deal_number, state.phase)
            line = play_announcement(state, seat)
            if line:
                say(f"-- {line}")
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
                gained = deal_gains(state, d, seat)
                say(f"-- deal {deals_seen} over{how}: "
                    + (f"tricks {_by_seat(tricks, seat)}; " if tricks and any(tricks) else "")
                    + (f"this deal: {gained}" if gained else "no score this deal"))
                _score_line(state, say, seat)
        elif _scores(state) != before_score:
            shown = _public_zones(state) if actor is None else ""
            _score_line(state, say, seat, prefix=f"{shown}: " if shown else "")
    say("")
    say("== match over")
    _score_line(state, say, seat)
    r = state.returns()
    say("returns: " + ", ".join(f"seat {p}: {x:g}" for p, x in enumerate(r)))
    say(_outcome(state.game, r, seat))
    return 0


def play_announcement(state, seat: int | None) -> str:
    """What the table is told when a trick phase begins ('play begins: trumps hearts; playing misère
    ouverte; declarer seat 2'): the variables the trick phase and the tables it scores read, as ``seat``
    sees them (a hidden one is left out), that the deal has set (a value other than the initial one);
    '' when there are none.  The variables are in the order of the rule file."""
    g = state.game
    names = trick_phase_reads(g, state.phase)
    trump_var = _trump_var(g, state.phase)
    parts = []
    trick = g.phases[state.phase].trick
    if not (isinstance(trick.trump, ir.Const) and trick.trump.value == -1 and not trick.trump_order):
        t = trump_suit(state)     # a game with trumps says which (or that this deal has none)
        parts.append(f"trumps {g.deck.suits[t]}" if t >= 0 else "no trumps")
    for v in g.ir.vars:
        if v.name not in names or v.name == trump_var or v.visibility == "hidden" \
                or isinstance(state.vars[v.name], list):
            continue
        init = v.init.value if hasattr(v.init, "value") else None
        if state.vars[v.name] == init or (seat is not None and not v.seen_by(seat, None, g.ir.sides)):
            continue
        parts.append(labelled_value(state, v, seat))
    if not parts:
        return ""
    return f"{state.phase} begins: " + "; ".join(parts)


def _trump_var(game: Game, phase: str) -> str | None:
    t = game.phases[phase].trick.trump
    return t.name if isinstance(t, ir.VarRef) else None


def _scores(state):
    return [list(v) if isinstance(v, list) else v for k, v in sorted(state.vars.items())
            if any(x.name == k and x.scope == "match" for x in state.game.ir.vars)]


def _by_seat(values, seat: int) -> str:
    return ", ".join(f"{_seat_name(p, seat)} {v}" for p, v in enumerate(values))


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


_seat_name = seat_label
side_name = side_label


def partnerships(game: Game, seat: int | None) -> str:
    """'you & seat 2 vs seat 1 & seat 3', or '' in a game without sides."""
    if not game.ir.sides:
        return ""
    order = sorted(range(len(game.ir.sides)), key=lambda k: seat not in game.ir.sides[k])
    return " vs ".join(side_name(game, k, seat) for k in order)


def deal_gains(state, deal: dict, seat: int | None) -> str:
    """What a deal changed of each per-player or per-side int match variable ('points you 0, seat 1 2'), as
    ``seat`` may see it ('?' for an entry he does not see; None: everything); '' when it changed nothing."""
    g = state.game
    gains = deal.get("gains") or {"points": deal.get("points", [])}
    return "; ".join(labelled_value(state, g.var_decl[name], seat, list(vals)) for name, vals in gains.items()
                     if any(vals) and name in g.var_decl and g.var_decl[name].visibility != "hidden")


def _outcome(game, r: list, seat: int) -> str:
    """'you win', 'you lose' or 'a tie'; in partnerships the best result shared by exactly one side's members is
    that side's win (as ``atout simulate`` counts it)."""
    best = max(r)
    top = sorted(p for p, x in enumerate(r) if x == best)
    if len(top) == 1:
        return "you win" if top == [seat] else "you lose"
    sides = game.ir.sides
    if sides and any(sorted(side) == top for side in sides):
        return "your side wins" if seat in top else "you lose"
    return "a tie" if seat in top else "you lose"


def _score_line(state, say, seat: int | None = None, prefix: str = "") -> None:
    parts = [labelled_value(state, v, seat) for v in state.game.ir.vars
             if v.scope == "match" and v.visibility != "hidden"]
    say(f"   {prefix}score: " + "; ".join(parts))

"""The terminal table: ``atout play`` and an exported module's ``python OUT.py`` run this one implementation.

Standard library only, and nothing imported from Atout: ``atout export --to python`` copies this file's text
into the module it writes (tests check the copy is verbatim), so the two front ends cannot drift apart.
Everything game-specific comes through a *table adapter*, an object with the attributes and methods below,
which the engine (``engine/terminal.py``, ``EngineTable``) and the exported module (``ModuleTable``) provide:

static, of the game
    ``title``, ``players``, ``sides`` (tuple of seat tuples), ``num_cards``;
    ``card_str(c)``, ``card_parts(c)`` -> (rank name, suit name), ``suit_names`` (tuple);
    ``zone_slots``: (name, owner seat or None, visibility) per zone slot, in slot order;
    ``variables``: ``Variable`` tuples in the order of the rule file;
    ``phase_kind(name)`` ('choice', 'auto', 'trick'); ``trick_reads(name)``: the variables a trick phase
    and the tables it scores read; ``trump_var(name)``: the variable naming its trumps, or None;
    ``has_trumps(name)``: whether its trump can be a suit; ``action_names(a)``: (its name in the rules,
    the name of its enum value or None) for a named action ``a``; ``num_actions`` (distinct action ids);
    ``first_phase`` (the phase a deal starts in: its chance cards are the deal, not draws);
    ``has_trick_phase``; ``decision_actions(state)``: the legal actions at a decision, raising the
    implementation's rule error when there are none (a dead end).
of a state
    ``view(state)`` -> ``View``; ``value_str(var, value)``; ``pending_destination(state)`` (the zone slot
    the next chance card goes to, or None); ``last_public(state)`` (whether the last action was seen by
    all); ``selecting(state)`` (a seat is choosing cards one at a time); ``finished_deal(state, within)`` ->
    (tricks won per seat, {variable: change per seat or side}) of the deal that just ended (``within``: the
    match ended within the deal in progress, not at its end); ``why_not(state, a, legal)`` (why action ``a`` is not legal now, or None).
and the state itself answers the OpenSpiel-shaped calls: ``legal_actions()``, ``action_to_string(a)``,
``apply_action(a)``, ``is_terminal()``, ``is_chance_node()``, ``chance_outcomes()``, ``current_player()``,
``returns()``, ``history``.

Seats are 0-based everywhere; deals are shown 1-based.
"""
import difflib
import sys
import unicodedata
from collections import namedtuple

#: A variable as the table shows it: ``per`` is None, 'player' or 'side'; ``kind`` the type's kind ('int',
#: 'bool', 'player', 'suit', 'rank', 'card' or 'enum'); ``visibility`` None (public), 'public', 'private' or
#: 'hidden'; ``init`` the initial value (a deal variable's value before the deal sets it).
Variable = namedtuple("Variable", "name scope per kind visibility init")

#: What a state shows: ``deal_number`` 0-based; ``mover`` the seat choosing now (the dummy's partner on the
#: dummy's turn), ``actor`` the seat whose turn it is; ``zones`` the cards of each zone slot; ``trick``
#: (seat, card) pairs; ``vars`` name -> value (a list for a per-player or per-side variable); ``trump`` the
#: trump suit's index or -1; ``deal_shown`` the deal a header names (1-based: the one in progress, or at the end
#: of the match the last one played).
View = namedtuple("View", "deal_number dealer phase mover actor terminal chance zones revealed trick "
                          "trick_number tricks_won vars trump deal_shown")

QUIT_WORDS = {"quit", "exit", "q"}


# -- who sees what -------------------------------------------------------------------------------------------
def seat_label(p, seat):
    """'you' for ``seat``'s own seat, else 'seat P'."""
    return "you" if p == seat else "seat %d" % p


def side_label(table, k, seat):
    """Side ``k`` (0-based, in the order of ``sides``) by its players: 'you & seat 2'."""
    members = table.sides[k]
    return " & ".join(seat_label(p, seat) for p in sorted(members, key=lambda p: (p != seat, p)))


def partnerships(table, seat):
    """'you & seat 2 vs seat 1 & seat 3', or '' in a game without sides."""
    if not table.sides:
        return ""
    order = sorted(range(len(table.sides)), key=lambda k: seat not in table.sides[k])
    return " vs ".join(side_label(table, k, seat) for k in order)


def entry_seen(table, v, seat, entry):
    """Whether ``seat`` (None: an onlooker who sees everything) sees entry ``entry`` (a seat or side; None for
    a single value) of variable ``v``: public, its own private entry, its side's; never a hidden one."""
    if seat is None or v.visibility in (None, "public"):
        return True
    if v.visibility == "hidden" or entry is None:
        return False
    if v.per == "side":
        return 0 <= entry < len(table.sides) and seat in table.sides[entry]
    return entry == seat


def labelled_value(table, v, value, seat):
    """``name value`` for a person: per seat ('points you 2, seat 1 ?'), per side ('held you & seat 2 ?, ...');
    an entry ``seat`` does not see is '?'."""
    if isinstance(value, list):
        label = (lambda k: side_label(table, k, seat)) if v.per == "side" else (lambda k: seat_label(k, seat))
        return v.name + " " + ", ".join(
            "%s %s" % (label(k), table.value_str(v, x) if entry_seen(table, v, seat, k) else "?")
            for k, x in enumerate(value))
    return "%s %s" % (v.name, table.value_str(v, value) if entry_seen(table, v, seat, None) else "?")


def cards_text(table, cards):
    return " ".join(table.card_str(c) for c in sorted(cards))


def zone_visible(table, view, i, seat):
    name, owner, vis = table.zone_slots[i]
    if vis == "public" or i in view.revealed:
        return True
    return vis == "private" and owner == seat


# -- the table -----------------------------------------------------------------------------------------------
def table_text(table, view, seat):
    """The table as ``seat`` sees it: the score first, the trumps, your zones, the trick on the table with who
    played what, the tricks won, the other zones by size, then the variables the current phase reads."""
    you = lambda p: seat_label(p, seat)  # noqa: E731
    if view.terminal:
        who = "match over"
    elif view.chance:
        who = "cards being dealt" if view.phase == table.first_phase else "a card being drawn"
    else:
        who = "you to act" if view.mover == seat else "%s to act" % you(view.mover)
        if view.mover != view.actor and view.actor >= 0:
            who += " (for %s, the dummy)" % you(view.actor)
    lines = ["── deal %d · dealer: %s · you are seat %d · %s · %s ──" % (
        view.deal_shown, you(view.dealer), seat, view.phase or "-", who)]
    score_vars = [v for v in table.variables if v.scope == "match" and v.per == "player" and v.kind == "int"]
    for v in score_vars:
        vals = view.vars[v.name]
        lines.append("%s: " % v.name + ", ".join(
            "%s %s" % (you(p), vals[p] if entry_seen(table, v, seat, p) else "?") for p in range(table.players)))
    if view.trump >= 0:
        suit = table.suit_names[view.trump]
        lines.append(("trumps: %s %s" % (suit, SUIT_SYMBOLS.get(suit, ""))).rstrip())
    hidden = []
    for i, (name, owner, vis) in enumerate(table.zone_slots):
        if name == "trick":
            continue
        z = view.zones[i]
        if owner is None:
            label = name
        elif name == "taken":     # the built-in zone of the tricks won: its size counts cards, not tricks
            label = "cards you took" if owner == seat else "cards seat %d took" % owner
        else:
            label = "your %s" % name if owner == seat else "seat %d's %s" % (owner, name)
        if zone_visible(table, view, i, seat):
            if z or owner == seat:
                lines.append("%s: %s" % (label, cards_text(table, z) if z else "-"))
        else:
            hidden.append("%s %d" % (label, len(z)))
    if view.trick:
        lines.append("on the table, trick %d: " % view.trick_number +
                     ", ".join("%s %s" % (you(p), table.card_str(c)) for p, c in view.trick))
    kind = table.phase_kind(view.phase) if view.phase else None
    if kind == "trick":
        lines.append("tricks won: " + ", ".join("%s %d" % (you(p), n) for p, n in enumerate(view.tricks_won)))
    if hidden:
        lines.append("face down (cards): " + ", ".join(hidden))
    shown = None   # in a trick phase, what the play reads (the contract, the declarer), not the auction's state
    if kind == "trick":
        shown = set(table.trick_reads(view.phase))
        shown.discard(table.trump_var(view.phase))          # the trumps line says it
    others = [labelled_value(table, v, view.vars[v.name], seat) for v in table.variables
              if v not in score_vars and v.visibility != "hidden"
              and (shown is None or v.name in shown or v.visibility == "private")]   # its own secrets: always
    if others:
        lines.append("state: " + "; ".join(others))
    return "\n".join(lines)


SUIT_SYMBOLS = {"spades": "♠", "hearts": "♥", "diamonds": "♦", "clubs": "♣"}


def play_announcement(table, view, seat):
    """What the table is told when a trick phase begins ('play begins: no trumps; declarer seat 2; playing
    misère ouverte'): the trumps, then the variables the phase and the tables it scores read that the deal
    has set (a value other than the initial one), as ``seat`` sees them; '' when there is nothing to say."""
    names = table.trick_reads(view.phase)
    trump_var = table.trump_var(view.phase)
    parts = []
    if table.has_trumps(view.phase):
        parts.append("trumps %s" % table.suit_names[view.trump] if view.trump >= 0 else "no trumps")
    for v in table.variables:
        value = view.vars[v.name]
        if v.name not in names or v.name == trump_var or v.visibility == "hidden" or isinstance(value, list):
            continue
        if value == v.init or not entry_seen(table, v, seat, None):
            continue
        parts.append(labelled_value(table, v, value, seat))
    return "%s begins: %s" % (view.phase, "; ".join(parts)) if parts else ""


# -- reading a move ------------------------------------------------------------------------------------------
def norm(text):
    """Lower case, accents and underscores dropped, spaces collapsed: 'Misère_ouverte' -> 'misere ouverte'."""
    t = unicodedata.normalize("NFKD", text.lower())
    t = "".join(ch for ch in t if not unicodedata.combining(ch))
    return " ".join(t.replace("_", " ").split())


def card_aliases(table, card):
    """Every way to type a card: 'k♠', 'king of spades' style 'k of spades', 'ks', 'k spades'."""
    rank, suit = table.card_parts(card)
    rank, suit = rank.lower(), suit.lower()
    return {norm(x) for x in (table.card_str(card), "%s of %s" % (rank, suit), rank + suit[0],
                              "%s %s" % (rank, suit))}


def action_aliases(table, state, a):
    """Every way to name action ``a`` in this state: its text ('bid misere ouverte', 'play k♠'), a card's
    names alone or after the verb ('ks', 'play 10h'), a named action's names in the rules ('propose', 'bid',
    which several bids share, an enum value's name) and a parameter's value alone ('solo', 'spades')."""
    text = norm(state.action_to_string(a))
    names = {text}
    if a < table.num_cards:
        verb = text.split()[0]
        cards = card_aliases(table, a)
        names |= cards | {"%s %s" % (verb, c) for c in cards}
        return names
    rule_name, value_name = table.action_names(a)
    names.add(norm(rule_name))
    if " " in text and value_name is not None:
        value = text.split(" ", 1)[1] if text.split(" ", 1)[0] == norm(rule_name).split(" ")[0] else text
        for v in {value, norm(value_name)}:
            names |= {v, "%s %s" % (norm(rule_name), v)}
    return names


def _is_card_word(table, word):
    return any(word in card_aliases(table, c) for c in range(table.num_cards))


def parse_choice(table, state, text, legal, all_actions):
    """Interpret one line ``text`` as exactly one of ``legal``: returns (action, None) or (None, reason).

    A line is a number from the list, or one action named by its text, its name in the rules or a card; a
    name several legal actions share is ambiguous and refused, as is a line naming two actions or a word that
    names nothing; an action of the game (``all_actions``) that is not legal now is refused with the reason
    (the adapter's ``why_not``).  An empty line plays the only legal action."""
    t = norm(text)
    if not t:
        if len(legal) == 1:
            return legal[0], None
        return None, "type a number, an action or a card ('help' lists them)"
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(legal):
            return legal[k - 1], None
        return None, "%d is not in the list: choose 1 to %d" % (k, len(legal))
    aliases = {a: action_aliases(table, state, a) for a in legal}
    exact = [a for a in legal if t in aliases[a]]
    if len(exact) == 1:
        return exact[0], None
    if len(exact) > 1:
        return None, "'%s' is ambiguous: it names %s; type the one you mean or its number" % (
            text.strip(), ", ".join(state.action_to_string(a) for a in exact))
    others = [a for a in all_actions if a not in legal and t in action_aliases(table, state, a)]
    if len(others) == 1:
        return None, why_not_text(table, state, others[0], legal)
    if others:      # a name several actions share ('bid'), none of them legal now
        names = [state.action_to_string(a) for a in others]
        shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        reason = why_not_text(table, state, others[0], legal)
        head = "'%s' is not allowed now: " % names[0]
        reason = reason[len(head):] if reason.startswith(head) else reason
        return None, "'%s' is not allowed now: none of %s is legal (%s: %s)" % (
            text.strip(), shown, names[0], reason)
    words = t.split()
    if len(words) > 1 and all(w.isdigit() for w in words):
        return None, "'%s' names %d moves: one move per line (type one number, then the next)" % (
            text.strip(), len(words))
    n_cards = sum(_is_card_word(table, w) for w in words)
    if len(words) > 1 and n_cards > 1:
        return None, "'%s' names %d cards: one action per line (type one, then the next)" % (text.strip(), n_cards)
    prefix = [a for a in legal if any(n == t or n.startswith(t + " ") or (" " not in t and n.startswith(t))
                                      for n in aliases[a])]
    if len(prefix) == 1:
        return prefix[0], None
    if len(prefix) > 1:
        return None, "'%s' is ambiguous: %s" % (text.strip(), ", ".join(state.action_to_string(a) for a in prefix))
    close = difflib.get_close_matches(t, sorted({n for a in legal for n in aliases[a]}), n=1, cutoff=0.75)
    if close:
        return None, "'%s' is not a legal action here; did you mean '%s'?" % (text.strip(), close[0])
    known = {w for a in legal for n in aliases[a] for w in n.split()}
    unknown = [w for w in words if w not in known and not _is_card_word(table, w)]
    if unknown:
        return None, "'%s' names no action here ('help' lists the legal ones)" % unknown[0]
    return None, "'%s' is not a legal action here ('help' lists the legal ones)" % text.strip()


def why_not_text(table, state, a, legal):
    """Why action ``a`` (an action of the game) is not legal in ``state``."""
    reason = table.why_not(state, a, legal)
    if reason:
        return reason
    name = state.action_to_string(a)
    if a < table.num_cards:
        view = table.view(state)
        hand = [c for i, (zn, owner, _) in enumerate(table.zone_slots) if zn == "hand" and owner == view.actor
                for c in view.zones[i]]
        card = table.card_str(a)
        legal_cards = [table.card_str(x) for x in legal if x < table.num_cards]
        if a not in hand:
            return "%s is not in your hand" % card
        if legal_cards:
            return "%s may not be played now (the follow rules); legal: %s" % (card, " ".join(legal_cards))
        return "%s is not a legal action here" % card
    return "'%s' is not legal now" % name


def action_label(table, state, a):
    """The action's text, with its name in the rules when the text does not say it (``Please (accept)``)."""
    text = state.action_to_string(a)
    if a >= table.num_cards:
        rule_name = table.action_names(a)[0]
        words = rule_name.split("_")
        if rule_name != "done" and not any(w.lower() in text.lower() for w in words):
            return "%s (%s)" % (text, " ".join(words))
    return text


# -- the match -----------------------------------------------------------------------------------------------
HELP = ("one move per line: its number, its text ('I propose'), its name in the rules ('propose'), or a card "
        "(K♠, ks, 10h, 'play 10h'); Enter plays a forced move; 'show' shows the table again; 'quit' or ctrl-D "
        "leaves.  Your moves:")


def outcome_text(table, r, seat):
    """'you win', 'you lose' or 'a tie'; in partnerships the best result shared by exactly one side's members is
    that side's win (as ``atout simulate`` counts it)."""
    best = max(r)
    top = sorted(p for p, x in enumerate(r) if x == best)
    if len(top) == 1:
        return "you win" if top == [seat] else "you lose"
    if table.sides and any(sorted(side) == top for side in table.sides):
        return "your side wins" if seat in top else "you lose"
    return "a tie" if seat in top else "you lose"


def gains_text(table, gains, seat):
    """What a deal changed (``gains``: variable -> change per seat or side) of each per-player or per-side int
    match variable, as ``seat`` may see it; '' when nothing changed."""
    parts = []
    for v in table.variables:
        delta = gains.get(v.name)
        if delta and any(delta) and v.visibility != "hidden":
            parts.append(labelled_value(table, v, list(delta), seat))
    return "; ".join(parts)


def score_line(table, view, seat, prefix=""):
    parts = [labelled_value(table, v, view.vars[v.name], seat) for v in table.variables
             if v.scope == "match" and v.visibility != "hidden"]
    return "   %sscore: %s" % (prefix, "; ".join(parts))


def _public_zones(table, view):
    return "; ".join("%s %s" % (name if owner is None else "%s[%d]" % (name, owner),
                                " ".join(table.card_str(c) for c in view.zones[i]))
                     for i, (name, owner, vis) in enumerate(table.zone_slots)
                     if vis == "public" and name != "trick" and view.zones[i])


def play_match(table, state, seat, bots, bot_name, rng, input_fn=input, out=None):
    """Run an interactive match from ``state``; returns the exit status (0, also when the player quits).

    ``seat`` is the person's 0-based seat; ``bots`` maps every other seat to a function ``state -> action``
    (``bot_name`` names them in the messages); ``rng`` (a ``random.Random``) draws the chance outcomes.
    ``input_fn(prompt)`` reads one answer (EOFError, or no terminal to read from, leaves like ``quit``);
    everything is printed to ``out`` (default stdout).
    """
    out = out or sys.stdout
    all_actions = None

    def say(*a):
        print(*a, file=out, flush=True)

    say("%s: you are seat %d; opponents: %s. Type 'help' for help, 'quit' to leave." % (table.title, seat, bot_name))
    if table.sides:
        say("partners: %s" % partnerships(table, seat))
    view = table.view(state)
    drawn = {}                    # draws since the last decision: destination zone slot -> cards
    last_selecting = False
    announced = None              # (deal number, phase) of the trick phase whose start was announced
    while not state.is_terminal():
        before = view
        actor = None
        if state.is_chance_node():
            dst = table.pending_destination(state)
            outcomes = state.chance_outcomes()
            card = outcomes[rng.randrange(len(outcomes))][0]
            in_deal = before.phase == table.first_phase    # the deal itself, not a draw
            state.apply_action(card)
            if dst is not None and not in_deal:
                drawn.setdefault(dst, []).append(card)
        else:
            _report_draws(table, seat, drawn, say)
            actor = state.current_player()
            if actor != seat:
                a = bots[actor](state)
                text = state.action_to_string(a)
                state.apply_action(a)
                if not table.last_public(state):   # a hidden choice (a discard): that it happened, not the card
                    text = text.split(" ")[0] + " a card"
                say("seat %d (%s): %s" % (actor, bot_name, text))
                last_selecting = False
            else:
                legal = table.decision_actions(state)      # a dead end raises the rules' error
                say("")
                if last_selecting and table.selecting(state):
                    say("your hand: %s" % (cards_text(table, _hand(table, before, seat)) or "-"))
                else:
                    say(table_text(table, before, seat))

                def moves():
                    for i, a in enumerate(legal, 1):
                        say("  %2d. %s" % (i, action_label(table, state, a)))
                    if len(legal) == 1:
                        say("  (the only legal move: press Enter to play it)")
                moves()
                while True:
                    try:
                        text = input_fn("seat %d> " % seat)
                    except (EOFError, OSError, RuntimeError):   # ctrl-D, or no terminal to read from
                        say("\nbye (the match was left unfinished)")
                        return 0
                    word = text.strip().lower()
                    if word in QUIT_WORDS:
                        say("bye (the match was left unfinished)")
                        return 0
                    if word in ("help", "?"):
                        say(HELP)
                        moves()
                        continue
                    if word == "show":
                        say(table_text(table, table.view(state), seat))
                        moves()
                        continue
                    if all_actions is None:
                        all_actions = range(table.num_actions)
                    action, reason = parse_choice(table, state, text, legal, all_actions)
                    if action is None:
                        say("  refused: %s" % reason)
                        continue
                    break
                say("you: %s" % state.action_to_string(action))
                state.apply_action(action)
                last_selecting = table.selecting(state)
        view = table.view(state)
        deal_over = view.deal_number != before.deal_number or view.terminal
        within = view.terminal and view.deal_number == before.deal_number   # the match ended within the deal
        finished = table.finished_deal(state, within) if deal_over else None
        if actor is not None and before.trick and not view.trick and state.history[-1] < table.num_cards:
            after = finished[0] if deal_over else view.tricks_won
            winner = next((p for p in range(table.players) if after and after[p] > before.tricks_won[p]), None)
            cards = before.trick + [(before.actor, state.history[-1])]
            played = ", ".join("%s %s" % (seat_label(p, seat), table.card_str(c)) for p, c in cards)
            who = "" if winner is None else " -> %s" % ("you take it" if winner == seat else
                                                       "seat %d takes it" % winner)
            say("   trick: %s%s" % (played, who))
        if view.deal_number == before.deal_number and not view.terminal:
            _report_public_takes(table, seat, before, view, say)
        if not view.terminal and not view.chance and view.phase and table.phase_kind(view.phase) == "trick" \
                and announced != (view.deal_number, view.phase):
            announced = (view.deal_number, view.phase)
            line = play_announcement(table, view, seat)
            if line:
                _report_draws(table, seat, drawn, say)     # the last draws of the phase before come first
                say("-- %s" % line)
        if deal_over:
            _report_draws(table, seat, drawn, say)
            tricks, gains = finished
            how = ""
            if within:
                if not any(tricks or []) and table.has_trick_phase:
                    shown = _public_zones(table, view)
                    how = " (the match ended before play%s)" % ("; " + shown if shown else "")
                else:
                    how = " (the match ended during the deal)"
            gained = gains_text(table, gains, seat)
            say("-- deal %d over%s: " % (before.deal_number + 1, how)
                + ("tricks %s; " % ", ".join("%s %d" % (seat_label(p, seat), n) for p, n in enumerate(tricks))
                   if tricks and any(tricks) else "")
                + ("this deal: %s" % gained if gained else "no score this deal"))
            say(score_line(table, view, seat))
        elif _scores(table, view) != _scores(table, before):
            shown = _public_zones(table, view) if actor is None else ""
            say(score_line(table, view, seat, prefix="%s: " % shown if shown else ""))
    say("")
    say("== match over")
    say(score_line(table, table.view(state), seat))
    r = state.returns()
    say("returns: " + ", ".join("seat %d: %g" % (p, x) for p, x in enumerate(r)))
    say(outcome_text(table, r, seat))
    return 0


def _scores(table, view):
    return [view.vars[v.name] for v in table.variables if v.scope == "match"]


def _hand(table, view, seat):
    return [c for i, (name, owner, _) in enumerate(table.zone_slots) if name == "hand" and owner == seat
            for c in view.zones[i]]


def _report_public_takes(table, seat, before, view, say):
    """Say which face-up cards went into a hand in the last step (German Whist: the winner of a trick takes the
    turned-up card), a public fact every seat saw: 'seat 1 takes K♠ (turnup)'."""
    hands = [j for j, (_, owner, _) in enumerate(table.zone_slots) if owner is not None]
    for i, (name, owner, visibility) in enumerate(table.zone_slots):
        if owner is not None or visibility != "public" or name == "trick":
            continue
        for c in before.zones[i]:
            if c in view.zones[i]:
                continue
            j = next((j for j in hands if c in view.zones[j] and c not in before.zones[j]), None)
            if j is not None and table.zone_slots[j][0] == "hand":
                who = table.zone_slots[j][1]
                say("%s %s %s (%s)" % (seat_label(who, seat), "take" if who == seat else "takes",
                                        table.card_str(c), name))


def _report_draws(table, seat, drawn, say):
    """Say what was drawn since the last decision: your cards by name, others' by number."""
    for dst, cards in drawn.items():
        name, owner, _ = table.zone_slots[dst]
        if owner == seat:
            say("you draw %s" % " ".join(table.card_str(c) for c in cards))
        elif owner is not None:
            say("seat %d draws %d card%s" % (owner, len(cards), "s" if len(cards) != 1 else ""))
    drawn.clear()


def random_bot(rng):
    """A bot that picks a legal action uniformly with ``rng`` (the exported module's opponent)."""
    return lambda state: rng.choice(state.legal_actions())


__all__ = ["Variable", "View", "table_text", "play_announcement", "parse_choice", "action_label", "play_match",
           "partnerships", "seat_label", "side_label", "labelled_value", "random_bot", "norm"]

"""What one seat is shown of a match, as plain data (JSON-ready): the structured form of the terminal table.

``atout serve`` (``atout/web/``) sends these dicts to a browser; they carry the same information as
:func:`.observe.observation_string` and :func:`.table_ui.table_text` for that seat, laid out as fields instead
of text, and are built from the same functions and visibility rules (:mod:`.table_ui` over the engine's table
adapter :class:`.terminal.EngineTable`): the zones a seat sees (public zones, its own private zones, zones the
rules revealed) with their cards, every other zone by its size only, the variables as their declarations let
the seat see them (an entry it does not see is left out, a hidden variable is never there), the trick on the
table, the trumps.

Seats are 0-based.  ``seat = -1`` is an onlooker without a seat: public zones and public variables only.
``seat = None`` is the full view (every zone's cards), for replaying a verifier's counterexample, which is full
information anyway; never send it to a player during play.

A card is ``{"card": id, "text": "K♠", "rank": "K", "suit": "spades"}``; a card that a seat may not see is
never in its dicts, neither by id nor by text (``tests/test_web.py`` checks it for every shipped game).
"""
from __future__ import annotations

import json

from . import table_ui
from .replay import zone_phrase
from .terminal import action_label, table_of

#: Suit symbols (the deck's suits without one are shown by name).
SUIT_SYMBOLS = table_ui.SUIT_SYMBOLS


def card_json(game, card: int) -> dict:
    """A card id as ``{"card", "text", "rank", "suit"}``."""
    rank, suit = table_of(game).card_parts(card)
    return {"card": card, "text": game.card_str(card), "rank": rank, "suit": suit}


def _sees_zone(table, view, i: int, seat: int | None) -> bool:
    return seat is None or table_ui.zone_visible(table, view, i, seat)


def _who(p: int, seat: int | None) -> str:
    return table_ui.seat_label(p, seat)


def seat_view(state, seat: int | None) -> dict:
    """The table as ``seat`` sees it, as a dict (see the module docstring for ``seat`` = -1 and None).

    Keys: ``seat``, ``title``, ``players``, ``sides`` (lists of seats), ``deal`` (1-based, the deal a header
    names), ``dealer``, ``phase``, ``phase_kind``, ``chance``, ``terminal``, ``to_act`` (the seat choosing now,
    or None at chance and at the end), ``for_dummy`` (the seat whose cards it plays, when not its own),
    ``status`` (a sentence: 'you to act', 'seat 1 to act', 'cards being dealt', 'match over'), ``trump``
    (``{"suit", "symbol"}`` or None), ``zones`` (one dict per zone slot but the trick: ``name``, ``owner``,
    ``label``, ``size``, ``visible`` and, only when visible, ``cards``), ``trick`` (``[{"seat", ...card}]`` in
    the order played), ``trick_number``, ``tricks_won`` (per seat, in a trick phase, else None), ``scores``
    (per-player or per-side int match variables: ``name``, ``per``, ``entries`` ``[{"label", "value"}]``,
    an entry the seat does not see left out), ``variables`` (``[{"name", "text"}]``: what the terminal table's
    state line shows), ``partnerships``, ``returns`` and ``outcome`` at the end, and ``text``: the terminal
    table (:func:`.table_ui.table_text`) for an actual seat.
    """
    g = state.game
    t = table_of(g)
    view = t.view(state)
    who = seat if seat is not None else -1
    kind = t.phase_kind(view.phase) if view.phase else None
    if view.terminal:
        status, to_act = "match over", None
    elif view.chance:
        status, to_act = ("cards being dealt" if view.phase == t.first_phase else "a card being drawn"), None
    else:
        to_act = view.mover
        status = "you to act" if view.mover == seat else "%s to act" % _who(view.mover, seat)
    zones = []
    for i, (name, owner, _vis) in enumerate(t.zone_slots):
        if name == "trick":
            continue
        cards = view.zones[i]
        z = {"slot": i, "name": name, "owner": owner, "label": zone_phrase(g, i, seat), "size": len(cards),
             "visible": _sees_zone(t, view, i, seat)}
        if z["visible"]:
            z["cards"] = [card_json(g, c) for c in sorted(cards)]
        zones.append(z)
    scores, variables = [], []
    score_names = set()
    for v in t.variables:
        if v.scope == "match" and v.per is not None and v.kind == "int" and v.visibility != "hidden":
            score_names.add(v.name)
            vals = view.vars[v.name]
            entries = []
            for k, x in enumerate(vals):
                if not table_ui.entry_seen(t, v, seat, k):
                    continue
                label = table_ui.side_label(t, k, who) if v.per == "side" else _who(k, who)
                entries.append({"entry": k, "label": label, "value": x})
            scores.append({"name": v.name, "per": v.per, "entries": entries})
    shown = None
    if kind == "trick":
        shown = set(t.trick_reads(view.phase))
        shown.discard(t.trump_var(view.phase))
    for v in t.variables:
        if v.name in score_names or v.visibility == "hidden":
            continue
        if shown is not None and v.name not in shown and v.visibility != "private":
            continue
        value = view.vars[v.name]
        if not isinstance(value, list) and not table_ui.entry_seen(t, v, seat, None):
            continue
        text = table_ui.labelled_value(t, v, value, who)
        variables.append({"name": v.name, "text": text})
    trump = None
    if view.trump >= 0:
        suit = t.suit_names[view.trump]
        trump = {"suit": suit, "symbol": SUIT_SYMBOLS.get(suit, "")}
    out = {
        "seat": seat, "title": t.title, "players": t.players, "sides": [list(s) for s in t.sides],
        "deal": view.deal_shown, "dealer": view.dealer, "phase": view.phase, "phase_kind": kind,
        "chance": view.chance, "terminal": view.terminal, "to_act": to_act,
        "for_dummy": view.actor if (to_act is not None and view.actor >= 0 and view.actor != view.mover) else None,
        "status": status, "trump": trump, "zones": zones,
        "trick": [dict(card_json(g, c), seat=p) for p, c in view.trick], "trick_number": view.trick_number,
        "tricks_won": list(view.tricks_won) if kind == "trick" else None,
        "scores": scores, "variables": variables,
        "partnerships": table_ui.partnerships(t, who) if t.sides else "",
    }
    if view.terminal:
        r = state.returns()
        out["returns"] = r
        out["outcome"] = table_ui.outcome_text(t, r, who) if seat is not None and seat >= 0 else None
    if seat is not None and seat >= 0:
        out["text"] = table_ui.table_text(t, view, seat)
    return out


def legal_moves(state) -> list[dict]:
    """The legal moves of the seat choosing now (``[]`` at chance and at the end): ``action`` (the id),
    ``label`` (its text, with its name in the rules when the text does not say it: ``Please (accept)``), ``text``
    (the engine's text of the action, as records and events have it: ``Please``), ``card`` (the card dict
    for a card action, else None).  Send them to that seat only.  Raises RuleError at a dead end."""
    if state.is_terminal() or state.is_chance_node():
        return []
    g = state.game
    out = []
    for a in table_of(g).decision_actions(state):
        out.append({"action": a, "label": action_label(state, a), "text": state.action_to_string(a),
                    "card": card_json(g, a) if a < g.num_cards else None})
    return out


def refusal(state, seat: int, action) -> str | None:
    """Why seat ``seat`` (0-based) may not play ``action`` now, or None when it may: not its turn, not an action
    id of the game, or the terminal table's reason (the follow rules, the ``when`` condition that forbids it,
    a card not in the hand)."""
    g = state.game
    if state.is_terminal():
        return "the match is over"
    if state.is_chance_node():
        return "cards are being dealt: wait for your turn"
    mover = state.current_player()
    if mover != seat:
        return "it is %s's turn, not yours" % ("seat %d" % mover)
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < g.num_distinct_actions():
        shown = json.dumps(action) if isinstance(action, (int, float, str, bool, type(None), list, dict)) \
            else repr(action)
        return "%s is not an action of this game (an action is an integer 0..%d)" % (
            shown, g.num_distinct_actions() - 1)
    t = table_of(g)
    legal = t.decision_actions(state)
    if action in legal:
        return None
    return table_ui.why_not_text(t, state, action, legal)   # (the terminal table's reasons)


def parse_move(state, text: str) -> tuple[int | None, str | None]:
    """A move typed as at ``atout play`` (a number, a name, a card): (action, None) or (None, reason)."""
    t = table_of(state.game)
    if state.is_terminal() or state.is_chance_node():
        return None, "it is not a seat's turn"
    action, reason = table_ui.parse_choice(t, state, text, t.decision_actions(state), range(t.num_actions))
    if reason is not None:     # the page has no 'help' command: it shows the legal moves as buttons and cards
        reason = reason.replace("('help' lists the legal ones)", "(the page shows the legal ones)") \
            .replace("('help' lists them)", "(the page shows them)")
    return action, reason


# -- what a seat is told of a step ----------------------------------------------------------------------------
def step_events(table, before, state, actor: int, action: int, text: str, public: bool, seat: int | None,
                step: int) -> list[dict]:
    """What ``seat`` is told of one step (``actor`` -1 for chance) that took ``before`` (a View) to ``state``:
    a list of ``{"step", "kind", "text", ...}`` with ``kind`` one of ``move`` (a seat's action; a hidden choice
    of another seat is told without its card: 'seat 1: discard a card'), ``draw`` (a card drawn after the deal:
    yours by name, others' by number), ``trick`` (a completed trick: ``cards``, ``winner``), ``announce`` (a
    trick phase begins), ``deal`` (a deal is over: tricks and gains), ``score`` (a score changed within a deal)
    and ``end`` (the match is over: ``returns``, ``outcome``).  ``text`` was the action's text before it was
    applied; ``public`` whether everyone saw the action.  ``table`` is the engine table adapter."""
    g = state.game
    who = seat if seat is not None else -1
    view = table.view(state)
    ev = []

    def add(kind, text, **kw):
        ev.append(dict(kw, step=step, kind=kind, text=text))
    if actor < 0:
        dst = None
        if before.chance and before.phase != table.first_phase:
            dst = _dest_of_last_draw(table, before, view, action)
        if dst is not None:
            _name, owner, _ = table.zone_slots[dst]
            if owner is not None and owner == seat:
                add("draw", "you draw %s" % g.card_str(action), seat=owner, card=card_json(g, action))
            elif owner is not None:
                add("draw", "%s draws a card" % _who(owner, who), seat=owner)
    else:
        shown = text
        card = action < g.num_cards and (public or actor == seat or seat is None)
        if not (public or actor == seat or seat is None):
            shown = text.split(" ")[0] + " a card"
        by = _who(actor, who)
        if 0 <= before.actor != actor:          # the declarer plays the dummy's card
            by += " (for %s, the dummy)" % _who(before.actor, who)
        add("move", "%s: %s" % (by, shown), seat=actor, card=card_json(g, action) if card else None)
    deal_over = view.deal_number != before.deal_number or view.terminal
    within = view.terminal and view.deal_number == before.deal_number
    finished = table.finished_deal(state, within) if deal_over else None
    if actor >= 0 and before.trick and not view.trick and action < g.num_cards:
        after = finished[0] if deal_over else view.tricks_won
        winner = next((p for p in range(table.players) if after and after[p] > before.tricks_won[p]), None)
        cards = before.trick + [(before.actor, action)]
        played = ", ".join("%s %s" % (_who(p, who), g.card_str(c)) for p, c in cards)
        took = "" if winner is None else " -> %s" % ("you take it" if winner == seat else
                                                     "%s takes it" % _who(winner, who))
        add("trick", "trick: %s%s" % (played, took), winner=winner,
            cards=[dict(card_json(g, c), seat=p) for p, c in cards])
    if not view.terminal and not view.chance and view.phase and table.phase_kind(view.phase) == "trick" \
            and (before.phase != view.phase or before.deal_number != view.deal_number):
        line = table_ui.play_announcement(table, view, who)
        if line:
            add("announce", line)
    if deal_over:
        tricks, gains = finished
        gained = table_ui.gains_text(table, gains, who)
        trick_text = ("tricks %s; " % ", ".join("%s %d" % (_who(p, who), n) for p, n in enumerate(tricks))
                      if tricks and any(tricks) else "")
        add("deal", "deal %d over: %s%s" % (before.deal_number + 1, trick_text,
                                           "this deal: %s" % gained if gained else "no score this deal"),
            deal=before.deal_number + 1)
    elif _scores(table, view) != _scores(table, before):
        add("score", table_ui.score_line(table, view, who).strip())
    if view.terminal:
        r = state.returns()
        add("end", "match over: " + table_ui.score_line(table, view, who).strip(), returns=r,
            outcome=table_ui.outcome_text(table, r, who) if seat is not None and seat >= 0 else None)
    return ev


def _scores(table, view):
    return [view.vars[v.name] for v in table.variables if v.scope == "match"]


def _dest_of_last_draw(table, before, after, card) -> int | None:
    """The zone slot the card drawn by chance went to (None when it went nowhere a seat owns)."""
    for i, z in enumerate(after.zones):
        if card in z and card not in before.zones[i]:
            return i
    return None


__all__ = ["card_json", "seat_view", "legal_moves", "refusal", "parse_move", "step_events"]

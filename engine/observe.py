"""Observations that respect visibility.

A zone slot is visible to a player when it is ``public``, when it is
``private`` and owned by that player, or when the rules revealed it
(``reveal``).  Everything else is shown by size only.  A variable is seen as
its declaration says (``, private``: a per-player entry by its player, a
per-side entry by the side's members; ``, hidden``: by nobody; otherwise by
everyone); an entry not seen shows as ``?``.  ``full_string`` shows
everything (for debugging and replays, never for a bot).
"""
from __future__ import annotations

from atout.compiler import ir

from .game import TERMINAL


def visible(state, slot_index: int, player: int) -> bool:
    slot = state.game.zone_slots[slot_index]
    if slot.visibility == "public" or slot_index in state.revealed:
        return True
    return slot.visibility == "private" and slot.owner == player


def _cards(state, cards) -> str:
    g = state.game
    return " ".join(g.card_str(c) for c in sorted(cards, key=lambda c: (g.suit_of[c], -g.strength_of[c])))


def _header(state) -> list[str]:
    g = state.game
    if state.terminal:
        who = "match over"
    elif state.pending:
        who = "chance"
    else:
        who = f"seat {state.actor} to act"
    return [f"{g.ir.title} | deal {state.deal_number + 1} | dealer seat {state.dealer} | "
            f"phase {state.phase or '-'} | {who}"]


def var_text(state, v, player: int | None) -> str:
    """The value of variable ``v`` (an ``ir.Var``) as ``player`` (0-based; None: everything) sees it:
    ``x=3``, ``x=[1, ?]`` (an entry he does not see is ``?``)."""
    g = state.game
    val = state.vars[v.name]
    sides = g.ir.sides
    if isinstance(val, list):
        shown = [g.value_str(x, v.type) if player is None or v.seen_by(player, k, sides) else "?"
                 for k, x in enumerate(val)]
        return f"{v.name}=[{', '.join(shown)}]"
    return f"{v.name}={g.value_str(val, v.type) if player is None or v.seen_by(player, None, sides) else '?'}"


def seat_label(p: int, player: int | None) -> str:
    """'you' for ``player``'s own seat, else 'seat P' (both 0-based)."""
    return "you" if p == player else f"seat {p}"


def side_label(game, k: int, player: int | None) -> str:
    """Side ``k`` (0-based, in the order of ``sides``) by its players: 'you & seat 2'."""
    members = game.ir.sides[k]
    return " & ".join(seat_label(p, player) for p in sorted(members, key=lambda p: (p != player, p)))


def labelled_value(state, v, player: int | None, values=None) -> str:
    """``name value`` for a person: a per-player variable by seat ('points you 2, seat 1 ?'), a per-side one by
    side ('held you & seat 2 ?, seat 1 & seat 3 ?'); an entry ``player`` does not see is '?'.  ``values``
    (default: the variable's value in ``state``) lets a caller label other figures (a deal's gains)."""
    g = state.game
    val = state.vars[v.name] if values is None else values
    sides = g.ir.sides
    if isinstance(val, list):
        label = (lambda k: side_label(g, k, player)) if v.per == "side" else (lambda k: seat_label(k, player))
        return f"{v.name} " + ", ".join(
            f"{label(k)} {g.value_str(x, v.type) if player is None or v.seen_by(player, k, sides) else '?'}"
            for k, x in enumerate(val))
    return f"{v.name} {g.value_str(val, v.type) if player is None or v.seen_by(player, None, sides) else '?'}"


def _vars(state, player: int | None = None) -> list[str]:
    parts = [var_text(state, v, player) for v in state.game.ir.vars]
    if any(state.tricks_won):
        parts.append(f"tricks=[{', '.join(str(t) for t in state.tricks_won)}]")
    return ["vars: " + " ".join(parts)] if parts else []


def _trick(state) -> list[str]:
    if not state.trick_cards:
        return []
    g = state.game
    played = ", ".join(f"seat {p}: {g.card_str(c)}" for p, c in state.trick_cards)
    return [f"trick {state.trick_number}: {played}"]


def observation_string(state, player: int) -> str:
    """The view of ``player`` (0-based): visible zones in full, hidden ones by size, variables, the trick."""
    g = state.game
    lines = _header(state)
    for i, slot in enumerate(g.zone_slots):
        if slot.name == "trick":
            continue
        z = state.zones[i]
        if visible(state, i, player):
            lines.append(f"{slot.label}: {_cards(state, z) if z else '-'}")
        else:
            lines.append(f"{slot.label}: {len(z)} card{'s' if len(z) != 1 else ''}")
    lines += _trick(state) + _vars(state, player)
    return "\n".join(lines)


def information_state_string(state, player: int) -> str:
    """The observation plus what ``player`` has seen of the history: every public action (named
    actions, cards played to tricks), his own card choices, and '?' for others' hidden choices."""
    seen = []
    for actor, action, public in state.log:
        if actor < 0:
            continue
        if public or actor == player:
            seen.append(f"{actor}:{action}")
        else:
            seen.append(f"{actor}:?")
    return observation_string(state, player) + "\nhistory: " + " ".join(seen)


def full_string(state) -> str:
    """Everything, hidden zones included (debugging, replays)."""
    g = state.game
    lines = _header(state)
    for i, slot in enumerate(g.zone_slots):
        if slot.name == "trick":
            continue
        z = state.zones[i]
        lines.append(f"{slot.label}: {_cards(state, z) if z else '-'}")
    lines += _trick(state) + _vars(state)
    if state.current_player() == TERMINAL:
        lines.append("returns: " + ", ".join(f"{r:g}" for r in state.returns()))
    return "\n".join(lines)


def trump_suit(state) -> int:
    """The trump suit index of the trick phase in force (the current phase if it is a trick phase, else
    the first trick phase), or -1 when there is none or it is not known yet."""
    g = state.game
    phases = [g.phases[state.phase]] if state.phase in g.phases else []
    phases += [p for p in g.phases.values() if p not in phases]
    for ph in phases:
        if ph.kind == "trick" and ph.trick is not None:
            try:
                t = g.compile(ph.trick.trump)(state, {})
            except Exception:  # e.g. a trump read from a zone that is still empty
                return -1
            return t if isinstance(t, int) and 0 <= t < len(g.deck.suits) else -1
    return -1


def trick_phase_reads(game, phase: str) -> set[str]:
    """Names of the variables a trick phase reads: its trick's parts and the tables its blocks score."""
    ph = game.phases[phase]
    names: set[str] = set()
    tables = {t.name: t for t in game.ir.tables}
    seen_tables: set[str] = set()

    def walk(node):
        if isinstance(node, ir.VarRef):
            names.add(node.name)
        elif isinstance(node, ir.Score) and node.table in tables and node.table not in seen_tables:
            seen_tables.add(node.table)
            walk(tables[node.table])
        if isinstance(node, tuple):
            for x in node:
                walk(x)
        elif hasattr(node, "__dataclass_fields__"):
            for f in node.__dataclass_fields__:
                if f != "span":
                    walk(getattr(node, f))
    walk(ph.trick)
    return names


def table_string(state, player: int) -> str:
    """The table as ``player`` (0-based) sees it, for a person at the terminal (``atout play``).

    The same information as :func:`observation_string` (visible zones in full, hidden ones by size,
    public variables), laid out for reading: the score first, the trump suit, your zones, the trick on
    the table with who played what, the tricks won, then everything else.
    """
    from .game import SUIT_SYMBOLS
    g = state.game
    you = lambda p: "you" if p == player else f"seat {p}"  # noqa: E731
    lines = []
    mover = state.player_to_move() if not state.terminal and not state.pending else state.actor
    who = "match over" if state.terminal else ("you to act" if mover == player else f"seat {mover} to act")
    if not state.terminal and mover != state.actor and state.actor >= 0:
        who += f" (for {you(state.actor)}, the dummy)"
    lines.append(f"── deal {state.deal_number + 1} · dealer: {you(state.dealer)} · you are seat {player} · "
                 f"{state.phase or '-'} · {who} ──")
    score_vars = [v for v in g.ir.vars if v.scope == "match" and v.per == "player" and v.type.kind == "int"]
    for v in score_vars:
        vals = state.vars[v.name]
        lines.append(f"{v.name}: " + ", ".join(
            f"{you(p)} {vals[p] if v.seen_by(player, p) else '?'}" for p in range(g.players)))
    trump = trump_suit(state)
    if trump >= 0:
        suit = g.deck.suits[trump]
        lines.append(f"trumps: {suit} {SUIT_SYMBOLS.get(suit, '')}".rstrip())
    hidden = []
    for i, slot in enumerate(g.zone_slots):
        if slot.name == "trick":
            continue
        z = state.zones[i]
        if slot.owner is None:
            label = slot.name
        elif slot.name == "taken":     # the built-in zone of the tricks won: its size counts cards, not tricks
            label = "cards you took" if slot.owner == player else f"cards seat {slot.owner} took"
        else:
            label = f"your {slot.name}" if slot.owner == player else f"seat {slot.owner}'s {slot.name}"
        if visible(state, i, player):
            if z or slot.owner == player:
                lines.append(f"{label}: {_cards(state, z) if z else '-'}")
        else:
            hidden.append(f"{label} {len(z)}")
    if state.trick_cards:
        played = ", ".join(f"{you(p)} {g.card_str(c)}" for p, c in state.trick_cards)
        lines.append(f"on the table, trick {state.trick_number}: {played}")
    if g.phases.get(state.phase) is not None and g.phases[state.phase].kind == "trick":
        lines.append("tricks won: " + ", ".join(f"{you(p)} {n}" for p, n in enumerate(state.tricks_won)))
    if hidden:
        lines.append("face down (cards): " + ", ".join(hidden))
    ph = g.phases.get(state.phase)
    shown = None   # in a trick phase, what the play reads (the contract, the declarer), not the auction's state
    if ph is not None and ph.kind == "trick":
        shown = trick_phase_reads(g, state.phase)
        if isinstance(ph.trick.trump, ir.VarRef):
            shown.discard(ph.trick.trump.name)          # the trumps line says it
    others = [labelled_value(state, v, player) for v in g.ir.vars
              if v not in score_vars and v.visibility != "hidden" and (shown is None or v.name in shown)]
    if others:
        lines.append("state: " + "; ".join(others))
    return "\n".join(lines)

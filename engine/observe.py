"""Observations that respect visibility.

A zone slot is visible to a player when it is ``public``, when it is
``private`` and owned by that player, or when the rules revealed it
(``reveal``).  Everything else is shown by size only.  Variables are public
(rule files keep secrets in zones).  ``full_string`` shows everything (for
debugging and replays, never for a bot).
"""
from __future__ import annotations

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


def _vars(state) -> list[str]:
    g = state.game
    parts = []
    for v in g.ir.vars:
        val = state.vars[v.name]
        if isinstance(val, list):
            parts.append(f"{v.name}=[{', '.join(g.value_str(x, v.type) for x in val)}]")
        else:
            parts.append(f"{v.name}={g.value_str(val, v.type)}")
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
    lines += _trick(state) + _vars(state)
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

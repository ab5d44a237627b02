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
from .recall import recall_tokens


def visible(state, slot_index: int, player: int) -> bool:
    slot = state.game.zone_slots[slot_index]
    if slot.visibility == "public" or slot_index in state.revealed:
        return True
    return slot.visibility == "private" and slot.owner == player


def _cards(state, cards) -> str:
    g = state.game
    return " ".join(g.card_str(c) for c in sorted(cards, key=lambda c: (g.suit_of[c], -g.strength_of[c])))


def deal_shown(state) -> int:
    """The deal a header names (1-based): the one in progress, or at the end of the match the last one played
    (a match that ended with its third deal says deal 3, not 4)."""
    if state.terminal and state.deal_log:
        return len(state.deal_log)
    return state.deal_number + 1


def _header(state) -> list[str]:
    g = state.game
    if state.terminal:
        who = "match over"
    elif state.pending:
        who = "chance"
    else:
        who = f"seat {state.actor} to act"
    return [f"{g.ir.title} | deal {deal_shown(state)} | dealer seat {state.dealer} | "
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
    from .table_ui import seat_label as label
    return label(p, player)


def side_label(game, k: int, player: int | None) -> str:
    """Side ``k`` (0-based, in the order of ``sides``) by its players: 'you & seat 2'."""
    from .table_ui import side_label as label
    from .terminal import table_of
    return label(table_of(game), k, player)


def labelled_value(state, v, player: int | None, values=None) -> str:
    """``name value`` for a person: a per-player variable by seat ('points you 2, seat 1 ?'), a per-side one by
    side ('held you & seat 2 ?, seat 1 & seat 3 ?'); an entry ``player`` does not see is '?'.  ``v`` is an
    ``ir.Var``; ``values`` (default: the variable's value in ``state``) lets a caller label other figures (a
    deal's gains)."""
    from .table_ui import labelled_value as label
    from .terminal import table_of
    t = table_of(state.game)
    var = next(x for x in t.variables if x.name == v.name)
    return label(t, var, state.vars[v.name] if values is None else values, player)


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


def information_state_log(state, player: int | None) -> list[str]:
    """What ``player`` (0-based; -1: the public observer, what every seat sees; None: everything) has observed
    of the match, in order, one token per log entry (:func:`.recall.recall_tokens`): every chance outcome as he saw
    it (the card when he sees the zone it went to), every action as he saw it (another seat's hidden choice as
    ``P:?``), zones shown, cards moved by the rules, the changes of the variables he sees, phases and deals.  It
    only grows along a match (perfect recall)."""
    g = state.game
    return recall_tokens(state.log, player, [v.name for v in g.ir.vars], [p.name for p in g.ir.phases])


def information_state_string(state, player: int) -> str:
    """The information state of ``player`` (0-based), perfect recall: his observation now (what he sees at this
    node, the seat to act included), then ``history:`` and his view of the log (:func:`information_state_log`),
    everything he observed before.  Two histories he cannot tell apart give the same string; two he can tell apart
    give different ones."""
    return observation_string(state, player) + "\nhistory: " + " ".join(information_state_log(state, player))


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
    variables as their visibility allows), laid out for reading: the score first, the trump suit, your zones,
    the trick on the table with who played what, the tricks won, then the variables the phase reads.  The
    layout is :func:`.table_ui.table_text`, which the exported module shares.
    """
    from .table_ui import table_text
    from .terminal import table_of
    t = table_of(state.game)
    return table_text(t, t.view(state), player)


def var_encoding(g: ir.Game) -> list[tuple[str, int, int]]:
    """How each variable is encoded in a tensor, in declaration order: (kind 'num' (one number) or 'onehot' (its
    categories, ``none`` first), categories for onehot, copies (1, the players or the sides)).  Shared by
    :func:`observation_tensor` and the OpenSpiel export."""
    out = []
    for v in g.vars:
        t = v.type
        copies = 1 if v.per is None else (g.players if v.per == "player" else max(1, len(g.sides)))
        if t.kind == "player":
            out.append(("onehot", g.players + 1, copies))
        elif t.kind == "suit":
            out.append(("onehot", len(g.deck.suits) + 1, copies))
        elif t.kind == "rank":
            out.append(("onehot", len(g.deck.ranks) + 1, copies))
        elif t.kind == "card":
            out.append(("onehot", g.deck.size + 1, copies))
        elif t.kind == "enum":
            n = next(len(e.values) for e in g.enums if e.name == t.enum)
            out.append(("onehot", n + 1, copies))
        else:
            out.append(("num", 1, copies))
    return out


def observation_tensor_size(game) -> int:
    """The length of :func:`observation_tensor` for ``game`` (an engine Game)."""
    g = game.ir
    nslot, nc, n = len(game.zone_slots), game.num_cards, game.players
    return n + (n + 2) + n + (len(g.phases) + 1) + nslot * nc + nslot + n * nc + n + \
        sum(k * c for _, k, c in var_encoding(g))


def observation_tensor(state, player: int) -> list[float]:
    """What ``player`` (0-based) sees, as numbers (for RL; PettingZoo's observation), in this order:
    his seat (one-hot, players), the player to act (one-hot: seats, chance, terminal), the dealer (one-hot), the
    phase (one-hot: none first, then the phases in rule-file order), each zone slot's cards when he sees them
    (slots x cards, 0/1; an unseen zone is all 0), every zone's size, the trick (seat x card: who played which
    card), the tricks won per seat, then each variable (:func:`var_encoding`; an entry he does not see is 0).
    Raises ValueError for a seat that is not one."""
    g = state.game
    n, nc = g.players, g.num_cards
    if not (isinstance(player, int) and 0 <= player < n):
        raise ValueError(f"no seat {player!r}: the seats are 0..{n - 1}")
    out = [0.0] * observation_tensor_size(g)
    out[player] = 1.0
    k = n
    cur = state.current_player()
    out[k + (cur if cur >= 0 else (n if cur == -1 else n + 1))] = 1.0
    k += n + 2
    if state.dealer >= 0:
        out[k + state.dealer] = 1.0
    k += n
    names = [p.name for p in g.ir.phases]
    out[k + (names.index(state.phase) + 1 if state.phase in names else 0)] = 1.0
    k += len(names) + 1
    nslot = len(g.zone_slots)
    for i in range(nslot):
        if visible(state, i, player):
            for c in state.zones[i]:
                out[k + i * nc + c] = 1.0
    k += nslot * nc
    for i in range(nslot):
        out[k + i] = float(len(state.zones[i]))
    k += nslot
    for p, c in state.trick_cards:
        out[k + p * nc + c] = 1.0
    k += n * nc
    for p in range(n):
        out[k + p] = float(state.tricks_won[p])
    k += n
    sides = g.ir.sides
    for v, (kind, cats, copies) in zip(g.ir.vars, var_encoding(g.ir)):
        val = state.vars[v.name]
        entries = val if isinstance(val, list) else [val]
        for e, x in enumerate(entries):
            seen = v.seen_by(player, e if isinstance(val, list) else None, sides)
            if kind == "num":
                if seen:
                    out[k] = float(x)
                k += 1
            else:
                if seen and -1 <= x < cats - 1:
                    out[k + x + 1] = 1.0
                k += cats
    return out

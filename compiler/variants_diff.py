"""What a variant changes: the IR of a variant compared with the IR of its base, by name (a phase's actions
and a table's rows one by one)."""
from __future__ import annotations

import os

from . import ir
from .parse import parse_text


def describe_variant(path: str) -> list[str]:
    """Lines describing how the game at ``path`` differs from the game it extends ([] if it extends none)."""
    from . import compile_file, read_source
    rf = parse_text(read_source(path), path)
    if rf.extends is None:
        return []
    base_path = os.path.normpath(os.path.join(os.path.dirname(path), rf.extends))
    declared = {k for k, v in (("match", rf.match), ("deck", rf.deck)) if v is not None}
    written = {(kind, d.name) for kind, ds in (("option", rf.options), ("zone", rf.zones), ("var", rf.vars),
                                               ("phase", rf.phases), ("table", rf.tables),
                                               ("property", rf.properties)) for d in ds}
    base = compile_file(base_path)
    written |= {("table", r.table) for r in rf.row_overrides if getattr(r, "table", None)}
    for r in rf.removes:
        written.add((r.what, r.name))
        if r.what == "row":     # 'remove row R' (every table with such a row) or 'remove row T.R'
            written |= {("table", t.name) for t in base.tables
                        if (r.table is None or r.table == t.name) and any(x.name == r.name for x in t.rows)}
        elif r.what == "action":
            written |= {("phase", ph.name) for ph in base.phases if any(a.name == r.name for a in ph.actions)}
    return diff_games(base, compile_file(path), base_path, declared, written)


def diff_games(base: ir.Game, new: ir.Game, base_path: str, declared: set | None = None,
               written: set | None = None) -> list[str]:
    """The lines ``atout check`` prints for a variant.  ``declared``: the blocks the variant itself gives
    ('match', 'deck'), reported when they differ (an option's new value changes the compiled match too).
    ``written``: the ``(kind, name)`` the variant's text declares or overrides; a changed one it does not
    is marked as following from another change (the number of players, an option, a definition)."""
    declared = {"match", "deck"} if declared is None else declared
    lines = [f"variant of {base_path} ({base.name}):"]
    if (base.name, base.title) != (new.name, new.title):
        lines.append(f"  ~ game: {base.name} \"{base.title}\" -> {new.name} \"{new.title}\"")
    if base.players != new.players:
        lines.append(f"  ~ players: {base.players} -> {new.players}")
    if base.sides != new.sides:
        lines.append("  ~ partnerships changed")
    if "deck" in declared and base.deck != new.deck:
        lines.append("  ~ deck changed")
    if "match" in declared and base.match != new.match:
        lines.append("  ~ match changed")
    for kind, a, b in (("option", base.options, new.options), ("zone", base.zones, new.zones),
                       ("var", base.vars, new.vars), ("phase", base.phases, new.phases),
                       ("table", base.tables, new.tables), ("property", base.properties, new.properties)):
        da = {x.name: x for x in a}
        db = {x.name: x for x in b}
        for name in da:
            if name not in db:
                lines.append(f"  - removed {kind} {name}")
            elif da[name] != db[name]:
                at = len(lines)
                if kind == "option":
                    lines.append(f"  ~ option {name}: {da[name].text} -> {db[name].text}")
                elif kind == "phase":
                    acts_a = {x.name: x for x in da[name].actions}
                    acts_b = {x.name: x for x in db[name].actions}
                    detail = [f"action {n} changed" for n in acts_a if n in acts_b and acts_a[n] != acts_b[n]]
                    detail += [f"action {n} added" for n in acts_b if n not in acts_a]
                    detail += [f"action {n} removed" for n in acts_a if n not in acts_b]
                    if da[name].trick != db[name].trick:
                        detail.append("trick play changed")
                    if da[name].body != db[name].body:
                        detail.append("effects changed")
                    lines.append(f"  ~ phase {name}: {', '.join(detail) or 'changed'}")
                elif kind == "table":
                    lines.append(f"  ~ table {name}: {', '.join(_row_changes(da[name], db[name])) or 'changed'}")
                else:
                    lines.append(f"  ~ {kind} {name} changed")
                if written is not None and (kind, name) not in written:
                    lines[at] += " (not written in the variant: it reads what changed above)"
        for name in db:
            if name not in da:
                lines.append(f"  + added {kind} {name}")
    if len(lines) == 1:
        lines.append("  (no change)")
    return lines


def _row_changes(a: ir.Table, b: ir.Table) -> list[str]:
    """How table ``b`` differs from ``a``, row by row: 'row R changed' (in place), 'row R added' (with its
    position when it is not at the end), 'row R removed', and 'rows reordered' when the rows both have are in
    another order.  Unnamed rows are named by position (row1, row2, ...) as the compiler names them."""
    ra = {r.name: r for r in a.rows}
    rb = {r.name: r for r in b.rows}
    order_b = [r.name for r in b.rows]
    out = [f"row {n} changed" for n in ra if n in rb and ra[n] != rb[n]]
    for i, n in enumerate(order_b):
        if n not in ra:
            later = [m for m in order_b[i + 1:] if m in ra]
            out.append(f"row {n} added" + (f" before row {later[0]}" if later else ""))
    out += [f"row {n} removed" for n in ra if n not in rb]
    if [n for n in ra if n in rb] != [n for n in order_b if n in ra]:
        out.append("rows reordered")
    return out

"""Pass 2: variants.  A rule file that says ``extends "base.atout"`` is merged with its base.

The variant's declarations are laid over the base's, by name:

* a declaration whose name is new is added;
* ``override option|phase|action|table|property|def NAME`` replaces the base's declaration of that
  name in place (an ``override action`` inside a phase replaces one action of that phase);
* a ``phase NAME { ... }`` block naming a base phase adds its actions to it (``override action`` replaces
  one); a ``table NAME { ... }`` block naming a base table likewise appends its rows at the end of the
  table (``override row ROW`` replaces one row in place, keeping its position: rows apply in order);
* ``override row TABLE.ROW: COND => { ... }`` at the top level replaces row ROW of table TABLE in place;
* ``remove phase|action|table|row|property|option|var|zone|def NAME`` deletes it (``remove row TABLE.ROW``
  deletes that table's row only);
* redeclaring a base name without ``override`` is a duplicate (E102), and so is adding a row whose name the
  table already has; overriding or removing a name the base does not have is E118, reported at the
  variant's line with a did-you-mean hint.

The result is one :class:`~atout.compiler.syntax.RuleFile`, compiled as if written out in full.
"""
from __future__ import annotations

from dataclasses import replace

from . import syntax as S
from .diagnostics import Reporter, did_you_mean

OVERRIDABLE = {"option", "phase", "table", "property", "def"}   # a var or a zone is removed and declared again
_KINDS = {"option": "options", "phase": "phases", "table": "tables", "property": "properties", "var": "vars",
          "zone": "zones", "def": "defs"}


def merge(base: S.RuleFile, variant: S.RuleFile, rep: Reporter) -> S.RuleFile:
    """Lay ``variant`` over ``base`` and return the merged rule file (errors go to ``rep``)."""
    lists = {k: list(getattr(base, attr)) for k, attr in _KINDS.items()}

    def names(kind):
        return [x.name for x in lists[kind]]

    for r in variant.removes:      # first, so that a removed var or zone can be declared again
        what = r.what
        if r.table is not None and what != "row":
            rep.error("E118", f"'remove {what} {r.table}.{r.name}': only a row is named TABLE.NAME", r.table_span,
                      f"write 'remove {what} {r.name}'")
            continue
        if what in ("action", "row"):
            continue
        existing = names(what)
        if r.name not in existing:
            rep.error("E118", f"cannot remove {what} '{r.name}': the base game has none", r.span,
                      did_you_mean(r.name, existing))
            continue
        del lists[what][existing.index(r.name)]
    for kind, attr in _KINDS.items():
        for item in getattr(variant, attr):
            existing = names(kind)
            override = getattr(item, "override", False)
            span = getattr(item, "name_span", item.span)
            if kind == "phase" and not override and item.name in existing:
                # A phase block in a variant that names a base phase may override single actions.
                lists[kind][existing.index(item.name)] = _merge_phase(lists[kind][existing.index(item.name)],
                                                                      item, rep)
                continue
            if kind == "table" and not override and item.name in existing:
                # Likewise a table block naming a base table adds rows and may override single rows.
                lists[kind][existing.index(item.name)] = _merge_table(lists[kind][existing.index(item.name)],
                                                                      item, rep)
                continue
            if kind == "table" and (not override or item.name in existing):
                _no_row_overrides(item, rep, None if override else existing)
            if override:
                if item.name not in existing:
                    rep.error("E118", f"cannot override {kind} '{item.name}': the base game has none", span,
                              did_you_mean(item.name, existing))
                    continue
                lists[kind][existing.index(item.name)] = item
            elif item.name in existing:
                rep.error("E102", f"duplicate name '{item.name}': the base game already has this {kind}", span,
                          f"write 'override {kind} {item.name}' to replace it" if kind in OVERRIDABLE else
                          f"a {kind} cannot be overridden: write 'remove {kind} {item.name}', then declare it "
                          f"again, or give it another name")
            else:
                lists[kind].append(item)
    for r in variant.row_overrides:     # override row TABLE.ROW: after the tables, which may have added it
        tables = names("table")
        if r.table not in tables:
            rep.error("E118", f"cannot override row '{r.table}.{r.name}': the base game has no table '{r.table}'",
                      r.table_span, did_you_mean(r.table, tables) or _listed("tables", tables))
            continue
        i = tables.index(r.table)
        lists["table"][i] = _merge_table(lists["table"][i], S.TableDecl(r.table, (r,), span=r.span,
                                                                          name_span=r.table_span), rep)
    removed: dict = {}
    for r in variant.removes:      # actions and rows last: a phase or table block above may add them
        if r.what in ("action", "row"):
            _remove_nested(lists, r, rep, removed)
    return S.RuleFile(
        path=variant.path,
        game=variant.game or base.game,
        title=variant.title or base.title,
        extends=None,
        players=variant.players if variant.players is not None else base.players,
        sides=variant.sides or base.sides,
        deck=variant.deck or base.deck,
        options=tuple(lists["option"]),
        enums=base.enums + variant.enums,
        zones=tuple(lists["zone"]),
        vars=tuple(lists["var"]),
        phases=tuple(lists["phase"]),
        tables=tuple(lists["table"]),
        match=variant.match or base.match,
        properties=tuple(lists["property"]),
        removes=(),
        misplaced=base.misplaced + variant.misplaced,
        span=variant.span,
        extends_span=variant.extends_span,
        players_span=variant.players_span if variant.players is not None else base.players_span,
        game_span=variant.game_span if variant.game is not None else base.game_span,
        defs=tuple(lists["def"]),
    )


def _merge_phase(base: S.PhaseDecl, part: S.PhaseDecl, rep: Reporter) -> S.PhaseDecl:
    actions = list(base.actions)
    for a in part.actions:
        existing = [x.name for x in actions]
        if a.override:
            if a.name not in existing:
                rep.error("E118", f"cannot override action '{a.name}': phase '{base.name}' has none", a.name_span,
                          did_you_mean(a.name, existing))
                continue
            actions[existing.index(a.name)] = a
        elif a.name in existing:
            rep.error("E102", f"duplicate action '{a.name}' in phase '{base.name}'", a.name_span,
                      f"write 'override action {a.name}' to replace it")
        else:
            actions.append(a)
    return replace(base, actions=tuple(actions),
                   actor=part.actor if part.actor is not None else base.actor,
                   do=part.do if part.do is not None else base.do,
                   trick=part.trick if part.trick is not None else base.trick)


def _listed(what: str, names) -> str | None:
    """A hint listing the names there are (None when there are none)."""
    names = [n for n in names if n is not None]
    if not names:
        return None
    shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
    return f"the {what} are: {shown}"


def _row_names_hint(table: S.TableDecl, name: str) -> str | None:
    """Did-you-mean among the rows of ``table``, else the list of its row names (and a word on unnamed rows)."""
    named = [r.name for r in table.rows if r.name is not None]
    hint = did_you_mean(name, named) or _listed(f"rows of table '{table.name}'", named)
    unnamed = len(table.rows) - len(named)
    if unnamed and not did_you_mean(name, named):
        note = (f"{unnamed} of its rows {'has' if unnamed == 1 else 'have'} no name: only 'override table "
                f"{table.name}' can change {'it' if unnamed == 1 else 'them'}")
        hint = f"{hint}; {note}" if hint else note
    return hint


def _merge_table(base: S.TableDecl, part: S.TableDecl, rep: Reporter) -> S.TableDecl:
    """``base`` with the rows of a variant's ``table NAME { ... }`` block (or one ``override row NAME.ROW``)
    laid over it: an ``override row`` replaces the base row of that name at its position; any other row is
    appended after the base's rows, in the order written.  E118 for an override of a row the table does not
    have (or of an unnamed row), E102 for a new row whose name the table already has."""
    rows = list(base.rows)
    for r in part.rows:
        existing = [x.name for x in rows]
        if r.override:
            if r.name is None:
                rep.error("E118", f"'override row' needs the name of the row of table '{base.name}' it replaces",
                          r.name_span, _row_names_hint(base, ""))
                continue
            if r.name not in existing:
                rep.error("E118", f"cannot override row '{r.name}': table '{base.name}' has none", r.name_span,
                          _row_names_hint(replace(base, rows=tuple(rows)), r.name))
                continue
            target = rows[existing.index(r.name)]
            if target.span.path == r.span.path:    # added (or overridden already) by this file, not the base's
                rep.error("E118", f"cannot override row '{r.name}' of table '{base.name}': the base game has none; "
                                  f"this file writes it on line {target.span.line}", r.name_span,
                          f"change the row on line {target.span.line} itself, or override a row of the base")
                continue
            rows[existing.index(r.name)] = replace(r, override=False, table=None)
        elif r.name is not None and r.name in existing:
            first = rows[existing.index(r.name)]
            if first.span.path == r.span.path:     # two new rows of that name in the variant
                rep.error("E102", f"duplicate row '{r.name}' in table '{base.name}'", r.name_span,
                          f"the first row '{r.name}' is on line {first.span.line}; give this one another name")
            else:
                rep.error("E102", f"duplicate row '{r.name}' in table '{base.name}': the base game already has it",
                          r.name_span, f"write 'override row {r.name}' to replace it, or give the new row another "
                                       "name")
        else:
            rows.append(r)
    return replace(base, rows=tuple(rows))


def _no_row_overrides(table: S.TableDecl, rep: Reporter, base_tables: list[str] | None) -> None:
    """E118 for ``override row`` in a table the variant declares whole: a new table (``base_tables``: the names
    the base has) or an ``override table`` (None), whose rows are all new."""
    for r in table.rows:
        if not r.override:
            continue
        if base_tables is None:
            rep.error("E118", f"'override row' inside 'override table {table.name}': the table is replaced whole",
                      r.name_span, f"remove the word 'override' before 'row', or write 'table {table.name} "
                                   "{ ... }' (without 'override') to change single rows")
        else:
            rep.error("E118", f"cannot override row '{r.name}': the base game has no table '{table.name}'",
                      r.name_span, did_you_mean(table.name, base_tables) or _listed("tables", base_tables))


def _remove_nested(lists, r: S.RemoveDecl, rep: Reporter, removed: dict) -> bool:
    """``remove action NAME`` / ``remove row [TABLE.]NAME``, applied after the variant's phase and table blocks.
    E118 when nothing of that name is there (did-you-mean), when it was already removed (``removed``: what this
    file removed so far -> the line), and when this same file writes it (adds or overrides it): the two
    contradict each other."""
    def again() -> bool:
        """E118 (and True) when what ``r`` names is missing because this file removed it already."""
        lines = [line for (what, table, name), line in removed.items()
                 if what == r.what and name == r.name and r.table in (None, table)]
        if lines:
            rep.error("E118", f"cannot remove {r.what} '{r.name}' again: line {lines[0]} removes it", r.span,
                      "remove it once")
        return bool(lines)

    if r.what == "action":
        for i, ph in enumerate(lists["phase"]):
            found = [a for a in ph.actions if a.name == r.name]
            if found:
                if _written_here(found[0], r, "action", rep):
                    return False
                lists["phase"][i] = replace(ph, actions=tuple(a for a in ph.actions if a.name != r.name))
                removed[("action", None, r.name)] = r.span.line
                return True
        if again():
            return False
        rep.error("E118", f"cannot remove action '{r.name}': no phase of the base game has it", r.span)
        return False
    if r.table is not None:
        tables = [t.name for t in lists["table"]]
        if r.table not in tables:
            rep.error("E118", f"cannot remove row '{r.table}.{r.name}': the base game has no table '{r.table}'",
                      r.table_span, did_you_mean(r.table, tables) or _listed("tables", tables))
            return False
        candidates = [tables.index(r.table)]
    else:
        candidates = range(len(lists["table"]))
    for i in candidates:
        t = lists["table"][i]
        found = [row for row in t.rows if row.name == r.name]
        if found:
            if _written_here(found[0], r, "row", rep):
                return False
            lists["table"][i] = replace(t, rows=tuple(row for row in t.rows if row.name != r.name))
            removed[("row", t.name, r.name)] = r.span.line
            return True
    if again():
        return False
    if r.table is not None:
        rep.error("E118", f"cannot remove row '{r.name}': table '{r.table}' has none", r.name_span,
                  _row_names_hint(lists["table"][candidates[0]], r.name))
        return False
    every = [row.name for t in lists["table"] for row in t.rows if row.name is not None]
    rep.error("E118", f"cannot remove row '{r.name}': no table of the base game has a row of that name", r.span,
              did_you_mean(r.name, every))
    return False


def _written_here(item, r: S.RemoveDecl, what: str, rep: Reporter) -> bool:
    """E118 (and True) when ``item``, the action or row ``r`` would remove, is written in the variant itself
    (added, or overridden, by the file that removes it)."""
    if item.span.path != r.span.path:
        return False
    rep.error("E118", f"cannot remove {what} '{r.name}': this file also writes it (line {item.span.line}), "
                      f"adding or overriding it", r.span,
              f"keep one of the two: the 'remove' or the {what} on line {item.span.line}")
    return True


def not_a_variant(rf: S.RuleFile, rep: Reporter) -> None:
    """E118 for ``remove`` and ``override`` in a file that extends nothing (they would silently do nothing)."""
    for r in rf.removes:
        rep.error("E118", "'remove' is only allowed in a variant (a file that extends another)", r.span,
                  "add 'extends \"BASE.atout\"' at the top of the file, or edit the declaration itself")
    items = [*rf.options, *rf.phases, *rf.tables, *rf.properties, *rf.defs, *rf.row_overrides]
    items += [a for ph in rf.phases for a in ph.actions]
    items += [r for t in rf.tables for r in t.rows]
    for item in items:
        if getattr(item, "override", False):
            rep.error("E118", "'override' is only allowed in a variant (a file that extends another)",
                      item.name_span, "remove the word 'override', or add 'extends \"BASE.atout\"' at the top")

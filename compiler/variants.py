"""Pass 2: variants.  A rule file that says ``extends "base.atout"`` is merged with its base.

The variant's declarations are laid over the base's, by name:

* a declaration whose name is new is added;
* ``override option|phase|action|table|property NAME`` replaces the base's declaration of that
  name in place (an ``override action`` inside a phase replaces one action of that phase);
* ``remove phase|action|table|row|property|option|var|zone NAME`` deletes it;
* redeclaring a base name without ``override`` is a duplicate (E102); overriding or removing a name
  the base does not have is E118, reported at the variant's line.

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
    for r in variant.removes:      # actions and rows last: a phase or table block above may add them
        if r.what in ("action", "row"):
            _remove_nested(lists, r, rep)
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


def _remove_nested(lists, r: S.RemoveDecl, rep: Reporter) -> bool:
    if r.what == "action":
        for i, ph in enumerate(lists["phase"]):
            names = [a.name for a in ph.actions]
            if r.name in names:
                lists["phase"][i] = replace(ph, actions=tuple(a for a in ph.actions if a.name != r.name))
                return True
        rep.error("E118", f"cannot remove action '{r.name}': no phase of the base game has it", r.span)
        return False
    for i, t in enumerate(lists["table"]):
        names = [row.name for row in t.rows]
        if r.name in names:
            lists["table"][i] = replace(t, rows=tuple(row for row in t.rows if row.name != r.name))
            return True
    rep.error("E118", f"cannot remove row '{r.name}': no table of the base game has a row of that name", r.span)
    return False


def not_a_variant(rf: S.RuleFile, rep: Reporter) -> None:
    """E118 for ``remove`` and ``override`` in a file that extends nothing (they would silently do nothing)."""
    for r in rf.removes:
        rep.error("E118", "'remove' is only allowed in a variant (a file that extends another)", r.span,
                  "add 'extends \"BASE.atout\"' at the top of the file, or edit the declaration itself")
    items = [*rf.options, *rf.phases, *rf.tables, *rf.properties]
    items += [a for ph in rf.phases for a in ph.actions]
    for item in items:
        if getattr(item, "override", False):
            rep.error("E118", "'override' is only allowed in a variant (a file that extends another)",
                      item.name_span, "remove the word 'override', or add 'extends \"BASE.atout\"' at the top")

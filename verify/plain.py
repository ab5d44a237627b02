"""Plain words for verdicts: one sentence a card player can read, for each property and built-in check.

``meaning(result, prop)`` says what was established (or not) without the verifier's vocabulary (abstraction,
attractor, lasso); the method column keeps the technical account.  Players are 0-based seats.
"""
from __future__ import annotations

from atout.compiler import ir


def _phases(prop: ir.Property) -> str:
    return ", ".join(prop.phases) if prop.phases else "the match"


def _text(e) -> str:
    """An expression as its author wrote it (from its span in the rule file), else as the IR prints it."""
    if e is None:
        return ""
    from atout.compiler import span_text
    return span_text(getattr(e, "span", None)) or ir._expr_text(e)


def description(prop: ir.Property | None) -> str:
    """The author's comment on a property: the comment lines just above it (not a ``# --`` heading), or a
    comment at the end of its line; '' if none."""
    if prop is None or prop.span.line < 1:
        return ""
    from atout.compiler import source_lines
    lines = source_lines(prop.span.path)
    if prop.span.line > len(lines):
        return ""
    own = lines[prop.span.line - 1]
    if "#" in own and own.index("#") > own.find("property"):
        return own[own.index("#") + 1:].strip()
    out = []
    k = prop.span.line - 2
    while k >= 0 and lines[k].strip().startswith("#") and not lines[k].strip().startswith("# --"):
        out.insert(0, lines[k].strip().lstrip("#").strip())
        k -= 1
    return " ".join(out)


BUILTIN = {
    "builtin:conservation": ("no card is ever lost or duplicated", "a card can be lost or duplicated"),
    "builtin:no_rule_error": ("the rules never break down in play (no value out of range, no draw from too few "
                              "cards, no player left without a move)",
                              "play can reach a point where the rules break down: here is how"),
    "builtin:no_dead_end": ("a player to act always has a legal move", "a player can be left without a legal "
                                                                       "move: here is how"),
    "builtin:no_trap": ("from anywhere, the deal can still be finished", "play can get stuck where the deal can "
                                                                         "no longer be finished: here is how"),
    "builtin:reachable": ("every phase and every action can happen", "some phase or action can never happen"),
    "builtin:guards": ("every condition written in the rules can be true", "some condition can never be true: "
                                                                             "that rule never applies"),
}


def _table(table: str, ok: bool) -> str:
    return (f"exactly one row of '{table}' applies to every outcome" if ok else
            f"an outcome where no row or two rows of '{table}' apply: here is one")


def meaning(result, prop: ir.Property | None) -> str:
    """One plain sentence for ``result`` (a :class:`~atout.verify.checker.Result`); ``prop`` its property
    (None for a built-in check)."""
    v = result.verdict
    if v == "unknown":
        return "not decided: the verifier could neither prove nor refute it (the method says why)"
    ok = v == "proved"
    name = result.name
    if name.startswith("builtin:table:"):
        return _table(name[len("builtin:table:"):], ok)
    if name in BUILTIN:
        return BUILTIN[name][0 if ok else 1]
    if prop is None:
        return "holds" if ok else "fails"
    k = prop.kind
    if k == "invariant":
        return f"always true: {_text(prop.expr)}" if ok else f"can be false: {_text(prop.expr)} (here is how)"
    if k == "deal_bound":
        return (f"no deal breaks it: {_text(prop.expr)}" if ok else
                f"a deal can break it: {_text(prop.expr)} (here is one)")
    if k == "terminates":
        return (f"play always leaves {_phases(prop)}" if ok else
                f"play can stay in {_phases(prop)} for ever: here is how")
    if k == "match_terminates":
        return "every match ends" if ok else "a match can go on for ever: here is how"
    if k == "can_end":
        return (f"from anywhere in {_phases(prop)}, phase '{prop.target}' can still be reached" if ok else
                f"play can get stuck in {_phases(prop)}, never reaching phase '{prop.target}': here is how")
    if k == "can_force":
        who = _text(prop.player)
        return (f"{who} can always bring play from {_phases(prop)} to phase '{prop.target}', whatever the "
                f"others do" if ok else
                f"the others (or the cards) can keep {who} from bringing play to phase '{prop.target}': here is how")
    if k == "complete":
        return _table(prop.target, ok)
    if k == "reachable":
        return BUILTIN["builtin:reachable"][0 if ok else 1]
    if k == "conserves":
        extra = f", and {_text(prop.expr)} on reaching {prop.target}" if prop.expr is not None else ""
        return (f"no card is lost or duplicated in {_phases(prop)}{extra}" if ok else
                f"cards can be lost or duplicated in {_phases(prop)}, or the condition fails: here is how")
    return "holds" if ok else "fails"

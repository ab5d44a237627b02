"""Export the state machine of a game as a diagram: Graphviz DOT (``--to dot``) or Mermaid (``--to mermaid``).

Nodes are the phases (with their kind: automatic, the actor of a choice, trick play), the start of the match, the
end of a deal and the end of the match.  Edges are the transitions: the named actions of a phase (with their guard,
shortened) and the branch conditions on the way to each ``goto`` or ``end deal``; trick play with its count; the
next deal.  ``dot -Tsvg`` renders the DOT text.  All text from the rule file is escaped for each format
(:mod:`.names`); node identifiers are made from indices.
"""
from __future__ import annotations

from atout.compiler import ir

from .names import dot_str, mermaid_text

MAX_LABEL = 40


def expr_text(e: ir.Expr) -> str:  # noqa: C901 - one case per node type
    """An IR expression in the rule language's infix syntax (as an author would write it)."""
    if isinstance(e, ir.Const):
        if isinstance(e.value, bool):
            return "true" if e.value else "false"
        return e.text or str(e.value)
    if isinstance(e, (ir.VarRef, ir.Local, ir.Builtin)):
        return e.name
    if isinstance(e, ir.ZoneRef):
        return e.name
    if isinstance(e, ir.Index):
        return f"{expr_text(e.base)}[{expr_text(e.index)}]"
    if isinstance(e, ir.Call):
        return f"{e.fn}({', '.join(expr_text(a) for a in e.args)})"
    if isinstance(e, ir.BinOp):
        def side(x):
            t = expr_text(x)
            if isinstance(x, ir.Cond) or (isinstance(x, ir.BinOp) and x.op != e.op):
                return f"({t})"
            return t
        return f"{side(e.left)} {e.op} {side(e.right)}"
    if isinstance(e, ir.Not):
        return f"not {expr_text(e.operand)}"
    if isinstance(e, ir.Neg):
        return f"-{expr_text(e.operand)}"
    if isinstance(e, ir.Cond):
        return f"if {expr_text(e.test)} then {expr_text(e.then)} else {expr_text(e.orelse)}"
    if isinstance(e, ir.InSet):
        return f"{expr_text(e.value)} in {{{', '.join(expr_text(i) for i in e.items)}}}"
    if isinstance(e, ir.Quant):
        dom = "players" if e.domain is None else expr_text(e.domain)
        return f"{e.kind}({e.var} in {dom}: {expr_text(e.body)})"
    if isinstance(e, ir.NextPlayer):
        return f"next({e.var} after {expr_text(e.after)}: {expr_text(e.cond)})"
    return "?"


def shorten(text: str, limit: int = MAX_LABEL) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _exits(stmts, conds: tuple[str, ...], out: list) -> None:
    """(target phase or None for 'end deal', branch conditions on the way) for every exit of a body."""
    for s in stmts:
        if isinstance(s, ir.Goto):
            out.append((s.phase, conds))
            return
        if isinstance(s, ir.EndDeal):
            out.append((None, conds))
            return
        if isinstance(s, ir.If):
            for c, b in s.branches:
                _exits(b, conds + (expr_text(c),), out)
            if s.orelse:
                _exits(s.orelse, conds + ("else",), out)
        elif isinstance(s, ir.For):
            _exits(s.body, conds, out)


def transitions(g: ir.Game) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """(nodes [(id, label)], edges [(from id, to id, label)]) of the state machine of ``g``."""
    ids = {p.name: f"p{i}" for i, p in enumerate(g.phases)}
    nodes = [("start", "start of the match"), ("end_deal", "end of the deal"), ("over", "end of the match")]
    edges = []
    first = ("first dealer at random" if g.match.first_dealer_random
             else f"first dealer {expr_text(g.match.first_dealer)}")
    edges.append(("start", ids[g.match.start], shorten(first)))
    for p in g.phases:
        if p.kind == "auto":
            what = "automatic"
        elif p.kind == "choice":
            what = f"actor {expr_text(p.actor)}"
        else:
            what = f"trick play, {expr_text(p.trick.count)} tricks"
        nodes.append((ids[p.name], f"{p.name}\n({shorten(what)})"))

        def add(stmts, label):
            out: list = []
            _exits(stmts, (), out)
            for target, conds in out:
                text = label + (f" [{' and '.join(conds)}]" if conds else "")
                edges.append((ids[p.name], ids[target] if target is not None else "end_deal", shorten(text)))
            return out
        if p.kind == "auto":
            add(p.body, "do")
        for a in p.actions:
            label = a.label + (f"({a.param.name})" if a.param is not None else "")
            guard = "" if isinstance(a.guard, ir.Const) and a.guard.value is True else f" when {expr_text(a.guard)}"
            if not add(a.body, shorten(label + guard)):
                edges.append((ids[p.name], ids[p.name], shorten(label + guard)))
        if p.trick is not None:
            edges.append((ids[p.name], ids[p.name], shorten("play a card")))
            add(p.trick.then, shorten(f"after trick {expr_text(p.trick.count)}"))
    edges.append(("end_deal", ids[g.match.start], shorten(f"next deal, dealer {expr_text(g.match.next_dealer)}")))
    edges.append(("end_deal", "over", shorten(f"when {expr_text(g.match.ends_when)}")))
    return nodes, edges


def to_dot(g: ir.Game) -> str:
    """Graphviz DOT text of the state machine (``dot -Tsvg`` renders it)."""
    nodes, edges = transitions(g)
    lines = [f"digraph atout {{",
             f"  label={dot_str(g.title)};",
             "  labelloc=t;",
             "  rankdir=LR;",
             "  node [shape=box, style=rounded, fontname=\"Helvetica\"];",
             "  edge [fontname=\"Helvetica\", fontsize=10];"]
    shapes = {"start": "circle", "end_deal": "doublecircle", "over": "doublecircle"}
    for nid, label in nodes:
        shape = f", shape={shapes[nid]}" if nid in shapes else ""
        lines.append(f"  {nid} [label={dot_str(label)}{shape}];")
    for a, b, label in edges:
        lines.append(f"  {a} -> {b} [label={dot_str(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_mermaid(g: ir.Game) -> str:
    """Mermaid ``stateDiagram-v2`` text of the state machine."""
    nodes, edges = transitions(g)
    lines = [f"%% {mermaid_text(g.title)}", "stateDiagram-v2"]
    for nid, label in nodes:
        lines.append(f"  state \"{mermaid_text(label.replace(chr(10), ' '))}\" as {nid}")
    lines.append("  [*] --> start")
    for a, b, label in edges:
        lines.append(f"  {a} --> {b} : {mermaid_text(label)}")
    lines.append("  over --> [*]")
    return "\n".join(lines) + "\n"

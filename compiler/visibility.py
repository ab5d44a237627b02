"""Visibility of variables: which variables may carry what some seat may not know (compiler pass, lint W001).

Variables are public unless declared ``, private`` or ``, hidden`` (docs/language.md, "Visibility").  A
public variable whose value is computed from cards not every seat sees leaks them: every observation shows
it, and an OpenSpiel information state built on it lets a bot read its opponents' hands.  This pass finds
such variables by an information-flow analysis over the IR and reports W001 at the first assignment that
leaks, with the read that causes it.

A value is *secret* when it may depend on:

* the cards of a zone not every seat sees (``private`` or ``hidden``; a zone is public when it is declared so,
  and the built-in ``taken`` is too unless a rule moves cards into it other than by playing them to a trick:
  its cards were face up on the table).  How many cards a zone holds (``size``) is public;
* ``holder(c)`` (it looks into the hands);
* the card a seat picked through an action that is not ``public`` (a discard);
* a variable declared ``private`` or ``hidden``, or itself secret;
* a condition that is secret: an assignment under ``if SECRET`` is secret (an implicit flow).

A scoring table announces its result, as a score is written down for everyone (honours are claimed in
Whist): what its rows' conditions read is not counted, only what their assignments compute.

The analysis is flow-insensitive (a zone revealed later is still counted as unseen) and computes a least
fixed point over every assignment of the game, so it over-approximates: a variable it does not report is
public information; one it reports may be announced by the rules, which the author says with ``, public``.
What it does not cover: the dealer, the phase and the legal moves are public by construction, whatever
decides them.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from . import ir
from .diagnostics import Diagnostic

#: Calls whose result shows nothing of a zone's cards.
_CARDLESS = {"size"}


class _Flow:
    def __init__(self, game: ir.Game):
        self.game = game
        self.moved_to_taken = False
        self.zone_vis = {z.name: z.visibility for z in game.zones}
        self.secret_vars: dict[str, tuple[ir.Span, str]] = {}   # name -> (where, why)
        self.declared = {v.name: v.visibility for v in game.vars}
        for v in game.vars:
            if v.visibility in ("private", "hidden"):
                self.secret_vars[v.name] = (v.span, f"'{v.name}', which is {v.visibility}")
        for b in self._bodies():
            self._scan_taken(b)
        for t in game.tables:
            for r in t.rows:
                self._scan_taken(r.body)

    # -- where assignments are -------------------------------------------------------------------
    def _bodies(self):
        """Every statement block of the phases (actions, trick blocks)."""
        g = self.game
        for ph in g.phases:
            yield ph.body
            for a in ph.actions:
                yield a.body
            if ph.trick is not None:
                yield ph.trick.after
                yield ph.trick.then

    def _scan_taken(self, body) -> None:
        for s in body:
            if isinstance(s, (ir.Move, ir.MoveCard)) and _zone_name(s.dest) == "taken":
                self.moved_to_taken = True
            elif isinstance(s, ir.Deal) and s.dest == "taken":
                self.moved_to_taken = True
            for sub in _sub_blocks(s):
                self._scan_taken(sub)

    def _zone_secret(self, name: str) -> bool:
        if name in ("trick",):
            return False
        if name == "taken":
            return self.moved_to_taken
        return self.zone_vis.get(name, "public") != "public"

    # -- secrecy of an expression ------------------------------------------------------------------
    def why(self, e, locals_: dict[str, str]) -> str | None:
        """Why ``e`` may be secret, or None when it is public."""
        if e is None:
            return None
        if isinstance(e, ir.ZoneRef):
            return f"the cards of {e.name}" if self._zone_secret(e.name) else None
        if isinstance(e, ir.Index) and isinstance(e.base, ir.ZoneRef) and self._zone_secret(e.base.name):
            from . import span_text        # the zone as written: 'hand[dealer]'
            text = span_text(e.span)
            return f"the cards of {text}" if text and text.startswith(e.base.name) else f"the cards of {e.base.name}"
        if isinstance(e, ir.VarRef):
            got = self.secret_vars.get(e.name)
            if got is not None and self.declared.get(e.name) != "public":
                return got[1] if self.declared.get(e.name) in ("private", "hidden") else \
                    f"'{e.name}' (set from {got[1]})"
            return None
        if isinstance(e, ir.Local):
            return locals_.get(e.name)
        if isinstance(e, ir.Call):
            if e.fn in _CARDLESS:
                return None
            if e.fn == "holder":
                return "holder(), which looks into the hands"
            for a in e.args:
                w = self.why(a, locals_)
                if w:
                    return w
            return None
        if isinstance(e, (ir.Quant, ir.NextPlayer)):
            inner = dict(locals_)
            if isinstance(e, ir.Quant) and e.domain is not None:
                w = self.why(e.domain, locals_)
                if w:
                    return w
            return self.why(e.body if isinstance(e, ir.Quant) else e.cond, inner) or \
                (self.why(e.after, locals_) if isinstance(e, ir.NextPlayer) else None)
        if isinstance(e, ir.Expr) and is_dataclass(e):
            for f in fields(e):
                v = getattr(e, f.name)
                for x in (v if isinstance(v, tuple) else (v,)):
                    if isinstance(x, ir.Expr):
                        w = self.why(x, locals_)
                        if w:
                            return w
        return None

    # -- the fixed point ---------------------------------------------------------------------------
    def run(self) -> None:
        changed = True
        while changed:
            changed = False
            for body, locals_ in self._blocks_with_locals():
                changed |= self._block(body, locals_, None)
            for t in self.game.tables:   # an announcement: the rows' conditions are not counted
                for r in t.rows:
                    changed |= self._block(r.body, {}, None)

    def _blocks_with_locals(self):
        g = self.game
        for ph in g.phases:
            yield ph.body, {}
            for a in ph.actions:
                loc = {}
                p = a.param
                if p is not None and p.kind == "card" and not a.public and p.zone is not None and \
                        self.why(p.zone, {}) is not None:
                    loc[p.name] = f"the card '{p.name}' picked by '{a.name}', which only its player sees"
                yield a.body, loc
            if ph.trick is not None:
                yield ph.trick.after, {}
                yield ph.trick.then, {}

    def _cond(self, e, locals_, what: str) -> str | None:
        w = self.why(e, locals_)
        return f"{what} on {w}" if w else None

    def _block(self, body, locals_: dict[str, str], pc: str | None) -> bool:
        changed = False
        for s in body:
            if isinstance(s, ir.ASSIGNS):
                w = pc
                if w is None:
                    vals = s.values if isinstance(s, ir.RandomAssign) else (s.value,)
                    for x in (*vals, s.index):
                        w = w or self.why(x, locals_)
                if w and s.var not in self.secret_vars:
                    self.secret_vars[s.var] = (s.span, w)
                    changed = True
            elif isinstance(s, ir.If):
                cond_pc = pc
                for test, blk in s.branches:
                    cond_pc = cond_pc or self._cond(test, locals_, "a condition")
                    changed |= self._block(blk, locals_, cond_pc)
                changed |= self._block(s.orelse, locals_, cond_pc)
            elif isinstance(s, ir.For):
                loc = locals_
                if s.over == "cards" and s.source is not None:
                    w = self.why(s.source, locals_)
                    if w:
                        loc = {**locals_, s.var: w}
                changed |= self._block(s.body, loc, pc)
        return changed


def _declaration(v: ir.Var) -> str:
    """The declaration of ``v`` rebuilt from the IR (when its source cannot be read)."""
    per = f" per {v.per}" if v.per else ""
    init = v.init.text if isinstance(v.init, ir.Const) and v.init.text else None
    return f"{v.scope} var {v.name}: {v.type}{per}" + (f" = {init}" if init else "")


def _zone_name(e) -> str | None:
    if isinstance(e, ir.ZoneRef):
        return e.name
    if isinstance(e, ir.Index):
        return _zone_name(e.base)
    return None


def _sub_blocks(s):
    if isinstance(s, ir.If):
        return [b for _, b in s.branches] + [s.orelse]
    if isinstance(s, ir.For):
        return [s.body]
    return []


def secret_variables(game: ir.Game) -> dict[str, str]:
    """Variables whose value may depend on what not every seat sees: name -> the reason (a phrase).

    Declared ``private``/``hidden`` variables are included; ``, public`` ones never are."""
    flow = _Flow(game)
    flow.run()
    return {n: why for n, (_, why) in flow.secret_vars.items() if flow.declared.get(n) != "public"}


def leak_warnings(game: ir.Game) -> list[Diagnostic]:
    """W001 for every variable of undeclared visibility (so public) that the analysis finds secret, at the
    assignment that first makes it so, in source order."""
    flow = _Flow(game)
    flow.run()
    out = []
    for v in game.vars:
        if v.visibility is not None or v.name not in flow.secret_vars:
            continue
        span, why = flow.secret_vars[v.name]
        from . import span_text
        decl = span_text(v.span) or _declaration(v)
        own = " or private (each seat sees its own entry)" if v.per else ""
        out.append(Diagnostic(
            "W001", f"'{v.name}' is public (every seat's observation shows it) but this sets it from {why}",
            span, f"if the players may not know it, declare it hidden (nobody sees it: `{decl}, hidden`){own}; "
                  f"if the rules announce it, declare it `{decl}, public`", severity="warning"))
    return sorted(out, key=lambda d: (d.span.path, d.span.line, d.span.col))

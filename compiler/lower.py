"""Pass 4: the merged AST -> the IR game (:class:`atout.compiler.ir.Game`).

Declarations are checked here (missing ones E101, duplicates E102, zones E116,
phases E115, properties E119, fall-through E113); expressions and statements
are resolved by :class:`~atout.compiler.resolve.Scope`.  The pass also numbers
the distinct actions: card ids ``0 .. deck size - 1`` first (playing, choosing
or discarding a card), then one slot per named action and parameter value.
"""
from __future__ import annotations

import dataclasses

from . import ir
from . import syntax as S
from .diagnostics import Reporter, did_you_mean
from .ir import BOOL, CARD, INT, PLAYER, RANK, SUIT, Type
from .resolve import BUILTINS, ERROR, Scope, fold_int, has_error, int_bounds
from .span import NO_SPAN

TRICK_ZONE = "trick"
TAKEN_ZONE = "taken"
#: names and functions that only a ``trick`` phase sets (read elsewhere, they never change)
TRICK_BUILTINS = ("leader", "winner", "trick_number", "led_suit")
TRICK_FUNCTIONS = ("tricks", "played")
_OWN_VARIABLE = {   # what a game without a trick phase declares instead, in the hint
    "leader": "e.g. deal var lead_player: player", "winner": "e.g. deal var trick_winner: player",
    "trick_number": "e.g. deal var trick_no: int in 0..13", "led_suit": "e.g. deal var lead_suit: suit",
    "tricks": "e.g. deal var taken_n: int in 0..13 per side, or per player without sides",
    "played": "e.g. deal var has_played: bool per player",
}


def _ir_nodes(x):
    """Every IR node (dataclass) inside ``x`` (IR nodes, tuples and lists of them), ``x``'s own included."""
    from dataclasses import fields, is_dataclass
    stack = [x]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif is_dataclass(x) and not isinstance(x, type):
            yield x
            stack.extend(getattr(x, f.name) for f in fields(x))


DONE_SLOT = "done"


def lower(rf: S.RuleFile, rep: Reporter) -> ir.Game | None:
    """Build the IR of ``rf``; returns None when errors were reported to ``rep``."""
    L = _Lowering(rf, rep)
    return L.run()


class _Lowering:
    def __init__(self, rf: S.RuleFile, rep: Reporter):
        self.rf = rf
        self.rep = rep

    def run(self) -> ir.Game | None:
        rf, rep = self.rf, self.rep
        file_span = ir.Span(rf.path, 1, 1, 1, 2)
        if (rf.game, rf.players, rf.deck, rf.match, rf.extends) == (None,) * 5 and not (
                rf.options or rf.enums or rf.zones or rf.vars or rf.phases or rf.tables or rf.properties
                or rf.removes or rf.misplaced):
            rep.error("E101", "the file declares nothing", file_span,
                      "a rule file declares at least: game NAME \"Title\", players N, deck { suits ... ranks ... }, "
                      "phases and match { ... } (docs/language.md)")
            return None
        game_span = rf.game_span if rf.game is not None else file_span
        game_name = f"game '{rf.game}'" if rf.game is not None else "a game"
        if rf.game is None:
            rep.error("E101", "missing 'game NAME \"Title\"' declaration", file_span,
                      "start the file with e.g. game ecarte \"Écarté\"")
        if rf.players is None:
            rep.error("E101", "missing 'players N' declaration", game_span, f"{game_name} needs e.g. players 2")
        if rf.deck is None:
            rep.error("E101", "missing 'deck { suits ... ranks ... }' declaration", game_span,
                      f"{game_name} needs e.g. deck {{ suits spades hearts diamonds clubs  ranks K Q J A 10 9 8 7 }}")
        if rf.match is None:
            rep.error("E101", "missing 'match { ... }' declaration", game_span,
                      f"{game_name} needs a match block: match {{ start PHASE  ends when CONDITION  "
                      "returns(p) = EXPR }")
        for m in rf.misplaced:
            where = "inside a phase" if m.what != "actor" else "inside a phase"
            rep.error("E110", f"'{m.what}' is only allowed {where}", m.span,
                      f"move this {m.what} into a 'phase NAME {{ ... }}' block")
        if rf.players is None or rf.deck is None:
            return None
        players = rf.players
        if not 2 <= players <= 8:
            rep.error("E104", f"a game has 2 to 8 players, not {players}", rf.players_span)
            return None
        deck = self._deck(rf.deck)
        sides = self._sides(players)
        scope = Scope(rep, players, deck, num_sides=len(sides))
        self._enums(scope)
        options = self._options(scope)
        zones = self._zones(scope)
        vars_ = self._vars(scope)
        self._names(scope)
        self._defs(scope)
        phases = self._phases(scope)
        tables = self._tables(scope)
        match = self._match(scope)
        props = self._properties(scope)
        slots = self._slots(phases)
        if not any(ph.kind == "trick" for ph in phases):
            self._trick_play_reads(phases, tables, match, props)
        if rep or match is None:
            return None
        return ir.Game(rf.game or "game", rf.title or rf.game or "game", players, sides, deck, options,
                       tuple(scope.enums.values()), zones, vars_, phases, tables, match, props, slots, rf.path)

    def _trick_play_reads(self, *parts) -> None:
        """E103 for each read of the built-in trick play (``leader``, ``winner``, ``trick_number``,
        ``led_suit``, ``tricks(p)``, ``played(p)``) in a game without a ``trick`` phase: nothing would ever
        set them (always 0, none or false), so a hand-written trick is being read through names that only
        the built-in one fills.  Reported once per place (a ``def``'s body once, wherever it is called)."""
        seen = set()
        for node in _ir_nodes(parts):
            if isinstance(node, ir.Builtin) and node.name in TRICK_BUILTINS:
                what = f"'{node.name}'"
            elif isinstance(node, ir.Call) and node.fn in TRICK_FUNCTIONS:
                what = f"'{node.fn}(...)'"
            else:
                continue
            if node.span in seen:
                continue
            seen.add(node.span)
            name = node.name if isinstance(node, ir.Builtin) else node.fn
            self.rep.error("E103", f"{what} belongs to the built-in trick play, and this game has no 'trick' "
                                   f"phase: nothing would ever set it", node.span,
                           f"keep it in a variable of your own ({_OWN_VARIABLE[name]}), set where your rules "
                           f"say, or play the tricks in a 'trick' phase (docs/language.md, Trick play)")

    # -- declarations ------------------------------------------------------------
    def _deck(self, d: S.DeckDecl) -> ir.Deck:
        for what, names, spans in (("suit", d.suits, d.suit_spans), ("rank", d.ranks, d.rank_spans)):
            seen: set[str] = set()
            for n, sp in zip(names, spans):
                if n in seen:
                    self.rep.error("E102", f"duplicate {what} '{n}'", sp)
                seen.add(n)
        if not d.suits or not d.ranks:
            self.rep.error("E101", "a deck needs 'suits' and 'ranks'", d.span, "e.g. suits spades hearts ... "
                                                                              "ranks K Q J A 10 9 8 7")
        for i, (cname, members) in enumerate(d.colors):
            spans = d.color_spans[i] if i < len(d.color_spans) else ()
            for j, m in enumerate(members):
                if m not in d.suits:
                    self.rep.error("E106", f"unknown suit '{m}' in colour '{cname}'",
                                   spans[j] if j < len(spans) else d.span,
                                   did_you_mean(m, d.suits) or f"this deck's suits are {' '.join(d.suits)}")
        return ir.Deck(d.suits, d.ranks, d.colors, d.span)

    def _sides(self, players: int) -> tuple[tuple[int, ...], ...]:
        sides = self.rf.sides
        if sides:
            seats = sorted(s for g in sides for s in g)
            if seats != list(range(players)):
                self.rep.error("E104", f"sides must list every seat 0..{players - 1} exactly once",
                               self.rf.players_span)
        return sides

    def _declare(self, seen: dict, name: str, span, what: str) -> bool:
        if what in ("an option", "a zone", "a variable") and self._builtin_clash(name, span):
            return False
        if what == "an enum" and name in ("int", "bool", "player", "suit", "card", "rank"):
            self.rep.error("E102", f"'{name}' is a built-in type", span, "choose another name for the enum")
            return False
        if name in seen:
            first_what, first_span = seen[name]
            where = f" on line {first_span.line}" if first_span.path == span.path and first_span.line else ""
            self.rep.error("E102", f"duplicate name '{name}'", span, f"'{name}' is already declared as {first_what}"
                                                                    f"{where}")
            return False
        seen[name] = (what, span)
        return True

    def _builtin_clash(self, name: str, span) -> bool:
        """E102 when a declared name would hide a built-in name (dealer, actor, players, ...)."""
        if name in BUILTINS or name == "players":
            meaning = BUILTINS[name][1] if name in BUILTINS else "every player, as a quantifier domain"
            self.rep.error("E102", f"'{name}' is a built-in name ({meaning})", span, "choose another name")
            return True
        return False

    def _enums(self, scope: Scope) -> None:
        self.seen: dict[str, tuple[str, ir.Span]] = {}
        for e in self.rf.enums:
            if not self._declare(self.seen, e.name, e.name_span, "an enum"):
                continue
            labels = tuple(lab if lab is not None else v for v, lab in zip(e.values, e.labels)) if e.labels else ()
            shown: dict[str, str] = {}
            for v, lab in zip(e.values, labels):
                if not lab.strip():
                    self.rep.error("E102", f"the label of enum value '{v}' is empty", e.span,
                                   f'give it a text to show, e.g. {v} "{v.replace("_", " ")}"')
                elif lab in shown:
                    self.rep.error("E102", f"enum values '{shown[lab]}' and '{v}' have the same label \"{lab}\"",
                                   e.span, "labels are what players see and type: make them differ")
                shown.setdefault(lab, v)
            scope.enums[e.name] = ir.Enum(e.name, e.values, e.span, labels)
            for i, v in enumerate(e.values):
                self._builtin_clash(v, e.span)
                if v in scope.enum_values:
                    self.rep.error("E102", f"duplicate enum value '{v}'", e.span)
                scope.enum_values[v] = (e.name, i)
                if v not in self.seen:   # a variable, option or zone of that name would hide the value
                    self.seen[v] = (f"a value of enum '{e.name}'", e.span)

    def _options(self, scope: Scope) -> tuple[ir.Option, ...]:
        out = []
        for o in self.rf.options:
            if not self._declare(self.seen, o.name, o.name_span, "an option"):
                continue
            t = scope.resolve_type(o.type)
            v = scope.check(o.value, {}, t, f"option '{o.name}'")
            if t.kind == "int" and not isinstance(v, ir.Const) and fold_int(v) is not None:
                v = ir.Const(fold_int(v), t, str(fold_int(v)), v.span)    # -350, 2 * target
            if t != ERROR and not isinstance(v, ir.Const):
                self.rep.error("E104", f"option '{o.name}' must be a constant", o.value.span,
                               "a number (-1 too), true or false, a suit, a rank, an enum value or none")
                scope.bad_names.add(o.name)
                continue
            if isinstance(v, ir.Const) and v.type.kind == "error":
                scope.bad_names.add(o.name)
            if isinstance(v, ir.Const) and v.type.kind != "error" and t.kind == "int" and t.low is not None and \
                    t.low <= t.high and not t.low <= v.value <= t.high:
                self.rep.error("E114", f"option '{o.name}' = {v.value} is outside {t.low}..{t.high}", o.value.span)
            if isinstance(v, ir.Const):
                opt = ir.Option(o.name, t, v.value, v.text, o.span)
                scope.options[o.name] = opt
                out.append(opt)
        return tuple(out)

    def _zones(self, scope: Scope) -> tuple[ir.Zone, ...]:
        out = []
        homes = []
        for z in self.rf.zones:
            if not self._declare(self.seen, z.name, z.name_span, "a zone"):
                continue
            if z.name in (TRICK_ZONE, TAKEN_ZONE):
                self.rep.error("E116", f"'{z.name}' is a built-in zone of trick play", z.name_span,
                               "choose another name" + (", e.g. 'table'" if z.name == TRICK_ZONE else ", e.g. 'won'")
                               + ("" if any(p.trick is not None for p in self.rf.phases) else
                                  " (a game without a 'trick' phase has no such zone, and the name stays reserved)"))
                scope.bad_names.add(z.name)     # its uses are not reported again
                continue
            vis = z.visibility
            if vis == "":
                self.rep.error("E116", f"zone '{z.name}' needs a visibility: private, public or hidden", z.span)
                scope.bad_names.add(z.name)
                continue
            if "," in vis:
                self.rep.error("E116", f"zone '{z.name}' has two visibilities ({vis.replace(',', ' and ')})", z.span)
                scope.bad_names.add(z.name)
                continue
            if z.per and z.per != "player":
                self.rep.error("E116", f"zones are 'per player', not 'per {z.per}'", z.span)
                scope.bad_names.add(z.name)
                continue
            if vis == "private" and z.per is None:
                at = next((sp for a, sp in z.attr_spans if a == "private"), z.span)
                self.rep.error("E116", f"zone '{z.name}' is private but has no owner", at,
                               "add 'per player' or make it hidden or public")
                scope.bad_names.add(z.name)
                continue
            if z.home:
                homes.append(z)
            zone = ir.Zone(z.name, z.per is not None, vis, z.home, False, z.span)
            scope.zones[z.name] = zone
            out.append(zone)
        if self.rf.zones and not homes:
            self.rep.error("E116", "no zone is marked 'home': the pack must start somewhere",
                           self.rf.zones[0].span, "mark the stock 'home', e.g. zone stock: hidden, home")
        for extra in homes[1:]:
            self.rep.error("E116", f"zone '{extra.name}' is a second 'home' zone", extra.span)
        for h in homes[:1]:
            if h.per:
                self.rep.error("E116", "the home zone must be shared, not per player", h.span)
        if any(p.trick is not None for p in self.rf.phases):
            for name, per, vis in ((TRICK_ZONE, False, "public"), (TAKEN_ZONE, True, "hidden")):
                zone = ir.Zone(name, per, vis, False, True, NO_SPAN)
                scope.zones[name] = zone
                out.append(zone)
        return tuple(out)

    def _vars(self, scope: Scope) -> tuple[ir.Var, ...]:
        out = []
        for v in self.rf.vars:
            if not self._declare(self.seen, v.name, v.name_span, "a variable"):
                continue
            t = scope.resolve_type(v.type)
            if v.per == "side" and not self.rf.sides:
                self.rep.error("E104", f"'{v.name}' is per side, but no sides are declared", v.span,
                               "declare them: players 4 sides {0 2} {1 3}")
            if v.init is not None:
                init = scope.check(v.init, {}, t, f"the initial value of '{v.name}'")
            else:
                init = _default(t)
            start = fold_int(init) if t.kind == "int" and t.low is not None else None
            if t.kind == "int" and t.low is not None and start is None and v.init is not None and \
                    getattr(init, "type", None) != ERROR:
                # the range is checked where a value is written; the initial value is not written by a rule, so it
                # must be a constant the compiler checks (else the verifier's reading of the range would not hold)
                self.rep.error("E114", f"the initial value of '{v.name}' must be a constant (numbers, options, "
                                       f"+ - *): its range {t.low}..{t.high} is checked here, once", v.init.span,
                               f"start it at a constant and set it in the deal's first phase, e.g. "
                               f"'{v.name} = ...' in a 'do' block")
            elif start is not None and t.low <= t.high and not t.low <= start <= t.high:
                self.rep.error("E114", f"initial value {start} of '{v.name}' is outside {t.low}..{t.high}",
                               v.init.span if v.init is not None else v.span)
            if v.visibility == "home":
                self.rep.error("E122", f"'home' is a zone attribute, not a variable's", v.visibility_span,
                               "a variable is public (the default), private (per player or per side: each "
                               "entry seen by its seat or side) or hidden (seen by nobody)")
            elif v.visibility == "private" and v.per is None:
                self.rep.error("E122", f"'{v.name}' is private but not per player or per side: nobody would "
                               "own it", v.visibility_span, "write 'per player' (each seat sees its entry) or "
                               "make it hidden (nobody sees it)")
            scope.vars[v.name] = (t, v.per, v.scope)
            vis = v.visibility if v.visibility in ("public", "private", "hidden") else None
            out.append(ir.Var(v.name, v.scope, t, v.per, init, v.span, vis))
        return tuple(out)

    def _names(self, scope: Scope) -> None:
        for p in self.rf.phases:
            if self._declare(self.seen, p.name, p.name_span, "a phase"):
                scope.phases.add(p.name)
        for t in self.rf.tables:
            if self._declare(self.seen, t.name, t.name_span, "a table"):
                scope.tables.add(t.name)
        deck = self.rf.deck
        for i, s in enumerate(deck.suits if deck else ()):
            for other in (scope.options, scope.zones, scope.vars, scope.enum_values):
                if s in other:
                    what = self.seen.get(s, ("an enum value", None))[0]
                    self.rep.error("E102", f"'{s}' is both a suit and another name",
                                   deck.suit_spans[i] if i < len(deck.suit_spans) else deck.span,
                                   f"'{s}' is also declared as {what}; rename one of them")

    def _defs(self, scope: Scope) -> None:
        """Named definitions: declared first (any order of use), each body checked once."""
        from .resolve import FUNCTIONS
        for d in self.rf.defs:
            if d.name in FUNCTIONS or d.name == "gain":
                self.rep.error("E102", f"'{d.name}' is a built-in function", d.name_span, "choose another name")
                continue
            if not self._declare(self.seen, d.name, d.name_span, "a definition"):
                scope.bad_names.add(d.name)     # its calls are not reported again
                continue
            params = [n for n, _ in d.params]
            for i, (n, t) in enumerate(d.params):
                if n in params[:i]:
                    self.rep.error("E102", f"parameter '{n}' of '{d.name}' given twice", t.span)
            scope.defs[d.name] = d
        for d in self.rf.defs:
            if scope.defs.get(d.name) is d:
                scope.def_body(d.name)

    # -- phases ------------------------------------------------------------------
    def _phases(self, scope: Scope) -> tuple[ir.Phase, ...]:
        out = []
        for p in self.rf.phases:
            ph = self._phase(scope, p)
            if ph is not None:
                out.append(ph)
        return tuple(out)

    def _phase(self, scope: Scope, p: S.PhaseDecl) -> ir.Phase | None:
        rep = self.rep
        for sp in p.extra_actors:
            rep.error("E115", f"phase '{p.name}' has a second 'actor'", sp)
        for sp in p.extra_tricks:
            rep.error("E115", f"phase '{p.name}' has a second 'trick' block", sp)
        for sp in p.extra_dos:
            rep.error("E115", f"phase '{p.name}' has a second 'do' block", sp)
        if p.do is not None and (p.actions or p.actor is not None or p.trick is not None):
            rep.error("E115", f"phase '{p.name}' mixes 'do' with actions, an actor or a trick", p.name_span,
                      "a phase either runs effects at once ('do') or waits for a player")
            return None
        if p.do is not None:
            body = scope.block(p.do, {})
            self._must_exit(body, p.name_span, f"phase '{p.name}'")
            return ir.Phase(p.name, "auto", None, (), body, None, p.span)
        if p.trick is not None:
            if p.actor is not None:
                rep.error("E115", f"phase '{p.name}' plays tricks, so its actor is the player to play",
                          p.actor.span, "remove 'actor'")
            hand = scope.zones.get("hand")
            if (hand is None or not hand.per_player) and "hand" not in scope.bad_names:   # refused: reported
                rep.error("E115", f"phase '{p.name}' plays tricks from each player's 'hand', and there is no "
                                  "per-player zone 'hand'", p.trick.span, "declare zone hand: per player, private")
            trick = self._trick(scope, p)
            actions = self._actions(scope, p, trick_phase=True)
            return ir.Phase(p.name, "trick", None, actions, (), trick, p.span)
        if p.actor is None:
            rep.error("E115", f"phase '{p.name}' has no actor, 'do' block or trick", p.name_span,
                      "add 'actor eldest' (or another player) and its actions")
            return None
        if not p.actions:
            rep.error("E115", f"phase '{p.name}' has an actor but no action", p.name_span,
                      "a phase with an actor needs at least one 'action'")
            return None
        actor = scope.check(p.actor, {}, PLAYER, "'actor'")
        actions = self._actions(scope, p, trick_phase=False)
        return ir.Phase(p.name, "choice", actor, actions, (), None, p.span)

    def _actions(self, scope: Scope, p: S.PhaseDecl, trick_phase: bool) -> tuple[ir.Action, ...]:
        out = []
        names: dict[str, object] = {}
        card_params = 0
        for a in p.actions:
            if a.name in names:
                self.rep.error("E102", f"duplicate action '{a.name}' in phase '{p.name}'", a.name_span)
                continue
            names[a.name] = a
            env: dict[str, Type] = {}
            param = None
            if a.param is not None:
                param = self._param(scope, a.param, env)
                if param is None:
                    env[a.param.name] = ERROR    # reported at the parameter: its uses are not reported again
                if param is not None and param.kind in ("card", "choose"):
                    card_params += 1
                    if trick_phase or card_params > 1:
                        self.rep.error("E115", f"phase '{p.name}' has two ways to choose a card", a.param.span,
                                       "a trick phase already plays a card; one card action per phase")
                if param is not None:
                    env[param.name] = param.type
            guard = scope.check(a.guard, env, BOOL, "a guard") if a.guard is not None else ir.Const(True, BOOL,
                                                                                                  "true")
            if param is not None and param.kind == "domain" and (param.low is not None or param.high is not None):
                guard = _within_bounds(param, guard)
                param = dataclasses.replace(param, low=None, high=None)
            body = scope.block(a.body, env)
            if not trick_phase:
                self._must_exit(body, a.name_span, f"action '{a.name}'")
            if a.visibility is not None and not a.public:
                self.rep.error("E104", f"an action is 'public' or nothing, not '{a.visibility}'", a.visibility_span,
                               "write 'public' to show the cards it chooses to every player")
            elif a.public and (param is None or param.kind not in ("card", "choose")):
                self.rep.error("E104", f"'public' applies to an action that chooses cards; '{a.name}' is seen by "
                                       "all already", a.visibility_span, "remove 'public'")
            out.append(ir.Action(a.name, a.label or a.name.replace("_", " "), param, guard, body, a.span,
                                 public=a.public))
        return tuple(out)

    def _param(self, scope: Scope, p: S.Param, env) -> ir.Param | None:
        self._builtin_clash(p.name, p.span)
        if p.kind == "card":
            z = scope.zone_expr(p.zone, env, "a card parameter")
            return ir.Param("card", p.name, CARD, zone=z, span=p.span)
        if p.kind == "choose":
            lo = scope.check(p.low, env, INT, "the least number of cards")
            hi = scope.check(p.high, env, INT, "the most number of cards")
            if isinstance(lo, ir.Const) and isinstance(hi, ir.Const) and lo.value > hi.value:
                self.rep.error("E114", f"empty range {lo.value}..{hi.value}", p.span,
                               f"write the lower bound first: {hi.value}..{lo.value}")
            src = scope.zone_expr(p.zone, env, "'from'")
            dst = scope.zone_expr(p.dest, env, "'to'")
            return ir.Param("choose", p.name, INT, zone=src, low=lo, high=hi, dest=dst, span=p.span)
        if p.kind == "range":
            lo = scope.check(p.low, env, INT, "the least value of a parameter")
            hi = scope.check(p.high, env, INT, "the largest value of a parameter")
            lo = _folded(lo)
            hi = _folded(hi)
            if has_error(lo) or has_error(hi):
                return None      # reported where it was checked
            # a bound read from the state (0..hand_size, 0..size(hand[actor])): one action per value it can
            # take, and the action is legal only between the bounds as they are (the guard says so)
            lo_b, hi_b = int_bounds(lo, scope.deck.size), int_bounds(hi, scope.deck.size)
            if lo_b is None or hi_b is None:
                which, e = (p.low, lo) if lo_b is None else (p.high, hi)
                unranged = sorted({n.name for n in _ir_nodes([e]) if isinstance(n, ir.VarRef) and
                                   n.type.kind == "int" and n.type.low is None})
                hint = (f"give {' and '.join(repr(n) for n in unranged)} a range ('int in 0..13')" if unranged
                        else "bound it by numbers, options, ranged variables and size(...)")
                self.rep.error("E104", "a bound of an int parameter must have a known range: a number, an option, "
                                       "or an expression of ranged variables and size(...)", which.span,
                               f"{hint}: each value it can take is an action id, numbered when the game is "
                               f"compiled")
                return None
            low, high = lo_b[0], hi_b[1]
            if low > high:
                self.rep.error("E114", f"empty range {low}..{high}", p.span, f"write the lower bound first: "
                                                                            f"{high}..{low}")
                return None
            if high - low >= 1000:
                self.rep.error("E114", f"an int parameter of {high - low + 1} values (at most 1,000)", p.span)
                return None
            # the bounds read from the state stay on the parameter until _actions writes them into the guard
            return ir.Param("domain", p.name, Type("int", low, high), low=None if isinstance(lo, ir.Const) else lo,
                            high=None if isinstance(hi, ir.Const) else hi, span=p.span)
        t = scope.type_of_name(p.type_name or "")
        if t is None or t.kind in ("card", "rank"):
            self.rep.error("E104", f"an action parameter ranges over a suit, a player, an enum or numbers "
                                   f"(n: 0..13), not '{p.type_name}'", p.span,
                           did_you_mean(p.type_name or "", ["suit", "player", *scope.enums]))
            return None
        return ir.Param("domain", p.name, t, span=p.span)

    def _trick(self, scope: Scope, p: S.PhaseDecl) -> ir.Trick:
        t = p.trick
        assert t is not None
        for word, sp in t.repeated:
            self.rep.error("E102", f"the trick block of phase '{p.name}' gives '{word}' a second time", sp,
                           f"give '{word}' once: the first one is kept")
        count = scope.check(t.count, {}, INT, "'count'") if t.count is not None else None
        if count is None:
            self.rep.error("E115", f"trick block of phase '{p.name}' needs 'count N'", t.span)
        leader = scope.check(t.leader, {}, PLAYER, "'leader'") if t.leader is not None else ir.Builtin(
            "eldest", PLAYER)
        trump = scope.check(t.trump, {}, SUIT, "'trump'") if t.trump is not None else ir.Const(ir.NONE, SUIT, "none")
        skip = scope.check(t.skip, {}, PLAYER, "'skip'") if t.skip is not None else ir.Const(ir.NONE, PLAYER, "none")
        more_skips = tuple(scope.check(x, {}, PLAYER, "'skip'") for x in t.more_skips)
        bowers = self._bowers(scope, t.bowers) if t.bowers is not None else None
        follow = []
        kinds = set()
        for r in t.follow:
            if r.kind in kinds:
                self.rep.error("E102", f"follow rule '{r.kind}' given twice", r.span)
            kinds.add(r.kind)
            cond = scope.check(r.condition, {}, BOOL, "a follow condition") if r.condition is not None else \
                ir.Const(True, BOOL, "true")
            follow.append(ir.FollowRule(r.kind, cond, r.span))
        card_rules = []
        for r in t.card_rules:
            self._builtin_clash(r.var, r.span)
            cond = scope.check(r.condition, {r.var: CARD}, BOOL, f"a '{r.kind}' rule")
            card_rules.append(ir.CardRule(r.kind, r.var, cond, r.span))
        if t.then is None:
            self.rep.error("E115", f"trick block of phase '{p.name}' needs 'then {{ ... }}' to say what follows",
                           t.span)
            then: tuple = ()
        else:
            then = scope.block(t.then, {})
            self._must_exit(then, t.span, f"the trick block of '{p.name}'")
        after: tuple = ()
        if t.after is not None:
            after = scope.block(t.after, {})
            for s in _walk(after):
                if isinstance(s, (ir.Goto, ir.EndDeal)):
                    self.rep.error("E110", "'after trick' runs between tricks: no 'goto' or 'end deal'", s.span,
                                   "put control flow in 'then', which runs after the last trick")
        order = []
        for e in t.trump_order:
            c = scope.check(e, {}, CARD, "'trump order'")
            if isinstance(c, ir.Const) and c.type == CARD and c.value >= 0:
                if c.value in order:
                    self.rep.error("E102", f"'{c.text}' is twice in the trump order", e.span)
                order.append(c.value)
            elif not (isinstance(c, ir.Const) and c.type == ERROR):
                self.rep.error("E104", "a trump order lists cards of the deck: RANK of SUIT", e.span,
                               "e.g. trump order J of clubs, J of spades, J of hearts, J of diamonds")
        if order and t.bowers is not None:
            self.rep.error("E115", "a trick block has 'bowers' or a 'trump order', not both", t.span,
                           "bowers J is the order J of trumps, J of the same colour")
        dummy = scope.check(t.dummy, {}, PLAYER, "'dummy'") if t.dummy is not None else None
        dummy_by = scope.check(t.dummy_by, {}, PLAYER, "'dummy ... by'") if t.dummy_by is not None else None
        return ir.Trick(count or ir.Const(0, INT, "0"), leader, trump, tuple(follow), skip, then, t.span,
                        after=after, more_skips=more_skips, bowers=bowers, card_rules=tuple(card_rules),
                        dummy=dummy, dummy_by=dummy_by, trump_order=tuple(order))

    def _bowers(self, scope: Scope, e) -> int | None:
        """``bowers RANK``: a constant rank, and a deck whose colours pair every suit with exactly one other."""
        r = scope.check(e, {}, RANK, "'bowers'")
        if not isinstance(r, ir.Const) or r.type != RANK:
            if isinstance(r, ir.Const) and r.type.kind == "error":
                return None
            self.rep.error("E104", "'bowers' names a rank of the deck, e.g. bowers J", e.span)
            return None
        deck = self.rf.deck
        groups = [members for _, members in deck.colors]
        bad = [s for s in deck.suits if sum(s in g for g in groups) != 1] if groups else list(deck.suits)
        if not groups or bad or any(len(g) != 2 for g in groups):
            self.rep.error("E104", "'bowers' needs a deck whose colours pair the suits two by two "
                                   "(the left bower is the other suit of trumps' colour)", e.span,
                           "add e.g. colors black {clubs spades} red {diamonds hearts} to the deck")
            return None
        return r.value

    def _must_exit(self, body: tuple[ir.Stmt, ...], span, what: str) -> None:
        if not _always_exits(body):
            self.rep.error("E113", f"{what} can end without 'goto' or 'end deal'", span,
                           "end every path with 'goto PHASE' or 'end deal'")

    # -- tables, match, properties -------------------------------------------------
    def _tables(self, scope: Scope) -> tuple[ir.Table, ...]:
        out = []
        for t in self.rf.tables:
            rows = []
            first_line: dict[str, int] = {}
            for i, r in enumerate(t.rows):
                if r.name is not None and r.name in first_line:
                    self.rep.error("E102", f"duplicate row '{r.name}' in table '{t.name}'", r.name_span,
                                   f"the first row '{r.name}' is on line {first_line[r.name]}; give this one "
                                   "another name")
                elif r.name is not None:
                    first_line[r.name] = r.span.line
                guard = scope.check(r.guard, {}, BOOL, "a table row")
                body = scope.block(r.body, {})
                for s in _walk(body):
                    if isinstance(s, (ir.Goto, ir.EndDeal)):
                        self.rep.error("E110", "a scoring row only scores: no 'goto' or 'end deal'", s.span,
                                       "put control flow after 'score TABLE'")
                rows.append(ir.Row(r.name or f"row{i + 1}", guard, body, r.span))
            out.append(ir.Table(t.name, tuple(rows), t.span))
        return tuple(out)

    def _match(self, scope: Scope) -> ir.Match | None:
        m = self.rf.match
        if m is None:
            return None
        for word, sp in m.repeated:
            self.rep.error("E102", f"the match gives '{word}' a second time", sp, f"give '{word}' once: the first one "
                           f"is kept")
        if m.start is None:
            self.rep.error("E101", "the match needs 'start PHASE' (the first phase of every deal)", m.span)
        elif m.start not in scope.phases:
            self.rep.error("E109", f"unknown phase '{m.start}'", m.start_span, did_you_mean(m.start, scope.phases))
        if m.ends_when is None:
            self.rep.error("E101", "the match needs 'ends when CONDITION'", m.span)
        if m.returns is None:
            self.rep.error("E101", "the match needs 'returns(p) = EXPR' (each player's result)", m.span)
        fd = scope.check(m.first_dealer, {}, PLAYER, "'first dealer'") if m.first_dealer is not None else \
            ir.Const(0, PLAYER, "seat 0")
        nd = scope.check(m.next_dealer, {}, PLAYER, "'next dealer'") if m.next_dealer is not None else \
            ir.Call("left", (ir.Builtin("dealer", PLAYER),), PLAYER)
        if m.first_dealer_random and m.first_dealer is not None:
            self.rep.error("E102", "'first dealer' is given twice (an expression and 'random')", m.span,
                           "keep one of them")
        ends = scope.check(m.ends_when, {}, BOOL, "'ends when'") if m.ends_when is not None else None
        rv = m.returns_var or "p"
        ret = scope.check(m.returns, {rv: PLAYER}, INT, "'returns'") if m.returns is not None else None
        if ends is None or ret is None or m.start is None:
            return None
        return ir.Match(fd, nd, m.start, ends, rv, ret, m.span, m.first_dealer_random)

    def _properties(self, scope: Scope) -> tuple[ir.Property, ...]:
        out = []
        seen: set[str] = set()
        for p in self.rf.properties:
            if p.name in seen:
                self.rep.error("E102", f"duplicate property '{p.name}'", p.name_span)
                continue
            seen.add(p.name)
            for ph, sp in zip(p.phases, p.phase_spans):
                if ph not in scope.phases:
                    self.rep.error("E109", f"unknown phase '{ph}'", sp, did_you_mean(ph, scope.phases))
            if p.target is not None and p.kind in ("can_end", "can_force", "conserves") and \
                    p.target not in scope.phases:
                self.rep.error("E109", f"unknown phase '{p.target}'", p.target_span, did_you_mean(p.target,
                                                                                                 scope.phases))
            elif p.target is not None and p.target in p.phases:
                self.rep.error("E119", f"property '{p.name}' reaches '{p.target}', one of its own phases",
                               p.target_span, "the phases are those to leave and the target lies outside them, "
                                              "e.g. can_end {declare, answer} reach play")
            if p.kind == "complete" and p.target not in scope.tables:
                self.rep.error("E117", f"unknown scoring table '{p.target}'", p.target_span,
                               did_you_mean(p.target or "", scope.tables))
            expr = None
            if p.expr is not None:
                env = {"p": PLAYER} if p.kind in ("invariant", "deal_bound", "conserves") else {}
                scope.gain_allowed = p.kind == "deal_bound"
                try:
                    expr = scope.check(p.expr, env, BOOL, f"property '{p.name}'")
                finally:
                    scope.gain_allowed = False
                if p.kind == "deal_bound" and not _uses_gain(expr):
                    self.rep.error("E119", f"deal_bound property '{p.name}' does not use gain()", p.expr.span,
                                   "a deal bound limits what one deal changes, e.g. deal_bound gain(points[p]) <= 3")
            player = scope.check(p.player, {}, PLAYER, "'can_force'") if p.player is not None else None
            out.append(ir.Property(p.name, p.kind, expr, p.phases, p.target, player, p.span))
        return tuple(out)

    # -- action numbering ------------------------------------------------------------
    def _slots(self, phases: tuple[ir.Phase, ...]) -> tuple[ir.ActionSlot, ...]:
        slots: dict[tuple[str, int | None], ir.ActionSlot] = {}
        need_done = False
        for ph in phases:
            for a in ph.actions:
                p = a.param
                if p is None:
                    slots.setdefault((a.name, None), ir.ActionSlot(a.name, None, a.label))
                elif p.kind == "choose":
                    need_done = True
                elif p.kind == "domain":
                    if p.type.kind == "int":
                        for v in range(p.type.low, p.type.high + 1):
                            slots.setdefault((a.name, v), ir.ActionSlot(a.name, v, f"{a.label} {v}"))
                        continue
                    for i, text in enumerate(self._domain_values(p.type)):
                        slots.setdefault((a.name, i), ir.ActionSlot(a.name, i, f"{a.label} {text}"))
        out = list(slots.values())
        if need_done:
            out.append(ir.ActionSlot(DONE_SLOT, None, "done"))
        return tuple(out)

    def _domain_values(self, t: Type) -> list[str]:
        if t.kind == "suit":
            return list(self.rf.deck.suits)
        if t.kind == "player":
            return [f"seat {i}" for i in range(self.rf.players)]
        for e in self.rf.enums:
            if e.name == t.enum:
                return [lab if lab is not None else v for v, lab in zip(e.values, e.labels)] if e.labels \
                    else list(e.values)
        return []


def _within_bounds(param: ir.Param, guard: ir.Expr) -> ir.Expr:
    """The guard of an action whose int parameter has a bound read from the state (``bid(n: 0..hand_size)``):
    ``LOW <= n and n <= HIGH and GUARD``, the bounds read first (so that the written guard is read only for a
    value between them), and the parameter's ``low``/``high`` cleared: the action ids are those of the
    constant range, and the engine, the exporters and the verifier read the bounds through the guard alone."""
    n = ir.Local(param.name, param.type, param.span)
    test = None
    for op, bound in ((">=", param.low), ("<=", param.high)):
        if bound is not None:
            part = ir.BinOp(op, n, bound, BOOL, param.span)
            test = part if test is None else ir.BinOp("and", test, part, BOOL, param.span)
    if not (isinstance(guard, ir.Const) and guard.value is True):
        test = ir.BinOp("and", test, guard, BOOL, guard.span)   # the written guard's span: its text in messages
    return test


def _folded(e):
    """A constant int expression (``-1``, ``2 * target``) as the constant it is."""
    v = fold_int(e)
    return ir.Const(v, INT, str(v), e.span) if v is not None and not isinstance(e, ir.Const) else e


def _uses_gain(e) -> bool:
    """Whether an IR expression calls gain() (an error placeholder counts, to avoid a second error)."""
    if isinstance(e, ir.Call):
        return e.fn == "gain" or any(_uses_gain(x) for x in e.args)
    if isinstance(e, ir.Const):
        return e.type == ERROR
    if isinstance(e, ir.BinOp):
        return _uses_gain(e.left) or _uses_gain(e.right)
    if isinstance(e, (ir.Not, ir.Neg)):
        return _uses_gain(e.operand)
    if isinstance(e, ir.Cond):
        return _uses_gain(e.test) or _uses_gain(e.then) or _uses_gain(e.orelse)
    if isinstance(e, ir.Quant):
        return _uses_gain(e.body)
    if isinstance(e, ir.InSet):
        return _uses_gain(e.value) or any(_uses_gain(x) for x in e.items)
    return False


def _default(t: Type) -> ir.Expr:
    if t.kind == "int":
        v = t.low if t.low is not None and t.low > 0 else 0
        return ir.Const(v, t, str(v))
    if t.kind == "bool":
        return ir.Const(False, BOOL, "false")
    return ir.Const(ir.NONE, t, "none")


def _always_exits(body: tuple[ir.Stmt, ...]) -> bool:
    for s in body:
        if isinstance(s, (ir.Goto, ir.EndDeal)):
            return True
        if isinstance(s, ir.If) and s.orelse and all(_always_exits(b) for _, b in s.branches) and \
                _always_exits(s.orelse):
            return True
    return False


_walk = ir.walk_stmts

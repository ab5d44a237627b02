"""Every construct of the language, and how the verifier models it (the table of ``docs/verify.md``).

The rules' control (phases, effects, tricks, deals, rule errors) is one machine for the engine and the
verifier (:mod:`atout.engine.machine`), so this table is about the *abstract domain*: what the abstraction
keeps of each construct's values, and so what a proof covers.  ``tests/test_constructs.py`` checks that
every statement and expression class of the IR, every field of a trick, an action parameter, a phase and
the match, every built-in function and name of the compiler has an entry here, and that
``docs/verify.md`` shows this table: a construct added to the language without a line here fails the
suite.  A construct the abstraction cannot bound makes the verdicts that depend on it unknown, naming it
(:class:`atout.verify.absint.Unsupported`).
"""
from __future__ import annotations

# (construct, IR node or field, how the abstraction models it)
STATEMENTS = [
    ("`VAR = E`, `VAR[i] += E`, `-=`", "Assign",
     "the machine's: the index must be a seat (or side), the value must stay in the declared range (else a "
     "rule error). Deal variables: exact up to the largest constant they meet, then an interval. Match "
     "variables: any value of their type, with the per-deal gain kept; their ranges are proved over deals "
     "(verify/match_ranges.py), otherwise such a write may fail in the abstraction"),
    ("`move N from Z to Z`, `move all`", "Move",
     "the machine's (N >= 0, enough cards, a chance draw from a hidden zone); zone sizes exact, each card "
     "drawn a class (a tracked card or an anonymous one); a number of cards the abstraction cannot bound "
     "makes the verdicts unknown"),
    ("`move CARD from Z to Z`", "MoveCard",
     "the machine's (the card must be in Z, else a rule error); a tracked card exactly; an anonymous card or a "
     "tracked card whose zone is forgotten may or may not be there, and both are explored"),
    ("`dealer = P`", "SetDealer", "the machine's, exactly (P must be a player, else a rule error)"),
    ("`deal N, M from Z to ZONE starting P`", "Deal",
     "the machine's (P a player, packets >= 0, enough cards); each card dealt a chance class"),
    ("`shuffle Z`", "Shuffle", "no effect: every draw from a hidden zone is a uniform chance event"),
    ("`gather Z`", "Gather", "every card in Z"),
    ("`reveal Z`", "Reveal", "the revealed zones are kept"),
    ("`if / elif / else`", "If", "the machine's; a condition the abstraction cannot decide takes both ways"),
    ("`for p in players`, `for s in sides`, `for s in suits`, `for i in LO..HI`", "For, For.over, source, high",
     "the machine's, exactly (a range's bounds are enumerated up to 64 values, else the verdicts are unknown)"),
    ("`for c in ZONE`", "For",
     "once per card of the zone when the loop starts: each tracked card, and the anonymous class once per "
     "anonymous card (the zone's size must be kept, else the verdicts are unknown)"),
    ("`VAR = random {V: W, ...}`, `VAR = random LO..HI`", "RandomAssign",
     "a chance node: every outcome is explored (the values evaluated when the statement runs, the range checked "
     "as for `=`)"),
    ("`goto PHASE`, `end deal`", "Goto, EndDeal", "the machine's, exactly"),
    ("`score TABLE`", "Score",
     "the machine's: every row whose condition holds fires, the conditions read before any row fires; the "
     "outcome (deal variables, tricks, dealer) is recorded for the table checks"),
]

EXPRESSIONS = [
    ("constants, options", "Const", "exact"),
    ("variables", "VarRef, Index",
     "as stored (above); an index that may not be a seat is a rule error in the abstraction too"),
    ("parameters, loop and quantifier variables", "Local", "exact (a card parameter is a card class)"),
    ("zones: `stock`, `hand[p]`", "ZoneRef", "the zone's slot; `hand[P]` with P not a player is a rule error"),
    ("built-in names: `dealer`, `trick_number`, ...", "Builtin", "see the names below"),
    ("`A op B`, `not A`, `-A`, `if C then A else B`", "BinOp, Not, Neg, Cond",
     "on sets of values and intervals; a division that may be by 0 is a rule error"),
    ("`A in {X, Y}`, `A in LO..HI`", "InSet, BinOp", "on sets of values"),
    ("`any`, `all`, `sum`, `count` over players", "Quant", "exact per player, combined"),
    ("`any`, `all`, `sum`, `count` over a zone", "Quant",
     "tracked cards exactly, the anonymous ones as one class (a count is an interval); in a deal-end block, "
     "z3 over where each card may be (docs/verify.md, \"Deal ends followed by z3\")"),
    ("`next(q after P: C)`", "NextPlayer", "every seat in turn; a start that is not a player is a rule error"),
    ("`RANK of SUIT`", "Call",
     "a tracked card (the rules' literals, for every suit the suit expression can take) or an anonymous one"),
]

FUNCTIONS = {
    "size": "exact, or any number when the zone's size is not kept",
    "has": "exact for a tracked card; for an anonymous one, true or false",
    "top": "a tracked card of the zone or an anonymous one (the order of cards is not kept), or none",
    "suit": "exact for a tracked card, any suit for an anonymous one",
    "rank": "exact for a tracked card, any rank not fully tracked for an anonymous one",
    "card": "see `RANK of SUIT`",
    "left": "exact; of none: a rule error",
    "right": "exact; of none: a rule error",
    "partner": "exact; of none: a rule error",
    "side": "exact; of none: a rule error",
    "tricks": "exact per player with fewer than 8 tricks a deal, else only the total (and each side's, or each "
              "way the total splits between the sides in a statement that reads it); of none: a rule error",
    "played": "exact",
    "total": "exact or an interval", "max": "exact or an interval", "min": "exact or an interval",
    "abs": "exact or an interval",
    "color": "exact", "seat": "exact", "ord": "exact",
    "holder": "exact for a tracked card whose zone is kept; for an anonymous one, each player whose hand may "
              "hold an anonymous card, and none when another zone may hold one",
    "clockwise": "exact; of none: a rule error; an offset the abstraction cannot tell: any player",
    "gain": "(deal bounds) the change of a match variable in the deal, kept exactly up to one past the "
            "bound's constants",
}

BUILTINS = {
    "dealer": "exact", "eldest": "exact", "actor": "exact", "leader": "exact", "winner": "exact",
    "trick_number": "exact",
    "led_suit": "the suit of the first card played: exact for a tracked card (any suit for a left bower, any "
                "suit or none for a card of a trump order), any for an anonymous one",
    "deal_number": "0 when the match starts, and throughout a match of one deal; exact in a match of at most 16 "
                   "deals whose rules read it (see above); otherwise any number (the match's end is checked with "
                   "every value)",
    "player_count": "exact (a constant)",
}

CONTROL = [
    ("phases: `choice`, `auto`, `trick`", "Phase.kind",
     "the machine's; a choice phase's actor must be a player (else a rule error)"),
    ("action parameters: a card, `N: LO..HI cards from Z to Z`, a value of a type, `n: LO..HI`", "Param",
     "the machine's; cards are classes; the bounds of a choice are enumerated up to the cards in its zone; "
     "an int parameter's bounds read from the state are part of its guard (the compiler writes them there)"),
    ("`action ... public`", "Action.public", "not needed by any verdict (who sees a chosen card)"),
    ("guards", "Action.guard", "a guard the abstraction cannot decide makes the action *not surely legal*: "
                               "it counts for the other side in `can_force`, never for the side that needs it"),
    ("trick: `count`, `leader`, `skip A, B`", "Trick.count, leader, skip, more_skips",
     "the machine's (a leader that is not a player is a rule error; skipped players sit out)"),
    ("trick: `trump`, `bowers`, `trump order C, C`, `follow suit, head, trump`",
     "Trick.trump, bowers, trump_order, follow",
     "not modelled: any card of the hand may be played, and any player who played may win the trick (an "
     "over-approximation); the engine replays every counterexample with the real follow rules"),
    ("trick: `after trick { }`, `then { }`", "Trick.after, then", "the machine's"),
    ("trick: `dummy P by Q`", "Trick.dummy, dummy_by",
     "the machine's: on P's turn Q is the player to move (so Q's in `can_force`), P's hand is revealed at the "
     "opening lead; P and Q exact"),
    ("trick: `lead c when C`, `card c when C`", "Trick.card_rules, CardRule",
     "not modelled, as the follow rules (they only narrow the cards the engine allows); their conditions are "
     "evaluated on every card of the hand for the rule errors they may raise"),
    ("`ends when`", "Match.ends_when",
     "the machine's: checked when play comes to rest (before a chance event or a decision) after a variable "
     "changed, and at the end of every deal; with the match variables unknown, the match may end there"),
    ("`first dealer`, `first dealer random`, `next dealer`", "Match.first_dealer, next_dealer, first_dealer_random",
     "the machine's (a dealer must be a player); the deal starts are explored for every possible dealer"),
    ("`returns(p)`", "Match.returns", "not needed by any verdict"),
    ("`deal var`, `match var`, `per player`, `per side`", "Var",
     "see assignments; a deal variable nothing will read before the next deal is forgotten (liveness), but "
     "never one a property reads; one a trick phase (or a choice phase) never writes and reads only in its "
     "deal-end block (or its actions' deal-end tails) is frozen there (not kept; its values on entering the "
     "phase are recorded and given to z3)"),
    ("zones: `hidden`, `public`, `private`, `home`", "Zone",
     "sizes exact; a hidden zone whose size no rule or property needs may be blurred in the explorations "
     "that track cards, and so is a zone the rules and properties read only through quantifiers over its "
     "cards, that nothing takes cards from (Hearts' `taken`): an unknown size stands for every size, and the "
     "conservation of cards still tells when no anonymous card can be in such zones"),
    ("rule errors", "RuleError",
     "states of the abstraction: a range, an index, a player, a division, a draw from too few cards, effects "
     "that never reach a decision; `builtin:no_rule_error` reports them, and liveness never counts on a path "
     "that may stop in one"),
]

PROPERTIES = [
    ("`invariant C`", "C in every state where the engine can be observed: a decision, a chance node, the "
                      "end of the match"),
    ("`deal_bound C`", "C on the gains of every deal that ends (or ends the match)"),
    ("`terminates {PHASES}`", "no play stays in the phases for ever within a deal (a rule error also stops it; "
                              "the end of the deal leaves them, and so does a rest at a chance node of another "
                              "phase; whether deals go on for ever is `terminates match`)"),
    ("`terminates match`", "no deal goes on for ever and the number of deals is bounded"),
    ("`can_end {PHASES} reach P`", "from every reachable state of the phases (a decision, or a chance node: a "
                                   "`do` phase such as `{deal}` rests only at its shuffles, draws and `random`s) "
                                   "the players together can force P whatever chance does, with surely legal "
                                   "moves; a chance node inside a move is covered when every outcome of the move "
                                   "is; phases where play never rests give unknown, not a vacuous proof"),
    ("`can_force X {PHASES} reach P`", "the same for player X alone, whatever the others and chance do"),
    ("`complete TABLE`", "exactly one row applies to every outcome reachable at `score TABLE`"),
    ("`reachable`", "every phase and action is taken in seeded engine runs"),
    ("`conserves {PHASES} reach P where C`", "no card gained or lost, no rule error raised in the phases, C on "
                                             "every arrival at P from them (the first state of P where play "
                                             "rests, a decision or a chance node, after a state of the phases); "
                                             "no arrival at all gives unknown"),
]


def render() -> str:
    """The markdown tables of docs/verify.md, section "What a proof covers"."""
    out = ["| construct | IR | how the abstraction models it |", "|---|---|---|"]
    for name, node, how in STATEMENTS + EXPRESSIONS + CONTROL:
        out.append(f"| {name} | {node} | {how} |")
    out += ["", "| function or name | how the abstraction models it |", "|---|---|"]
    for fn, how in FUNCTIONS.items():
        out.append(f"| `{fn}()` | {how} |")
    for name, how in BUILTINS.items():
        out.append(f"| `{name}` | {how} |")
    out += ["", "| property | what a proof covers |", "|---|---|"]
    for name, what in PROPERTIES:
        out.append(f"| {name} | {what} |")
    return "\n".join(out) + "\n"


def covered_nodes() -> set[str]:
    """The IR class names and ``Class.field`` names the table covers (``Trick.count, leader`` is
    ``Trick.count`` and ``Trick.leader``)."""
    out = set()
    for _, node, _ in STATEMENTS + EXPRESSIONS + CONTROL:
        cls = None
        for part in node.replace(" ", "").split(","):
            if "." in part:
                cls = part.split(".")[0]
                out.add(part)
            elif cls is not None and part[:1].islower():
                out.add(f"{cls}.{part}")
            else:
                out.add(part)
    return out

"""Perfect recall: what each seat has observed, in order, from the log of a match.

A state keeps one log (``state.log``) of everything that happened that any seat could observe; every entry says
which seats see its secret part, so each seat's view of it is a function of the entry alone.  The information
state of seat ``p`` (``information_state_string(p)``, OpenSpiel's ``information_state_tensor``) is ``p``'s view of
the log, which only grows, with what ``p`` observes at the node itself: a card seen once and hidden again stays in
it (perfect recall, as OpenSpiel's algorithms such as CFR assume).

Log entries are tuples of at least three items ``(kind, secret, public, ...)``; ``kind`` is an actor seat (0-based)
for a decision, else one of the negative constants below; ``secret`` is what only some seats may see; ``public``
is whether every seat sees it.  The kinds:

* decision ``(actor, action id, public)``: ``public`` when the action is seen by all (trick cards, named actions,
  ``done``, a card choice into a zone every seat sees); a hidden choice (a discard face down) is seen by the others
  as "the actor chose a card", by the actor in full;
* ``(CHANCE, outcome, public, slot, seers)``: a chance outcome; ``slot`` is the zone slot a drawn card goes to
  (-1 for the first dealer's draw and ``VAR = random``), ``seers`` the bitmask of the seats that see the outcome
  (those who see that zone at the time, or that entry of the variable);
* ``(REVEAL, cards, True, slot, seers)``: a zone slot shown to everyone (``reveal``, the dummy) and its cards;
* ``(MOVE, cards, public, src, seers, dst, count)``: ``count`` cards moved by the rules' effects (``move``,
  ``gather``; not the cards of a trick, which follow the plays) from slot ``src`` to slot ``dst``; the seats in
  ``seers`` (those who see ``src`` or ``dst`` at the time) see which cards, the others how many;
* ``(VAR, value, public, var, seers, entry)``: variable number ``var`` (declaration order; ``entry``: the seat or
  side of a per-player or per-side variable, -1 for one value) changed to ``value``; only the seats in ``seers``
  see it (the others do not learn that it changed);
* ``(PHASE, phase number, True)``: a phase begins (phases in rule-file order);
* ``(DEAL, dealer, True)``: a deal begins, dealt by that seat;
* ``(DEALER, dealer, True)``: the rules made another seat the dealer (``dealer = ...``), seen when play comes to
  rest.

This module has no imports: the exported Python module (``atout export --to python``) embeds its text, so that the
engine and the export render the same log the same way.
"""

CHANCE = -1
REVEAL = -5
MOVE = -6
VAR = -7
PHASE = -8
DEAL = -9
DEALER = -10


def seat_view(entry, player):
    """Whether seat ``player`` sees the secret part of ``entry``: a seat (0-based), -1 for the public observer
    (what every seat sees), None for everything."""
    if player is None or entry[2]:
        return True
    kind = entry[0]
    if kind >= 0:
        return kind == player
    if player < 0 or len(entry) < 5:
        return False
    return bool(entry[4] >> player & 1)


def _ids(cards):
    return ",".join("%d" % c for c in sorted(cards))


def recall_tokens(log, player, var_names, phase_names):
    """The log as seat ``player`` saw it (``player``: a seat, -1 for the public observer, None for everything), one
    token per entry, in order:

    * ``P:A`` seat P's action A (an action id), ``P:?`` a choice of P that ``player`` does not see;
    * ``cZ:A`` chance outcome A (a card id) drawn to zone slot Z, ``cZ:?`` a card drawn there unseen; ``c:A`` /
      ``c:?`` the first dealer's draw or a ``random`` outcome;
    * ``rZ=A,B`` zone slot Z shown with cards A, B;
    * ``mZ>Y=A,B`` cards A, B moved from slot Z to slot Y, ``mZ>Y=#n`` n cards ``player`` does not see;
    * ``NAME=V`` / ``NAME[K]=V`` a variable (entry K) became V (its number: a card, seat, suit or rank id, an
      enum's value index, 1/0 for a bool); entries ``player`` does not see are left out;
    * ``>NAME`` phase NAME begins; ``deal:D`` a deal dealt by seat D begins; ``dealer:D`` seat D is now the dealer.
    """
    out = []
    for e in log:
        kind = e[0]
        sees = seat_view(e, player)
        if kind >= 0:
            out.append("%d:%s" % (kind, e[1] if sees else "?"))
        elif kind == CHANCE:
            where = "c%d" % e[3] if len(e) > 3 and e[3] >= 0 else "c"
            out.append("%s:%s" % (where, e[1] if sees else "?"))
        elif kind == REVEAL:
            out.append("r%d=%s" % (e[3], _ids(e[1])))
        elif kind == MOVE:
            out.append("m%d>%d=%s" % (e[3], e[5], _ids(e[1]) if sees else "#%d" % e[6]))
        elif kind == VAR:
            if sees:
                name = var_names[e[3]] if e[5] < 0 else "%s[%d]" % (var_names[e[3]], e[5])
                out.append("%s=%d" % (name, e[1]))
        elif kind == PHASE:
            out.append(">" + phase_names[e[1]])
        elif kind == DEAL:
            out.append("deal:%d" % e[1])
        elif kind == DEALER:
            out.append("dealer:%d" % e[1])
    return out


def masked_entry(entry, seat):
    """``entry`` as seat ``seat`` may know it: unchanged when the seat sees it, else with its secret part replaced
    by -1 (a hidden card choice, an unseen chance card) or by as many -1 as cards (a move), and a variable's change
    by None (left out).  Reads neither the secret part nor a slice of an entry the seat does not see."""
    if seat_view(entry, seat):
        return entry
    kind = entry[0]
    rest = tuple(entry[i] for i in range(3, len(entry)))
    if kind == VAR:
        return None
    if kind == MOVE:
        return (MOVE, (-1,) * entry[6], False) + rest
    return (kind, -1, False) + rest

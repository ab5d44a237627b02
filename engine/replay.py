"""Replaying records (from ``simulate --record`` or ``verify --trace-out``) step by step."""
from __future__ import annotations

import json

from .game import Game
from .simulate import RECORD_FORMAT
from .state import IllegalActionError


class ReplayError(Exception):
    """A record that does not replay: for another game, or disagreeing with the engine (exit status 1)."""


class MalformedRecord(ReplayError):
    """A file that is not a readable, well-formed record file (exit status 2)."""


def read_records(path: str) -> list[dict]:
    """Read a JSON-lines record file; raises ReplayError with the line number on bad input."""
    out = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise MalformedRecord(f"cannot read record file '{path}': {exc.strerror}") from None
    with fh:
        i = 0
        try:
            for i, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise MalformedRecord(f"{path}:{i}: not JSON ({exc.msg} at column {exc.colno})") from None
                except RecursionError:
                    raise MalformedRecord(f"{path}:{i}: not an Atout record (JSON nested too deeply)") from None
                if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT or not isinstance(
                        rec.get("steps"), list):
                    raise MalformedRecord(f"{path}:{i}: not an Atout record (expected \"format\": "
                                      f"\"{RECORD_FORMAT}\")")
                problem = _malformed(rec)
                if problem:
                    raise MalformedRecord(f"{path}:{i}: not an Atout record ({problem})")
                out.append(rec)
        except UnicodeDecodeError as exc:
            raise MalformedRecord(f"{path}:{i + 1}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); records "
                              "are JSON lines written by 'atout simulate --record' or 'atout verify "
                              "--trace-out'") from None
        except OSError as exc:
            raise MalformedRecord(f"cannot read record file '{path}': {exc.strerror or exc}") from None
    if not out:
        raise MalformedRecord(f"{path}: no record in the file")
    return out


def _is_int(x) -> bool:
    return type(x) is int          # not a bool, not a float (1.0, Infinity), not a string


def _is_number(x) -> bool:
    return (type(x) is int or type(x) is float) and x == x and abs(x) != float("inf")


def _malformed(rec: dict) -> str:
    """Why ``rec`` is not a well-formed record ('' if it is): the fields and their types of docs/records.md."""
    for k, step in enumerate(rec["steps"]):
        if not isinstance(step, dict):
            return f"step {k + 1} is not an object"
        if not _is_int(step.get("action")):
            return f"step {k + 1}: \"action\" must be an integer, not {step.get('action')!r}"
        if "player" in step and not _is_int(step["player"]):
            return f"step {k + 1}: \"player\" must be an integer seat (-1 for chance), not {step['player']!r}"
        if "text" in step and not isinstance(step["text"], str):
            return f"step {k + 1}: \"text\" must be a string"
    if "returns" in rec and not (isinstance(rec["returns"], list) and all(_is_number(x) for x in rec["returns"])):
        return f"\"returns\" must be a list of numbers, not {rec['returns']!r}"
    for key in ("match", "seed"):
        if rec.get(key) is not None and not _is_int(rec[key]):
            return f"\"{key}\" must be an integer, not {rec[key]!r}"
    if "options" in rec and not (isinstance(rec["options"], dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in rec["options"].items())):
        return "\"options\" must map option names to values written as text"
    if "deals" in rec and not (isinstance(rec["deals"], list) and all(isinstance(d, dict) for d in rec["deals"])):
        return "\"deals\" must be a list of deal summaries"
    return ""


def zone_phrase(game: Game, slot_index: int, seat: int | None = None) -> str:
    """A zone slot for a reader: 'seat 1's hand', 'your hand', 'the stock'."""
    slot = game.zone_slots[slot_index]
    if slot.owner is None:
        return f"the {slot.name}"
    return f"your {slot.name}" if slot.owner == seat else f"seat {slot.owner}'s {slot.name}"


def narrate(state, action: int) -> str:
    """What ``action`` does in ``state`` (before it is applied), for a reader of a replay: the action's text, and
    for a card drawn by chance where it goes ('deal 10♥ to seat 1's hand')."""
    text = state.action_to_string(action)
    if state.is_chance_node() and state.pending and isinstance(state.pending[0][1], int) \
            and state.pending[0][0] >= 0:
        return f"{text} to {zone_phrase(state.game, state.pending[0][1])}"
    return text


def replay(game: Game, rec: dict, show=None):
    """Apply every step of ``rec``; ``show(state, step, text, before)`` is called after each, with ``text`` the
    step narrated (:func:`narrate`) and ``before`` a summary of the state before it (for trick and deal
    reports: the trick on the table, the tricks won, the number of deals). Returns the final state.

    Raises ReplayError when a step is illegal, its text differs from the engine's, or the record's returns or
    deal summaries differ from the engine's; MalformedRecord for a malformed step.
    """
    if rec.get("game") != game.name:
        raise ReplayError(f"the record is of game '{rec.get('game')}', the rule file of '{game.name}'")
    state = game.new_initial_state()
    for k, step in enumerate(rec["steps"]):
        narrated, before = _step(state, k, step)
        if show is not None:
            show(state, step, narrated, before)
    _check_end(state, rec)
    return state


def _step(state, k: int, step: dict):
    """Apply step ``k`` (0-based) of a record to ``state`` after checking it; returns (the step narrated, the
    summary of the state before it: trick on the table, tricks won, deals played, seat whose card it is)."""
    try:
        action = int(step["action"])
        player = int(step.get("player", state.current_player()))
    except (KeyError, TypeError, ValueError):
        raise MalformedRecord(f"step {k + 1}: malformed step {step!r}") from None
    if state.is_terminal():
        raise ReplayError(f"step {k + 1}: the match is over after step {k}, but the record goes on")
    legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
    if player != state.current_player():
        raise ReplayError(f"step {k + 1}: the record says seat {player} acts, the engine says "
                          f"{state.current_player()}")
    if action not in legal:
        what = "chance outcome" if state.is_chance_node() else f"action of seat {player}"
        raise ReplayError(f"step {k + 1}: {action} is not a legal {what} here (legal: "
                          f"{', '.join(map(str, sorted(legal)[:12]))}{', ...' if len(legal) > 12 else ''})")
    text = state.action_to_string(action)
    if "text" in step and step["text"] != text:
        raise ReplayError(f"step {k + 1}: the record says '{step['text']}', the engine '{text}'")
    narrated = narrate(state, action)
    before = (list(state.trick_cards), list(state.tricks_won), len(state.deal_log), state.actor)
    try:
        state.apply_action(action)
    except IllegalActionError as exc:
        raise ReplayError(f"step {k + 1}: {exc}") from None
    return narrated, before


def _check_end(state, rec: dict) -> None:
    if "returns" in rec:     # a record of a whole match (simulate --record): it ends where the match does
        if not state.is_terminal():
            raise ReplayError(f"the record stops after step {len(rec['steps'])}, before the end of the match")
        if [float(x) for x in rec["returns"]] != state.returns():
            raise ReplayError(f"returns differ: record {rec['returns']}, engine {state.returns()}")
    if "deals" in rec:
        engine_deals = json.loads(json.dumps(state.deal_log, ensure_ascii=False))
        for d, (a, b) in enumerate(zip(rec["deals"], engine_deals)):
            if a != b:
                diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
                raise ReplayError(f"deal {d + 1}: the record's summary differs from the engine's in "
                                  f"{', '.join(map(str, diff))} (record {a.get(diff[0])!r}, engine "
                                  f"{b.get(diff[0])!r})")
        if len(rec["deals"]) != len(engine_deals):
            raise ReplayError(f"the record summarises {len(rec['deals'])} deals, the engine played "
                              f"{len(engine_deals)}")


def step_report(state, step: dict, text: str, before, seat: int | None = None) -> list[str]:
    """The lines a replay prints for one step: who did what, then the trick it completed (who played what,
    who took it) and the deal it ended (tricks, what each seat or side gained), as ``atout play`` says them."""
    from .observe import seat_label
    from .terminal import deal_gains
    g = state.game
    p = step.get("player", 0)
    who = "chance" if p < 0 else seat_label(p, seat)
    lines = [f"  {len(state.history):4d}  {who:>7}: {text}"]
    trick_before, tricks_before, deals_before, actor = before
    if trick_before and not state.trick_cards and p >= 0 and state.history[-1] < g.num_cards:
        cards = trick_before + [(actor, state.history[-1])]
        after = state.tricks_won if len(state.deal_log) == deals_before else state.deal_log[deals_before].get("tricks")
        winner = next((q for q in range(g.players) if after and after[q] > tricks_before[q]), None)
        played = ", ".join(f"{seat_label(q, seat)} {g.card_str(c)}" for q, c in cards)
        took = "" if winner is None else f" -> {seat_label(winner, seat)} {'take' if winner == seat else 'takes'} it"
        lines.append(f"              trick: {played}{took}")
    for n in range(deals_before, len(state.deal_log)):
        d = state.deal_log[n]
        tricks = d.get("tricks")
        gained = deal_gains(state, d, seat)
        lines.append(f"        -- deal {n + 1} over: "
                     + (f"tricks {', '.join(f'{seat_label(q, seat)} {t}' for q, t in enumerate(tricks))}; "
                        if tricks and any(tricks) else "")
                     + (f"this deal: {gained}" if gained else "no score this deal"))
    return lines


class Stepper:
    """A record played back step by step (``atout replay --step``): forward, back, jump to a step or a deal.

    The whole record is checked first (as :func:`replay` does: a bad record raises ReplayError before any
    stepping).  Positions are step counts: position ``k`` is the state after the first ``k`` steps (0: the
    start of the match); deals are numbered from 1.  ``seat`` (0-based) shows the table as that seat saw
    it; None shows everything (a record is full information).
    """

    CHECKPOINT = 64     # a clone every so many steps: going back replays at most that many

    def __init__(self, game: Game, rec: dict, seat: int | None = None):
        self.game, self.rec, self.seat = game, rec, seat
        self.reports: list[list[str]] = []
        self.deal_starts = [0]          # position at which each deal starts (deal 1 at 0)
        self._checkpoints = {0: game.new_initial_state()}
        state = game.new_initial_state()

        def show(st, step, text, before):
            self.reports.append(step_report(st, step, text, before, seat))
            if len(st.deal_log) > before[2]:
                self.deal_starts.append(len(self.reports))
            if len(self.reports) % self.CHECKPOINT == 0:
                self._checkpoints[len(self.reports)] = st.clone()
        state = replay(game, rec, show)
        self.final = state
        self.length = len(rec["steps"])
        if self.deal_starts[-1] >= self.length and len(self.deal_starts) > 1 and state.is_terminal():
            self.deal_starts.pop()      # the match ended with the last deal: no deal starts after it

    def state_at(self, k: int):
        """The engine state after the first ``k`` steps (0 <= k <= length)."""
        k = max(0, min(k, self.length))
        base = max(c for c in self._checkpoints if c <= k)
        state = self._checkpoints[base].clone()
        for i in range(base, k):
            _step(state, i, self.rec["steps"][i])
        return state

    def screen(self, k: int) -> str:
        """What the stepper shows at position ``k``: the step just taken (and the trick or deal it ended), then
        the table."""
        from .observe import full_string, table_string
        state = self.state_at(k)
        head = self.reports[k - 1] if k > 0 else ["  start of the match"]
        table = full_string(state) if self.seat is None else table_string(state, self.seat)
        return "\n".join(head + ["", table])

    def target(self, command: str, k: int) -> int | None | str:
        """The position a stepper command moves to from ``k``; 'quit'; a message (a str starting with '!') for a
        command it does not know.  Commands: Enter or n [N] (forward), b [N] (back), step K, deal N, end."""
        words = command.strip().lower().split()
        if words and words[0] in ("n", "next", "+", "b", "back", "-") and len(words) > 1 and not words[1].isdigit():
            return f"! '{command.strip()}': a count of steps is a number, 'n 10' or 'b 10'"
        if not words or words[0] in ("n", "next", "+"):
            n = int(words[1]) if len(words) > 1 else 1
            return min(self.length, k + n)
        if words[0] in ("q", "quit", "exit"):
            return "quit"
        if words[0] in ("b", "back", "-"):
            n = int(words[1]) if len(words) > 1 else 1
            return max(0, k - n)
        if words[0] == "end":
            return self.length
        if words[0] == "start":
            return 0
        if words[0] == "step" and len(words) == 2 and words[1].isdigit() or (len(words) == 1 and words[0].isdigit()):
            n = int(words[-1])
            if not 0 <= n <= self.length:
                return f"! step {n}: the record has steps 0..{self.length}"
            return n
        if words[0] == "deal" and len(words) == 2 and words[1].isdigit():
            n = int(words[1])
            if not 1 <= n <= len(self.deal_starts):
                return f"! deal {n}: the record has deals 1..{len(self.deal_starts)}"
            return self.deal_starts[n - 1]
        return f"! '{command.strip()}' is not a command: " + STEPPER_HELP


STEPPER_HELP = ("Enter or 'n' next step, 'n 10' ten steps, 'b' back, 'b 10', 'step K' (or just K) to step K, "
                "'deal N' to the start of deal N, 'start', 'end', 'help', 'q' to quit")


def step_through(stepper: Stepper, input_fn=input, out=None) -> int:
    """Run the interactive stepper; returns 0.  ``input_fn(prompt)`` reads a command (EOFError quits)."""
    import sys
    out = out or sys.stdout
    k = 0
    print(f"== match {stepper.rec.get('match', '?')} of {stepper.rec.get('game')}: {stepper.length} steps, "
          f"{len(stepper.deal_starts)} deals; {STEPPER_HELP}", file=out)
    print(stepper.screen(k), file=out, flush=True)
    while True:
        try:
            command = input_fn(f"step {k}/{stepper.length}> ")
        except (EOFError, OSError, RuntimeError):
            print("", file=out)
            return 0
        if command.strip().lower() in ("help", "?", "h"):
            print(STEPPER_HELP, file=out, flush=True)
            continue
        to = stepper.target(command, k)
        if to == "quit":
            return 0
        if isinstance(to, str):
            print(to[2:], file=out, flush=True)
            continue
        if to == k:
            print("(the end of the record)" if k == stepper.length else "(the start of the match)", file=out,
                  flush=True)
            continue
        k = to
        print(stepper.screen(k), file=out, flush=True)


def first_record_options(path: str) -> dict[str, str]:
    """The ``options`` of the first record of ``path`` ({} when it has none); raises MalformedRecord."""
    opts = read_records(path)[0].get("options") or {}
    if not isinstance(opts, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in opts.items()):
        raise MalformedRecord(f"{path}: \"options\" must map option names to values written as text")
    return dict(opts)


def replay_file(game: Game, path: str, match: int | None = None, quiet: bool = False, step: bool = False,
                seat: int | None = None, input_fn=input, options: dict[str, str] | None = None) -> int:
    """CLI entry (``atout replay``): check the records of ``path`` (one match or all) against the engine.

    Prints each step narrated (who did what, where a dealt card went, who took each trick, what each deal
    gave) unless ``quiet`` (then nothing on success); ``step`` opens the interactive stepper on the match
    (``--match K``, default the first); ``seat`` (0-based) shows the table as that seat saw it; ``options``
    are the ``--option`` values the game was compiled with (each record's must be the same).  Returns the
    exit status: 0 the records agree with the engine, 1 they disagree, 2 not a record file (the message
    on stderr).
    """
    import sys
    try:
        records = read_records(path)
        if match is not None:
            if not 0 <= match < len(records):
                raise MalformedRecord(f"--match {match}: the file holds matches 0..{len(records) - 1}")
            records = [records[match]]
        for rec in records:       # the options a record was made with are the game it replays in
            made = rec.get("options") or {}
            if made != (options or {}):
                def said(o):
                    return " ".join(f"--option {k}={v}" for k, v in sorted(o.items())) or "no --option"
                raise ReplayError(f"match {rec.get('match', '?')} was recorded with {said(made)}, the replay uses "
                                  f"{said(options or {})}: give the record's options")
        if seat is not None and not 0 <= seat < game.players:
            raise MalformedRecord(f"--seat {seat}: the game has seats 0..{game.players - 1}")
        if step:
            return step_through(Stepper(game, records[0], seat), input_fn)
        for rec in records:
            if not quiet:
                print(f"== match {rec.get('match', '?')} of {rec.get('game')} (seed {rec.get('seed')})")

            def show(state, st, text, before):
                if not quiet:
                    print("\n".join(step_report(state, st, text, before, seat)))
            final = replay(game, rec, show)
            status = f"returns {final.returns()}" if final.is_terminal() else "(not finished)"
            if not quiet:
                print(f"== replayed {len(rec['steps'])} steps: {status}")
    except ReplayError as exc:
        print(f"atout: replay error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, MalformedRecord) else 1
    return 0

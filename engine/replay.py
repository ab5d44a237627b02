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
    if "deals" in rec and not (isinstance(rec["deals"], list) and all(isinstance(d, dict) for d in rec["deals"])):
        return "\"deals\" must be a list of deal summaries"
    return ""


def replay(game: Game, rec: dict, show=None):
    """Apply every step of ``rec``; ``show(state, step, text)`` is called after each. Returns the final state.

    Raises ReplayError when a step is illegal or its text differs from the engine's.
    """
    if rec.get("game") != game.name:
        raise ReplayError(f"the record is of game '{rec.get('game')}', the rule file of '{game.name}'")
    state = game.new_initial_state()
    for k, step in enumerate(rec["steps"]):
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
        try:
            state.apply_action(action)
        except IllegalActionError as exc:
            raise ReplayError(f"step {k + 1}: {exc}") from None
        if show is not None:
            show(state, step, text)
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
    return state


def replay_file(game: Game, path: str, match: int | None = None, quiet: bool = False) -> int:
    """CLI entry: replay the records of ``path`` (one match or all), printing each step unless quiet."""
    import sys
    try:
        records = read_records(path)
        if match is not None:
            if not 0 <= match < len(records):
                raise MalformedRecord(f"--match {match}: the file holds matches 0..{len(records) - 1}")
            records = [records[match]]
        for rec in records:
            print(f"== match {rec.get('match', '?')} of {rec.get('game')} (seed {rec.get('seed')})")
            last_deal = [0]

            def show(state, step, text):
                if quiet:
                    return
                who = "chance" if step.get("player", 0) < 0 else f"seat {step['player']}"
                print(f"  {len(state.history):4d}  {who:>7}: {text}")
                if len(state.deal_log) > last_deal[0]:
                    last_deal[0] = len(state.deal_log)
                    d = state.deal_log[-1]
                    print(f"        -- deal {last_deal[0]} over: points {d['points']}")
            final = replay(game, rec, show)
            status = f"returns {final.returns()}" if final.is_terminal() else "(not finished)"
            print(f"== replayed {len(rec['steps'])} steps: {status}")
    except ReplayError as exc:
        print(f"atout: replay error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, MalformedRecord) else 1
    return 0

"""Replaying records (from ``simulate --record`` or ``verify --trace-out``) step by step."""
from __future__ import annotations

import json

from .game import Game
from .simulate import RECORD_FORMAT
from .state import IllegalActionError


class ReplayError(Exception):
    """A record that does not replay: malformed, for another game, or disagreeing with the engine."""


def read_records(path: str) -> list[dict]:
    """Read a JSON-lines record file; raises ReplayError with the line number on bad input."""
    out = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot read record file '{path}': {exc.strerror}") from None
    with fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ReplayError(f"{path}:{i}: not JSON ({exc.msg})") from None
            if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT or not isinstance(
                    rec.get("steps"), list):
                raise ReplayError(f"{path}:{i}: not an Atout record (expected \"format\": \"{RECORD_FORMAT}\")")
            out.append(rec)
    if not out:
        raise ReplayError(f"{path}: no record in the file")
    return out


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
            raise ReplayError(f"step {k + 1}: malformed step {step!r}") from None
        if player != state.current_player():
            raise ReplayError(f"step {k + 1}: the record says seat {player} acts, the engine says "
                              f"{state.current_player()}")
        text = state.action_to_string(action)
        if "text" in step and step["text"] != text:
            raise ReplayError(f"step {k + 1}: the record says '{step['text']}', the engine '{text}'")
        try:
            state.apply_action(action)
        except IllegalActionError as exc:
            raise ReplayError(f"step {k + 1}: {exc}") from None
        if show is not None:
            show(state, step, text)
    if "returns" in rec and state.is_terminal() and [float(x) for x in rec["returns"]] != state.returns():
        raise ReplayError(f"returns differ: record {rec['returns']}, engine {state.returns()}")
    return state


def replay_file(game: Game, path: str, match: int | None = None, quiet: bool = False) -> int:
    """CLI entry: replay the records of ``path`` (one match or all), printing each step unless quiet."""
    import sys
    try:
        records = read_records(path)
        if match is not None:
            if not 0 <= match < len(records):
                raise ReplayError(f"--match {match}: the file holds matches 0..{len(records) - 1}")
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
        return 2 if "cannot read" in str(exc) or "not JSON" in str(exc) or "not an Atout" in str(exc) else 1
    return 0

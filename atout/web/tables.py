"""The tables of ``atout serve``: games served, seats, the match in progress and its record (no web code here).

A :class:`Table` holds one match of one game: its seats (each a person or a bot), the engine state, and the
record of every step so far, which *is* the table's state: a table made from a record (:meth:`Table.from_record`)
is the same match at the same point, and :meth:`Table.record` is a record ``atout replay`` accepts
(docs/records.md; a seat played by a person is ``"person"`` in ``bots``).  The shuffles come from a seed drawn
by the system and kept on the server (a record says ``"seed": null``).  What each seat is told of the table
is built by :mod:`atout.engine.seat_view`; the server (:mod:`.app`) only sends it.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import secrets
import tempfile
from dataclasses import dataclass, field

from atout.compiler import compile_file
from atout.engine import Game, IllegalActionError, RuleError
from atout.engine import seat_view as sv
from atout.engine.bots import BOTS, make_bot
from atout.engine.simulate import RECORD_FORMAT
from atout.engine.terminal import table_of

#: The kinds of seat a table can have: a person, or one of the engine's bots.
SEAT_KINDS = ("person",) + tuple(BOTS)
#: Events kept per seat, sent to a client that (re)connects.
LOG_KEPT = 120


class TableError(ValueError):
    """A request the tables refuse (an unknown game, a bad seat list, a record that does not replay); the
    message says why and is shown to the person."""


@dataclass
class GameEntry:
    """A rule file served: ``key`` (its name in URLs: the game's name, made unique), ``path``, ``source`` (the
    file's text), ``sha256`` (of its bytes, its compiled IR, which a variant's base file changes too, and
    Atout's version: the key of the cached verdicts), ``game`` (compiled with its own options)."""
    key: str
    path: str
    source: str
    sha256: str
    game: Game
    _variants: dict = field(default_factory=dict)

    @property
    def title(self) -> str:
        return self.game.ir.title

    def with_options(self, options: dict[str, str] | None) -> Game:
        """The game compiled with ``--option`` values (cached); raises TableError with the compiler's message."""
        if not options:
            return self.game
        k = tuple(sorted(options.items()))
        if k not in self._variants:
            from atout.compiler import CompileError
            try:
                self._variants[k] = Game(compile_file(self.path, dict(options)))
            except CompileError as exc:
                raise TableError(exc.render()) from None
        return self._variants[k]


def rule_files(paths: list[str]) -> list[str]:
    """The rule files named by ``paths`` (a folder stands for its ``*.atout`` files, sorted); raises
    FileNotFoundError naming a path that does not exist, ValueError for a folder without rule files."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".atout") and not f.startswith("."))
            if not found:
                raise ValueError(f"{p}: no .atout rule file in this folder")
            out += found
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise FileNotFoundError(p)
    return out


def load_entries(paths: list[str]) -> list[GameEntry]:
    """Compile every rule file of ``paths``; raises CompileError (the compiler's diagnostic) for a bad file."""
    entries, keys = [], set()
    for path in rule_files(paths):
        with open(path, "rb") as fh:
            data = fh.read()
        game_ir = compile_file(path)
        game = Game(game_ir)
        key, n = game.name, 2
        while key in keys:
            key, n = f"{game.name}-{n}", n + 1
        keys.add(key)
        # the file's bytes, and what it compiles to (a variant's base file may change) under this version
        from atout import __version__
        from atout.compiler import ir
        digest = hashlib.sha256(data + b"\0" + ir.dump(game_ir).encode("utf-8") + b"\0" + __version__.encode())
        entries.append(GameEntry(key, path, data.decode("utf-8"), digest.hexdigest(), game))
    return entries


@dataclass
class SeatInfo:
    """A seat: ``kind`` ('person' or a bot name), ``name`` (shown), ``token`` (the secret of the person sitting
    there, None while it is free)."""
    kind: str
    name: str = ""
    token: str | None = None

    def public(self) -> dict:
        return {"kind": self.kind, "name": self.name or (self.kind if self.kind != "person" else ""),
                "taken": self.kind != "person" or self.token is not None}


class Table:
    """One match at one table.  Seats are 0-based; ``seats`` lists each seat's kind ('person', 'random',
    'greedy', 'ismcts').  Raises TableError for a seat list of the wrong length or an unknown kind."""

    def __init__(self, entry: GameEntry, seats: list[str], table_id: str | None = None, seed: int | None = None,
                 options: dict[str, str] | None = None):
        self.entry = entry
        self.options = dict(options or {})
        self.game = entry.with_options(self.options)
        g = self.game
        if len(seats) != g.players:
            raise TableError(f"{entry.key} has {g.players} seats, not {len(seats)}")
        bad = [k for k in seats if k not in SEAT_KINDS]
        if bad:
            raise TableError(f"seat kind {bad[0]!r}: choose one of {', '.join(SEAT_KINDS)}")
        self.id = table_id or secrets.token_urlsafe(6)
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2 ** 31)
        self.rng = random.Random(self.seed)
        self.seats = [SeatInfo(k) for k in seats]
        self.bots = {p: make_bot(k, self.rng.randrange(2 ** 32)) for p, k in enumerate(seats) if k != "person"}
        self.adapter = table_of(g)
        self.state = g.new_initial_state()
        self.steps: list[dict] = []
        self.last_trick: dict | None = None
        self.logs: dict[int, list[dict]] = {p: [] for p in range(-1, g.players)}
        self.error: str | None = None          # a rule error that stopped the match

    # -- seats -----------------------------------------------------------------------------------------------
    def seat_of(self, token: str | None) -> int | None:
        """The seat a person's token holds, or None."""
        if not token:
            return None
        return next((p for p, s in enumerate(self.seats) if s.token is not None and
                     secrets.compare_digest(s.token, token)), None)

    def sit(self, seat, name: str = "") -> str:
        """Give free person seat ``seat`` to a person; returns the token that holds it.  Raises TableError."""
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.seats):
            raise TableError(f"no seat {seat!r}: the seats are 0..{len(self.seats) - 1}")
        s = self.seats[seat]
        if s.kind != "person":
            raise TableError(f"seat {seat} is played by the {s.kind} bot")
        if s.token is not None:
            raise TableError(f"seat {seat} is taken")
        s.token = secrets.token_urlsafe(16)
        s.name = " ".join(str(name).split())[:30] or f"seat {seat}"
        return s.token

    def leave(self, seat: int) -> None:
        """Free a person's seat (the match waits there until someone sits)."""
        self.seats[seat].token = None
        self.seats[seat].name = ""

    # -- play ------------------------------------------------------------------------------------------------
    @property
    def step_count(self) -> int:
        return len(self.steps)

    def waiting_for(self) -> int | None:
        """The person seat whose move the match waits for, or None (chance, a bot, or the end)."""
        st = self.state
        if self.error or st.is_terminal() or st.is_chance_node():
            return None
        p = st.current_player()
        return p if self.seats[p].kind == "person" else None

    def next_automatic(self) -> tuple[str, int] | None:
        """('chance', -1) or ('bot', seat) when the next step is not a person's, else None."""
        st = self.state
        if self.error or st.is_terminal():
            return None
        if st.is_chance_node():
            return "chance", -1
        p = st.current_player()
        return ("bot", p) if p in self.bots else None

    def chance_step(self) -> None:
        outcomes = self.state.chance_outcomes()
        self.apply(-1, outcomes[self.rng.randrange(len(outcomes))][0])

    def bot_action(self, seat: int) -> int:
        """The bot's choice at ``seat`` (may take a while: ISMCTS searches; call it off the event loop)."""
        return self.bots[seat].step(self.state)

    def move(self, seat: int, action) -> str | None:
        """A person's move: applies it and returns None, or returns the reason it is refused."""
        reason = sv.refusal(self.state, seat, action)
        if reason is None:
            self.apply(seat, action)
        return reason

    def apply(self, actor: int, action: int) -> None:
        """Apply one step (``actor`` -1 for chance), record it and tell every seat what it may know of it."""
        st = self.state
        before = self.adapter.view(st)
        text = st.action_to_string(action)
        try:
            st.apply_action(action)
        except RuleError:      # the step happened (the record says it, and replays to the same error)
            self.steps.append({"player": actor, "action": action, "text": text})
            raise
        self.steps.append({"player": actor, "action": action, "text": text})
        public = self.adapter.last_public(st)
        k = len(self.steps)
        for p in self.logs:
            events = sv.step_events(self.adapter, before, st, actor, action, text, public, p, k)
            log = self.logs[p]
            log.extend(events)
            del log[:-LOG_KEPT]
        if actor >= 0 and action < self.game.num_cards and before.trick and not st.trick_cards \
                and st.deal_number == before.deal_number:      # (a new deal gathers the cards: not shown)
            winner = next((e["winner"] for e in self.logs[-1][::-1] if e["kind"] == "trick" and e["step"] == k), None)
            self.last_trick = {"cards": [dict(sv.card_json(self.game, c), seat=p) for p, c in
                                         before.trick + [(before.actor, action)]], "winner": winner, "step": k}
        elif st.trick_cards or st.deal_number != before.deal_number:
            self.last_trick = None

    # -- what a seat receives --------------------------------------------------------------------------------
    def message(self, seat: int, since: int | None = None) -> dict:
        """The ``state`` message for ``seat`` (-1: an onlooker): the seat view, the legal moves if it is this
        seat's turn, the seats, the table's last completed trick, and the events of steps after ``since``
        (None: the events kept, and ``full`` is true: the client starts its log again)."""
        st = self.state
        legal = []
        if seat >= 0 and not self.error and not st.is_terminal() and not st.is_chance_node() \
                and st.current_player() == seat:
            try:
                legal = sv.legal_moves(st)
            except RuleError as exc:        # a dead end: the rules leave the seat without a move
                self.error = f"rule error: {exc}"
        events = [e for e in self.logs[seat] if since is None or e["step"] > since]
        return {"type": "state", "table": self.id, "game": self.entry.key, "step": len(self.steps),
                "full": since is None,
                "view": sv.seat_view(st, seat), "legal": legal, "seats": [s.public() for s in self.seats],
                "last_trick": self.last_trick, "events": events, "waiting_for": self.waiting_for(),
                "error": self.error}

    # -- records ---------------------------------------------------------------------------------------------
    def record(self) -> dict:
        """The match so far as a record (docs/records.md): ``returns`` only once the match is over; ``seed`` is
        null (the shuffles come from a seed drawn by the system, never told).  A record is full information:
        the server gives it to the players only once the match is over."""
        st = self.state
        rec = {"format": RECORD_FORMAT, "game": self.game.name, "rules": self.entry.path, "seed": None,
               "match": 0, "bots": [s.kind for s in self.seats]}
        if self.options:
            rec["options"] = dict(self.options)
        rec["steps"] = list(self.steps)
        rec["deals"] = json.loads(json.dumps(st.deal_log, ensure_ascii=False))
        if st.is_terminal():
            rec["returns"] = st.returns()
        return rec

    def record_line(self) -> str:
        return json.dumps(self.record(), ensure_ascii=False) + "\n"

    @classmethod
    def from_record(cls, entries: list[GameEntry], text: str, seats: list[str] | None = None,
                    table_id: str | None = None) -> "Table":
        """A table resuming the match of a record (the first line of ``text``, JSON lines as ``atout replay``
        reads them): the game it names among ``entries``, its options, every step replayed and checked by the
        engine.  ``seats`` (default: the record's ``bots``, a seat that is no bot of the engine becoming a
        person's) sets who plays on.  Raises TableError with the reason (not a record, another game, a step the
        engine refuses)."""
        from atout.engine.replay import ReplayError, read_records
        fd, path = tempfile.mkstemp(suffix=".jsonl")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            try:
                rec = read_records(path)[0]
            except ReplayError as exc:
                raise TableError(str(exc).replace(path, "the record")) from None
        finally:
            os.unlink(path)
        name = rec.get("game")
        rules = os.path.basename(str(rec.get("rules") or ""))
        matching = [e for e in entries if e.game.name == name]
        if not matching:
            raise TableError(f"the record is of game '{name}', which this server does not serve "
                             f"(it serves {', '.join(sorted({e.game.name for e in entries}))})")
        entry = next((e for e in matching if os.path.basename(e.path) == rules), matching[0])
        n = entry.game.players
        if seats is None:
            made = rec.get("bots") if isinstance(rec.get("bots"), list) else []
            # (a record's 'ismcts:N' sits as the table's ismcts: the seat kinds carry no budget)
            kinds = [str(k).partition(":")[0] for k in made]
            seats = [kinds[p] if p < len(kinds) and kinds[p] in BOTS else "person" for p in range(n)]
        table = cls(entry, seats, table_id=table_id, options=rec.get("options") or None)
        try:
            for k, step in enumerate(rec["steps"]):
                st = table.state
                if st.is_terminal():
                    raise TableError(f"step {k + 1}: the match is over after step {k}, but the record goes on")
                legal = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
                if step.get("player", st.current_player()) != st.current_player() or step["action"] not in legal \
                        or ("text" in step and step["text"] != st.action_to_string(step["action"])):
                    raise TableError(f"step {k + 1} ({step.get('text', step['action'])}) is not legal here: the "
                                     f"record does not replay in {entry.path}")
                table.apply(st.current_player(), step["action"])
        except (RuleError, IllegalActionError, TypeError, KeyError) as exc:     # a rule error while replaying
            raise TableError(f"the record does not replay: {exc}") from None
        return table

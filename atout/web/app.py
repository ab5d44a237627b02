"""The web application of ``atout serve``: Starlette routes, the table websocket, the game pages.

Pages (HTML, with the page's own JavaScript and CSS under ``/static``; nothing is fetched from the internet):

* ``/``: the games served, a form to open a table (each seat a person or a bot), the open tables, and
  resuming a match from a record file;
* ``/t/{id}``: the card table (share its address; each person takes a free seat);
* ``/g/{game}``: the game: its rule file highlighted, its state diagram, the table of ``atout verify`` verdicts;
* ``/g/{game}/trace/{k}``: counterexample ``k`` of the verdicts replayed step by step on the card table.

JSON: ``GET /api/games``, ``GET|POST /api/tables`` (``{"game", "seats", "options"}`` or ``{"record": TEXT}``),
``GET /t/{id}/record.jsonl`` (the match, a record ``atout replay`` accepts, once it is over: a record is full
information), ``GET|POST
/api/games/{game}/verdicts`` (status; POST starts a run), ``GET /api/games/{game}/trace/{k}``.

The websocket ``/ws/{id}?token=T`` is the table.  The server sends ``{"type": "state", ...}`` (see
:meth:`.tables.Table.message`: the seat's view, its legal moves on its turn, the seats, the events since the
last message) after every change, ``{"type": "seated", "seat", "token"}`` when a seat is taken,
``{"type": "refused", "reason"}`` for a refused request.  The client sends ``{"type": "sit", "seat", "name"}``,
``{"type": "move", "action": ID}`` (or ``"text"``: a move typed as at ``atout play``; optional ``"step"``: the
step it answers, refused if the table has moved on), ``{"type": "leave"}``.  A client only ever receives what
its seat may see (:mod:`atout.engine.seat_view`): the state stays on the server.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.websockets import WebSocket, WebSocketDisconnect

from atout.engine import RuleError
from atout.engine import seat_view as sv
from atout.engine.replay import narrate

from .highlight import rules_css, rules_html
from .tables import SEAT_KINDS, GameEntry, Table, TableError
from .verdicts import Verdicts, counterexamples

HERE = os.path.dirname(os.path.abspath(__file__))
#: Tables kept at most (the oldest finished ones go first).
MAX_TABLES = 200


class Room:
    """A table and the clients connected to it: runs chance and bots, sends each client its seat's messages."""

    def __init__(self, table: Table, bot_delay: float, save=None):
        self.table = table
        self.bot_delay = bot_delay
        self.save = save                              # save(table): keep its record (--tables DIR), or None
        self.lock = asyncio.Lock()
        self.clients: dict[WebSocket, list] = {}     # websocket -> [seat (-1: onlooker), last step sent]
        self.task: asyncio.Task | None = None

    async def send(self, ws: WebSocket, msg: dict) -> None:
        try:
            await ws.send_text(json.dumps(msg, ensure_ascii=False))
        except Exception:  # noqa: BLE001 - a client gone: forget it
            self.clients.pop(ws, None)

    async def send_state(self, ws: WebSocket, full: bool = False) -> None:
        seat, last = self.clients[ws]
        self.clients[ws][1] = self.table.step_count
        await self.send(ws, self.table.message(seat, None if full else last))

    async def broadcast(self) -> None:
        if self.save is not None:
            self.save(self.table)
        for ws in list(self.clients):
            if ws in self.clients:
                await self.send_state(ws)

    def kick(self) -> None:
        """Run the automatic steps (chance, bots) until a person is to move, in the background."""
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run())

    async def run(self) -> None:
        t = self.table
        while True:
            nxt = t.next_automatic()
            if nxt is None:
                return
            if nxt[0] == "bot" and self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
            async with self.lock:
                if t.next_automatic() != nxt:
                    continue
                try:
                    if nxt[0] == "chance":
                        while t.next_automatic() == ("chance", -1):
                            t.chance_step()
                    else:
                        action = await asyncio.to_thread(t.bot_action, nxt[1])
                        t.apply(nxt[1], action)
                except RuleError as exc:       # the rules leave a seat without a move, a range is broken...
                    t.error = f"rule error: {exc}"
                except Exception as exc:  # noqa: BLE001 - the table stops and says why; the server goes on
                    t.error = f"the table stopped: {type(exc).__name__}: {exc}"
                await self.broadcast()


def create_app(entries: list[GameEntry], bot_delay: float = 0.7, cache_dir: str | None = None,
               verify_args: list[str] | None = None, tables_dir: str | None = None) -> Starlette:
    """The application serving ``entries`` (from :func:`.tables.load_entries`).  ``bot_delay``: seconds before
    each bot move (so that people see the cards fall; 0 in tests); ``cache_dir``: where verdicts are kept
    (:class:`.verdicts.Verdicts`); ``verify_args``: extra arguments of the background ``atout verify``;
    ``tables_dir``: a folder where each table's record is kept after every change (``ID.jsonl``) and from which
    the tables are opened again when the server starts (a record that no longer replays is skipped, with a
    warning on stderr)."""
    by_key = {e.key: e for e in entries}
    rooms: dict[str, Room] = {}
    saver = None
    if tables_dir is not None:
        os.makedirs(tables_dir, exist_ok=True)

        def saver(table: Table) -> None:
            path = os.path.join(tables_dir, f"{table.id}.jsonl")
            with open(path + ".part", "w", encoding="utf-8") as fh:
                fh.write(table.record_line())
            os.replace(path + ".part", path)
    verdicts = Verdicts(cache_dir, verify_args)
    templates = Jinja2Templates(directory=os.path.join(HERE, "templates"))
    diagrams: dict[str, dict] = {}

    def entry_of(key: str) -> GameEntry:
        if key not in by_key:
            raise HTTPException(404, f"no game '{key}' here")
        return by_key[key]

    def room_of(table_id: str) -> Room:
        if table_id not in rooms:
            raise HTTPException(404, f"no table '{table_id}' here (tables live as long as the server; "
                                     f"resume a match from its record on the first page)")
        return rooms[table_id]

    def game_json(e: GameEntry) -> dict:
        g = e.game
        return {"key": e.key, "name": g.name, "title": e.title, "players": g.players, "path": e.path,
                "sides": [list(s) for s in g.ir.sides],
                "options": [{"name": o.name, "type": o.type.kind, "value": o.value} for o in g.ir.options]}

    def table_json(r: Room) -> dict:
        t = r.table
        return {"id": t.id, "game": t.entry.key, "title": t.game.ir.title, "seats": [s.public() for s in t.seats],
                "step": t.step_count, "terminal": t.state.is_terminal(), "options": t.options,
                "url": f"/t/{t.id}"}

    def add_room(table: Table) -> Room:
        if len(rooms) >= MAX_TABLES:
            done = [k for k, r in rooms.items() if r.table.state.is_terminal() and not r.clients]
            if not done:
                raise TableError(f"the server holds {MAX_TABLES} tables in play: finish one first")
            del rooms[done[0]]
        r = rooms[table.id] = Room(table, bot_delay, saver)
        if saver is not None:
            saver(table)
        return r

    if tables_dir is not None:          # the tables of an earlier run, at the point they were left
        import sys
        for name in sorted(os.listdir(tables_dir)):
            if not name.endswith(".jsonl"):
                continue
            try:
                with open(os.path.join(tables_dir, name), encoding="utf-8") as fh:
                    table = Table.from_record(entries, fh.read(), table_id=name[:-len(".jsonl")])
                rooms[table.id] = Room(table, bot_delay, saver)
            except (OSError, UnicodeDecodeError, TableError) as exc:
                print(f"atout serve: {os.path.join(tables_dir, name)} skipped: {exc}", file=sys.stderr)

    # -- pages ------------------------------------------------------------------------------------------------
    async def lobby(request: Request):
        return templates.TemplateResponse(request, "lobby.html", {
            "games": [game_json(e) for e in entries], "kinds": SEAT_KINDS})

    async def table_page(request: Request):
        r = room_of(request.path_params["table_id"])
        return templates.TemplateResponse(request, "table.html", {"table": table_json(r)})

    async def game_page(request: Request):
        e = entry_of(request.path_params["key"])
        return templates.TemplateResponse(request, "game.html", {
            "game": game_json(e), "rules": rules_html(e.source), "rules_css": rules_css(),
            "diagram": await diagram(e)})

    async def trace_page(request: Request):
        e = entry_of(request.path_params["key"])
        return templates.TemplateResponse(request, "trace.html", {
            "game": game_json(e), "k": request.path_params["k"]})

    async def diagram(e: GameEntry) -> dict:
        """The state diagram: SVG rendered by Graphviz when ``dot`` is installed, else DOT and Mermaid text."""
        if e.sha256 in diagrams:
            return diagrams[e.sha256]
        from atout.export.diagram import to_dot, to_mermaid
        dot = to_dot(e.game.ir)
        out = {"svg": None, "dot": dot, "mermaid": to_mermaid(e.game.ir)}
        exe = shutil.which("dot")
        if exe:
            def render():
                return subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=60)
            try:
                done = await asyncio.to_thread(render)
                if done.returncode == 0:
                    svg = done.stdout.decode("utf-8")
                    out["svg"] = svg[svg.find("<svg"):]
            except (OSError, subprocess.SubprocessError):
                pass
        diagrams[e.sha256] = out
        return out

    # -- JSON -------------------------------------------------------------------------------------------------
    async def api_games(request: Request):
        return JSONResponse([game_json(e) for e in entries])

    async def api_tables(request: Request):
        if request.method == "GET":
            return JSONResponse([table_json(r) for r in rooms.values()])
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the request is not JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the request is not a JSON object"}, status_code=400)
        try:
            if body.get("record") is not None:
                if not isinstance(body["record"], str):
                    raise TableError("'record' is the text of a record file")
                table = Table.from_record(entries, body["record"], body.get("seats"))
            else:
                key = body.get("game")
                if key not in by_key:
                    raise TableError(f"no game {key!r} here: choose one of {', '.join(by_key)}")
                options = body.get("options") or {}
                if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                            for k, v in options.items()):
                    raise TableError("'options' maps option names to values written as text")
                seats = body.get("seats")
                if not isinstance(seats, list):
                    raise TableError("'seats' lists each seat's kind: " + ", ".join(SEAT_KINDS))
                table = Table(by_key[key], seats, options=options)
            r = add_room(table)
        except TableError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(table_json(r), status_code=201)

    async def record(request: Request):
        r = room_of(request.path_params["table_id"])
        t = r.table
        if not t.state.is_terminal() and not t.error:
            return PlainTextResponse("the record holds every card of the match, the hands and the stock included: "
                                     "it can be downloaded once the match is over", status_code=403)
        return Response(t.record_line(), media_type="application/x-ndjson; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{t.entry.key}-{t.id}.jsonl"'})

    async def api_verdicts(request: Request):
        e = entry_of(request.path_params["key"])
        status = verdicts.start(e) if request.method == "POST" else verdicts.status(e)
        if status["state"] == "done":
            res = status["result"]
            status = {"state": "done", "seconds": res.get("seconds"), "exit_status": res.get("exit_status"),
                      "properties": [{k: p.get(k) for k in ("name", "kind", "verdict", "method", "seconds")}
                                     for p in res.get("properties", [])],
                      "findings": [{"kind": f.get("kind"), "message": f.get("message")}
                                   for f in res.get("findings", [])],
                      "counterexamples": [{k: c[k] for k in ("id", "name", "kind", "note")}
                                          | {"steps": len(c["steps"])} for c in counterexamples(res)]}
        return JSONResponse(status)

    async def api_trace(request: Request):
        e = entry_of(request.path_params["key"])
        res = verdicts.cached(e)
        if res is None:
            raise HTTPException(404, "the verdicts of this game are not there yet")
        ces = counterexamples(res)
        k = request.path_params["k"]
        if not 0 <= k < len(ces):
            raise HTTPException(404, f"no counterexample {k}")
        return JSONResponse(await asyncio.to_thread(trace_frames, e, ces[k]))

    # -- the table --------------------------------------------------------------------------------------------
    async def table_ws(ws: WebSocket):
        table_id = ws.path_params["table_id"]
        await ws.accept()
        if table_id not in rooms:
            await ws.send_text(json.dumps({"type": "refused", "reason": f"no table '{table_id}' here"}))
            await ws.close()
            return
        r = rooms[table_id]
        t = r.table
        seat = t.seat_of(ws.query_params.get("token"))
        r.clients[ws] = [seat if seat is not None else -1, 0]
        await r.send(ws, {"type": "hello", "seat": r.clients[ws][0], "table": t.id, "game": t.entry.key})
        await r.send_state(ws, full=True)
        r.kick()
        try:
            while True:
                try:
                    msg = json.loads(await ws.receive_text())
                except ValueError:
                    await r.send(ws, {"type": "refused", "reason": "a message is a JSON object"})
                    continue
                if not isinstance(msg, dict):
                    await r.send(ws, {"type": "refused", "reason": "a message is a JSON object"})
                    continue
                await handle(r, ws, msg)
        except WebSocketDisconnect:
            pass
        finally:
            r.clients.pop(ws, None)

    async def handle(r: Room, ws: WebSocket, msg: dict) -> None:
        t = r.table
        kind = msg.get("type")
        seat = r.clients[ws][0]
        if kind == "sit":
            if seat >= 0:
                return await r.send(ws, {"type": "refused", "reason": f"you already sit at seat {seat}"})
            async with r.lock:
                try:
                    token = t.sit(msg.get("seat"), str(msg.get("name") or ""))
                except TableError as exc:
                    return await r.send(ws, {"type": "refused", "reason": str(exc)})
                r.clients[ws][0] = msg["seat"]
                await r.send(ws, {"type": "seated", "seat": msg["seat"], "token": token})
                await r.send_state(ws, full=True)
                await r.broadcast()
            r.kick()
        elif kind == "leave":
            if seat >= 0:
                async with r.lock:
                    t.leave(seat)
                    for other, c in list(r.clients.items()):     # every page of that person (tabs) leaves
                        if c[0] == seat:
                            c[0] = -1
                            await r.send(other, {"type": "hello", "seat": -1, "table": t.id, "game": t.entry.key})
                            await r.send_state(other, full=True)
                    await r.broadcast()
        elif kind == "move":
            if seat < 0:
                return await r.send(ws, {"type": "refused", "reason": "you have no seat at this table: take a "
                                                                       "free seat to play"})
            async with r.lock:
                step = msg.get("step")
                if step is not None and (isinstance(step, bool) or not isinstance(step, int)):
                    reason = f"'step' must be the integer 'step' of the last state message, not {json.dumps(step)}"
                elif step is not None and step != t.step_count:
                    reason = "the table has moved on since: look again"
                elif t.error:
                    reason = t.error
                elif "text" in msg and "action" not in msg:
                    action, reason = (None, "it is not your turn") if t.waiting_for() != seat else \
                        sv.parse_move(t.state, str(msg["text"]))
                    if action is not None:
                        reason = t.move(seat, action)
                else:
                    try:
                        reason = t.move(seat, msg.get("action"))
                    except RuleError as exc:
                        t.error, reason = f"rule error: {exc}", None
                if reason is not None:
                    await r.send(ws, {"type": "refused", "reason": reason, "action": msg.get("action")})
                    await r.send_state(ws)
                    return
                await r.broadcast()
            r.kick()
        else:
            await r.send(ws, {"type": "refused", "reason": f"unknown message type {kind!r} (sit, move, leave)"})

    routes = [
        Route("/", lobby),
        Route("/t/{table_id}", table_page),
        Route("/t/{table_id}/record.jsonl", record),
        Route("/g/{key}", game_page),
        Route("/g/{key}/trace/{k:int}", trace_page),
        Route("/api/games", api_games),
        Route("/favicon.ico", lambda request: Response(status_code=204)),   # no icon: not a 404 in the console
        Route("/api/tables", api_tables, methods=["GET", "POST"]),
        Route("/api/games/{key}/verdicts", api_verdicts, methods=["GET", "POST"]),
        Route("/api/games/{key}/trace/{k:int}", api_trace),
        WebSocketRoute("/ws/{table_id}", table_ws),
        Mount("/static", StaticFiles(directory=os.path.join(HERE, "static")), name="static"),
    ]

    async def not_found(request, exc):
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code)

    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found})
    app.state.rooms = rooms
    app.state.entries = entries
    app.state.verdicts = verdicts
    return app


def trace_frames(entry: GameEntry, ce: dict) -> dict:
    """A counterexample replayed by the engine: ``{"name", "kind", "note", "cycle_start", "cycle_length",
    "frames"}``, frame ``k`` the state after ``k`` steps (full information: every hand face up) with the step's
    narration.  A step the engine refuses ends the frames with an ``error``."""
    g = entry.game
    state = g.new_initial_state()
    frames = [{"step": 0, "text": "start of the match", "player": None, "view": sv.seat_view(state, None)}]
    error = None
    for k, step in enumerate(ce["steps"]):
        try:
            text = narrate(state, step["action"])
            state.apply_action(step["action"])
        except Exception as exc:  # noqa: BLE001 - shown on the page
            error = f"step {k + 1}: {exc}"
            break
        frames.append({"step": k + 1, "text": text, "player": step.get("player"),
                       "view": sv.seat_view(state, None)})
    return {k: ce.get(k) for k in ("name", "kind", "note", "cycle_start", "cycle_length")} | {
        "frames": frames, "error": error, "game": entry.key}

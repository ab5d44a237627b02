"""``atout serve``: the table's protocol through Starlette's test client (no browser; tests/test_web_browser.py
drives Chromium).

The no-leak test plays a deal (a whole match in the two-player games) of every shipped game with two clients
seated at one table and bots at the other seats, keeps every message each client receives, and checks them
against card sets computed here, independently of the server: the engine replays the table's record, and at
each step a card is *hidden from seat p* when it lies in a zone the rule file does not let p see (another
seat's private zone, a hidden zone such as the stock or the discards; the tricks taken are excluded: their
cards were played face up) and no public variable names it (Whist's and Solo Whist's turned-up trump card,
which goes to the dealer's hand, is public by the rules).  A message about the table after step k may name no
card hidden from p after step k; an event of step k (what the step did) no card hidden from p both before and
after it, but for the card that step k itself showed everyone (a card played).
"""
from __future__ import annotations

import glob
import json
import os
import random
import re
import subprocess
import sys

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

import atout  # noqa: E402
from atout.cli import main  # noqa: E402
from atout.web.app import create_app  # noqa: E402
from atout.web.tables import load_entries  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = sorted(p for p in glob.glob(os.path.join(ROOT, "rules", "*.atout"))
               if not os.path.basename(p).startswith(("_", ".")))      # the shipped games, not scratch files


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(load_entries(RULES), bot_delay=0,
                     cache_dir=str(tmp_path_factory.mktemp("verdicts")))
    with TestClient(app) as c:
        yield c


def open_table(client, game, seats, **extra):
    r = client.post("/api/tables", json=dict(game=game, seats=seats, **extra))
    assert r.status_code == 201, r.text
    return r.json()["id"]


class Seat:
    """A test client at one seat: keeps every message it receives."""

    def __init__(self, ws, seat):
        self.ws, self.seat, self.messages = ws, seat, []

    def recv(self):
        m = self.ws.receive_json()
        self.messages.append(m)
        return m

    def until(self, pred):
        """The next state message ``pred`` holds of, sent to this client as its seat (once seated)."""
        while True:
            m = self.recv()
            if m["type"] == "state" and m["view"]["seat"] in (self.seat, -1 if not self.seated else None) \
                    and pred(m):
                return m

    def next_of(self, kind):
        """The next message of type ``kind`` (the state messages before it are kept, not returned)."""
        while True:
            m = self.recv()
            if m["type"] == kind:
                return m

    @property
    def seated(self):
        return any(m["type"] == "seated" for m in self.messages)

    def sit(self, name=""):
        assert self.recv()["type"] == "hello"
        self.ws.send_json({"type": "sit", "seat": self.seat, "name": name})
        while not self.seated:
            self.recv()
        return self.until(lambda m: True)


def settled(after_step):
    """A state message where the table waits for a person (or is over), at a step after ``after_step``."""
    return lambda m: m["step"] > after_step and (m["waiting_for"] is not None or m["view"]["terminal"]
                                                 or m["error"])


def play(client, game, seats, persons, stop, seed=0):
    """Open a table, seat a client at each of ``persons``, answer with random legal moves until ``stop(msg)``
    holds or the match ends; returns (table id, {seat: Seat})."""
    rng = random.Random(seed)
    tid = open_table(client, game, seats)
    with_ws = {}
    ctxs = [client.websocket_connect(f"/ws/{tid}") for _ in persons]
    try:
        for p, ctx in zip(persons, ctxs):
            s = with_ws[p] = Seat(ctx.__enter__(), p)
            s.sit(f"player {p}")
        # everyone reads up to the point where the table waits for a person
        last = -1
        current = with_ws[persons[0]]
        while True:
            seen = len(current.messages)
            m = current.until(settled(last))
            if m["view"]["terminal"] or m["error"] or any(
                    x["type"] == "state" and stop(x) for x in current.messages[seen:]):
                break
            p = m["waiting_for"]
            mover = with_ws[p]
            if mover is not current:
                m = mover.until(lambda x, m=m, p=p: x["step"] == m["step"] and x["waiting_for"] == p)
            assert m["legal"], "the seat to move got no legal moves"
            last = m["step"]
            mover.ws.send_json({"type": "move", "action": rng.choice(m["legal"])["action"], "step": m["step"]})
            current = mover
        assert not m["error"], m["error"]
        for s in with_ws.values():       # the others read up to the same point
            if s.messages[-1].get("step") != m["step"]:
                s.until(lambda x: x["step"] == m["step"])
    finally:
        for ctx in ctxs:
            ctx.__exit__(None, None, None)
    return tid, with_ws


# -- what a seat may not see, computed from the record by the engine ---------------------------------------------
def hidden_sets(path, record):
    """Per step k (0 = the start) and seat p: the cards hidden from p after k steps; and per step: the card
    that step showed everyone (a card played to a trick), or None."""
    g = atout.load(path)
    st = g.new_initial_state()
    public_card_vars = [v for v in g.ir.vars if v.type.kind == "card" and v.visibility in (None, "public")]

    def hidden(state):
        out = []
        for p in range(g.players):
            h = set()
            for i, slot in enumerate(g.zone_slots):
                if slot.name in ("trick", "taken"):
                    continue
                seen = slot.visibility == "public" or i in state.revealed or (
                    slot.visibility == "private" and slot.owner == p)
                if not seen:
                    h |= set(state.zones[i])
            for v in public_card_vars:
                val = state.vars[v.name]
                h -= set(val) if isinstance(val, list) else {val}
            out.append(h)
        return out
    H, shown = [hidden(st)], [None]
    for step in record["steps"]:
        a = step["action"]
        played = not st.is_chance_node() and a < g.num_cards and g.phases[st.phase].kind == "trick"
        st.apply_action(a)
        H.append(hidden(st))
        shown.append(a if played else None)       # a card played to a trick is played face up
    return g, H, shown


def cards_in(obj, game, found=None):
    """Every card a JSON value names: by id (a dict with "card" and "text") or by its text in any string."""
    found = set() if found is None else found
    if isinstance(obj, dict):
        if isinstance(obj.get("card"), int) and "text" in obj:
            found.add(obj["card"])
        for v in obj.values():
            cards_in(v, game, found)
    elif isinstance(obj, list):
        for v in obj:
            cards_in(v, game, found)
    elif isinstance(obj, str):
        names = _card_names(game)
        found.update(names[x] for x in _card_pattern(game).findall(obj))
    return found


_PATTERNS = {}


def _card_names(game):
    return {game.card_str(c): c for c in range(game.num_cards)}


def _card_pattern(game):
    """One regular expression for every card's name ('10♥', 'K♠'), not inside a longer word."""
    if game.name not in _PATTERNS:
        names = sorted(_card_names(game), key=len, reverse=True)
        _PATTERNS[game.name] = re.compile(r"(?<![0-9A-Za-z])(" + "|".join(map(re.escape, names)) + ")")
    return _PATTERNS[game.name]


def leaks(messages, seat, game, H, shown):
    """(what leaked: list of (step, where, cards)), and how many messages named a card of seat's own hand."""
    out, own = [], 0
    for m in messages:
        if m.get("type") != "state":
            continue
        k = m["step"]
        snapshot = {key: v for key, v in m.items() if key != "events"}
        bad = cards_in(snapshot, game) & H[k][seat]
        if bad:
            out.append((k, "table", sorted(game.card_str(c) for c in bad)))
        hand = next(z for z in m["view"]["zones"] if z["name"] == "hand" and z["owner"] == seat)
        own += bool(hand.get("cards"))
        for e in m["events"]:
            j = e["step"]
            bad = cards_in(e, game) & H[j][seat] & H[j - 1][seat] - {shown[j]}
            if bad:
                out.append((j, e["text"], sorted(game.card_str(c) for c in bad)))
    return out, own


@pytest.mark.parametrize("path", RULES, ids=[os.path.basename(p)[:-6] for p in RULES])
def test_no_card_leaks_to_either_client(client, path):
    g = atout.load(path)
    n = g.players
    seats = ["person", "person"] + ["random"] * (n - 2)
    two_player = n == 2
    stop = (lambda m: False) if two_player else (lambda m: any(e["kind"] == "deal" for e in m["events"]))
    tid, clients = play(client, g.name, seats, [0, 1], stop, seed=n)
    record = client.app.state.rooms[tid].table.record()      # (the server's: it is given out at the end only)
    game, H, shown = hidden_sets(path, record)
    assert len(record["steps"]) > game.num_cards // 2
    for p, s in clients.items():
        assert len(s.messages) > 10
        found, own = leaks(s.messages, p, game, H, shown)
        assert not found, f"seat {p} received hidden cards: {found[:5]}"
        assert own > 0, "the detector never saw the seat's own hand (it would not see a leak either)"
        # the hidden sets are not empty: there was something to leak
        assert any(H[m["step"]][p] for m in s.messages if m.get("type") == "state")
        # a hidden variable (Whist's honours held) is never shown, nor another seat's private entry
        hidden_vars = {v.name for v in game.ir.vars if v.visibility == "hidden"}
        for m in s.messages:
            if m.get("type") == "state":
                shown_vars = {v["name"] for v in m["view"]["variables"]} | {v["name"] for v in m["view"]["scores"]}
                assert not shown_vars & hidden_vars
                for sc in m["view"]["scores"]:
                    v = next(x for x in game.ir.vars if x.name == sc["name"])
                    assert all(v.seen_by(p, e["entry"], game.ir.sides) for e in sc["entries"])
    if two_player:
        assert record.get("returns") is not None and clients[0].messages[-1]["view"]["terminal"]


def test_the_leak_detector_sees_a_full_view(client):
    """The check above can fail: the full view (every hand face up, what a replay of a counterexample shows) is
    caught naming the other seat's hand and the stock."""
    from atout.engine.seat_view import seat_view
    path = os.path.join(ROOT, "rules", "ecarte.atout")
    g = atout.load(path)
    st = g.new_initial_state()
    steps = []
    while st.is_chance_node():
        a = st.chance_outcomes()[0][0]
        steps.append({"player": -1, "action": a, "text": st.action_to_string(a)})
        st.apply_action(a)
    game, H, shown = hidden_sets(path, {"steps": steps})
    msg = {"type": "state", "step": len(steps), "view": seat_view(st, None), "events": []}
    found, _ = leaks([msg], 0, game, H, shown)
    assert found and len(found[0][2]) == 5 + 21          # seat 1's five cards and the 21 of the stock


def test_leaving_frees_the_seat_for_every_page_of_that_person(client):
    tid = open_table(client, "ecarte", ["person", "greedy"])
    with client.websocket_connect(f"/ws/{tid}") as a:
        sa = Seat(a, 0)
        sa.sit()
        token = next(m["token"] for m in sa.messages if m["type"] == "seated")
        with client.websocket_connect(f"/ws/{tid}?token={token}") as b:      # the same person, another tab
            sb = Seat(b, 0)
            assert sb.recv()["seat"] == 0
            a.send_json({"type": "leave"})
            assert sb.next_of("hello") == {"type": "hello", "seat": -1, "table": tid, "game": "ecarte"}
            m = b.receive_json()
            assert m["view"]["seat"] == -1 and m["seats"][0] == {"kind": "person", "name": "", "taken": False}
            b.send_json({"type": "move", "action": 33})
            while (r := b.receive_json())["type"] != "refused":
                pass
            assert r["reason"].startswith("you have no seat at this table")
    assert client.app.state.rooms[tid].table.seat_of(token) is None


def test_onlooker_sees_no_hand(client):
    tid = open_table(client, "ecarte", ["greedy", "greedy"])
    with client.websocket_connect(f"/ws/{tid}") as ws:
        assert ws.receive_json() == {"type": "hello", "seat": -1, "table": tid, "game": "ecarte"}
        m = ws.receive_json()
        while not m["view"]["terminal"]:
            m = ws.receive_json()
            for z in m["view"]["zones"]:
                assert z["visible"] == (z["name"] == "turnup"), z
            assert m["legal"] == []
        ws.send_json({"type": "move", "action": 0})
        assert "no seat" in ws.receive_json()["reason"]


# -- refusals ----------------------------------------------------------------------------------------------------
def test_illegal_moves_are_refused_with_the_reason(client):
    tid = open_table(client, "ecarte", ["person", "person"])
    with client.websocket_connect(f"/ws/{tid}") as a, client.websocket_connect(f"/ws/{tid}") as b:
        sa, sb = Seat(a, 0), Seat(b, 1)
        for s in (sa, sb):
            s.sit()
        m = sa.until(settled(-1))
        # seat 0 deals the first deal, so seat 1 (eldest) declares: "I play" (32) or "I propose" (33)
        assert m["waiting_for"] == 1 and m["view"]["phase"] == "declare"
        step = m["step"]
        a.send_json({"type": "move", "action": 32})
        r = sa.next_of("refused")
        assert r["type"] == "refused" and r["reason"] == "it is seat 1's turn, not yours"
        m = sb.until(lambda x: x["step"] == step and x["waiting_for"] == 1)
        assert sorted(x["action"] for x in m["legal"]) == [32, 33]
        hand = next(z for z in m["view"]["zones"] if z["name"] == "hand" and z["owner"] == 1)["cards"]
        other = next(c for c in range(32) if c not in {x["card"] for x in hand})
        for action, expected in [
                (34, "'Please' belongs to another phase (now: declare)"),
                (999, "999 is not an action of this game (an action is an integer 0..37)"),
                ("33", '"33" is not an action of this game (an action is an integer 0..37)'),
                (None, "null is not an action of this game (an action is an integer 0..37)"),
                (other, f"{atout.load(os.path.join(ROOT, 'rules', 'ecarte.atout')).card_str(other)} is not in your hand")]:
            b.send_json({"type": "move", "action": action})
            r = sb.next_of("refused")
            assert r["reason"] == expected
            assert sb.recv()["step"] == step        # the table did not move
        b.send_json({"type": "move", "action": 33, "step": step - 1})
        assert sb.next_of("refused")["reason"] == "the table has moved on since: look again"
        assert sb.recv()["step"] == step
        b.send_json({"type": "move", "action": 33, "step": "abc"})
        assert sb.next_of("refused")["reason"] == ("'step' must be the integer 'step' of the last state "
                                                   'message, not "abc"')
        assert sb.recv()["step"] == step
        b.send_json({"type": "move", "text": "propose please"})
        assert sb.next_of("refused")["reason"] == "'please' names no action here (the page shows the legal ones)"
        assert sb.recv()["step"] == step
        b.send_json({"type": "move", "text": "propose"})       # typed as at the terminal
        m = sb.until(lambda x: x["step"] == step + 1)
        assert m["events"][0]["text"] == "you: I propose"


def test_a_card_that_does_not_follow_is_refused(client):
    """A position where seat 0 must follow suit (found by the engine), resumed from its record: the card that
    does not follow is refused with the follow rule, as the terminal table says it."""
    path = os.path.join(ROOT, "rules", "ecarte.atout")
    g = atout.load(path)
    rng = random.Random(5)
    for _ in range(200):
        st, steps = g.new_initial_state(), []
        while not st.is_terminal():
            if not st.is_chance_node() and st.current_player() == 0 and st.trick_cards and \
                    g.phases[st.phase].kind == "trick":
                hand = st.zones[next(i for i, z in enumerate(g.zone_slots) if z.name == "hand" and z.owner == 0)]
                bad = [c for c in hand if c not in st.legal_actions()]
                if bad:
                    break
            acts = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
            a = rng.choice(acts)
            steps.append({"player": st.current_player(), "action": a, "text": st.action_to_string(a)})
            st.apply_action(a)
        else:
            continue
        break
    legal_cards = " ".join(g.card_str(c) for c in st.legal_actions())
    rec = {"format": "atout-record/1", "game": "ecarte", "rules": "rules/ecarte.atout", "seed": None, "match": 0,
           "bots": ["person", "greedy"], "steps": steps}
    r = client.post("/api/tables", json={"record": json.dumps(rec)})
    assert r.status_code == 201, r.text
    assert r.json()["step"] == len(steps)
    with client.websocket_connect(f"/ws/{r.json()['id']}") as ws:
        s = Seat(ws, 0)
        m = s.sit()
        assert m["waiting_for"] == 0 and m["step"] == len(steps)
        ws.send_json({"type": "move", "action": bad[0]})
        r = s.next_of("refused")
        assert r["reason"] == f"{g.card_str(bad[0])} may not be played now (the follow rules); legal: {legal_cards}"


# -- records -----------------------------------------------------------------------------------------------------
def test_record_replays_with_atout_replay_and_resumes(client, tmp_path):
    """A match left half-way: its record replays with ``atout replay`` ('not finished'), opens a table at the same
    point, where the match is finished; the record downloaded then replays to the end."""
    tid, clients = play(client, "ecarte", ["person", "ismcts"], [0], lambda m: m["step"] > 30, seed=3)
    r = client.get(f"/t/{tid}/record.jsonl")          # not while the match goes on: a record shows every hand
    assert r.status_code == 403 and "once the match is over" in r.text
    text = client.app.state.rooms[tid].table.record_line()     # what --tables DIR keeps
    rec = json.loads(text)
    assert rec["bots"] == ["person", "ismcts"] and "returns" not in rec and rec["seed"] is None
    f = tmp_path / "half.jsonl"
    f.write_text(text, encoding="utf-8")
    cli = [sys.executable, "-m", "atout.cli", "replay", os.path.join(ROOT, "rules", "ecarte.atout"), str(f)]
    done = subprocess.run(cli, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"== replayed {len(rec['steps'])} steps: (not finished)")
    # resume: the same match at the same point, seat 0 sees the same table
    before = clients[0].messages[-1]
    r = client.post("/api/tables", json={"record": text})
    assert r.status_code == 201 and r.json()["step"] == len(rec["steps"])
    assert [s["kind"] for s in r.json()["seats"]] == ["person", "ismcts"]
    # the same point with another bot to play on (a quick one)
    r = client.post("/api/tables", json={"record": text, "seats": ["person", "greedy"]})
    assert r.status_code == 201 and [s["kind"] for s in r.json()["seats"]] == ["person", "greedy"]
    tid2 = r.json()["id"]
    with client.websocket_connect(f"/ws/{tid2}") as ws:
        s = Seat(ws, 0)
        m = s.sit()
        assert m["view"] == before["view"] and m["legal"] == before["legal"]
        # play the match to its end at the resumed table, then the whole record replays
        rng = random.Random(1)
        while not m["view"]["terminal"]:
            if m["legal"] and m["waiting_for"] == 0 and m["step"] == s.messages[-1]["step"]:
                ws.send_json({"type": "move", "action": rng.choice(m["legal"])["action"], "step": m["step"]})
            m = s.until(settled(m["step"]))
    full = client.get(f"/t/{tid2}/record.jsonl").text
    assert json.loads(full)["steps"][:len(rec["steps"])] == rec["steps"]
    f.write_text(full, encoding="utf-8")
    done = subprocess.run(cli + ["--quiet"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    assert json.loads(full)["returns"] in ([1.0, -1.0], [-1.0, 1.0])


def test_bad_records_are_refused(client):
    r = client.post("/api/tables", json={"record": "not json\n"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    rec = {"format": "atout-record/1", "game": "poker", "steps": []}
    r = client.post("/api/tables", json={"record": json.dumps(rec)})
    assert r.status_code == 400 and "game 'poker'" in r.json()["error"]
    rec = {"format": "atout-record/1", "game": "ecarte", "steps": [{"player": 1, "action": 33}]}
    r = client.post("/api/tables", json={"record": json.dumps(rec)})
    assert r.status_code == 400 and "step 1" in r.json()["error"]
    r = client.post("/api/tables", json={"game": "ecarte", "seats": ["person"]})
    assert r.status_code == 400 and r.json()["error"] == "ecarte has 2 seats, not 1"
    r = client.post("/api/tables", json={"game": "ecarte", "seats": ["person", "shark"]})
    assert r.status_code == 400 and "seat kind 'shark'" in r.json()["error"]


def test_options_reach_the_game_and_the_record(client):
    tid = open_table(client, "ecarte", ["greedy", "greedy"], options={"target": "1"})
    with client.websocket_connect(f"/ws/{tid}") as ws:
        m = ws.receive_json()
        while m.get("type") != "state" or not m["view"]["terminal"]:
            m = ws.receive_json()
    rec = json.loads(client.get(f"/t/{tid}/record.jsonl").text)
    assert rec["options"] == {"target": "1"}
    assert len(rec["deals"]) == 1 and max(rec["deals"][0]["points"]) >= 1     # a match to one point: one deal
    r = client.post("/api/tables", json={"game": "ecarte", "seats": ["greedy", "greedy"],
                                         "options": {"target": "500"}})
    assert r.status_code == 400 and "target" in r.json()["error"]


def test_tables_kept_in_a_folder_come_back_after_a_restart(tmp_path):
    entries = load_entries([os.path.join(ROOT, "rules", "ecarte.atout")])
    folder = str(tmp_path / "tables")
    with TestClient(create_app(entries, bot_delay=0, cache_dir=str(tmp_path), tables_dir=folder)) as c:
        tid, clients = play(c, "ecarte", ["person", "greedy"], [0], lambda m: m["step"] > 20, seed=2)
        before = clients[0].messages[-1]
    assert os.listdir(folder) == [f"{tid}.jsonl"]
    with TestClient(create_app(entries, bot_delay=0, cache_dir=str(tmp_path), tables_dir=folder)) as c:
        assert [t["id"] for t in c.get("/api/tables").json()] == [tid]
        with c.websocket_connect(f"/ws/{tid}") as ws:
            m = Seat(ws, 0).sit()        # the token died with the server: the person takes his seat again
            assert m["step"] == before["step"] and m["view"] == before["view"] and m["legal"] == before["legal"]
    with open(os.path.join(folder, f"{tid}.jsonl"), "a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    os.rename(os.path.join(folder, f"{tid}.jsonl"), os.path.join(folder, "broken.jsonl"))
    with open(os.path.join(folder, "other.jsonl"), "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"format": "atout-record/1", "game": "ecarte", "steps": [{"action": 99}]}) + "\n")
    with TestClient(create_app(entries, bot_delay=0, cache_dir=str(tmp_path), tables_dir=folder)) as c:
        assert c.get("/api/tables").json() == []          # both skipped, with a warning


# -- pages ---------------------------------------------------------------------------------------------------------
def test_pages(client):
    r = client.get("/")
    assert r.status_code == 200
    for p in RULES:
        assert f'href="/g/{atout.load(p).name}"' in r.text
    r = client.get("/g/ecarte")
    assert r.status_code == 200
    assert '<span class="k">phase</span>' in r.text          # highlighted rules
    if __import__("shutil").which("dot"):
        assert "<svg" in r.text and "elder_exchange" in r.text
    assert client.get("/g/nope").status_code == 404
    assert client.get("/t/nope").status_code == 404
    assert client.get("/api/games/ecarte/verdicts").json() == {"state": "not yet run"}


def test_verdicts_run_in_the_background_and_counterexamples_replay(tmp_path):
    """A broken variant verified in a background process: the page polls 'running' then gets the verdicts, cached
    by the file's hash; its counterexample replays on the card table."""
    path = os.path.join(ROOT, "tests", "fixtures", "broken", "vole_worth_three.atout")
    app = create_app(load_entries([path]), bot_delay=0, cache_dir=str(tmp_path))
    with TestClient(app) as c:
        key = atout.load(path).name
        assert c.get(f"/api/games/{key}/verdicts").json() == {"state": "not yet run"}
        assert c.post(f"/api/games/{key}/verdicts").json()["state"] in ("queued", "running")
        import time
        t0 = time.time()
        while True:
            s = c.get(f"/api/games/{key}/verdicts").json()
            if s["state"] == "done" or time.time() - t0 > 120:
                break
            assert s["state"] in ("queued", "running")
            time.sleep(0.3)
        assert s["state"] == "done", s
        assert s["exit_status"] == 1
        cap = next(p for p in s["properties"] if p["name"] == "three_point_cap")
        assert cap["verdict"] == "refuted"
        ce = next(x for x in s["counterexamples"] if x["name"] == "three_point_cap")
        frames = c.get(f"/api/games/{key}/trace/{ce['id']}").json()
        assert frames["error"] is None and len(frames["frames"]) == ce["steps"] + 1
        last = frames["frames"][-1]["view"]
        assert all(z["visible"] for z in last["zones"])     # a counterexample is shown in full
        assert os.path.exists(os.path.join(str(tmp_path), f"{app.state.entries[0].sha256}.json"))
        assert c.get(f"/g/{key}/trace/{ce['id']}").status_code == 200


def test_atout_serve_serves(tmp_path):
    """The command itself: uvicorn on a free port, the first page listing the game, then stopped."""
    import socket
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "atout.cli", "serve", os.path.join(ROOT, "rules", "ecarte.atout"),
                             "--port", str(port), "--cache", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout.readline().startswith(f"atout serve: 1 game (ecarte) at http://127.0.0.1:{port}/")
        import time
        t0 = time.time()
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode("utf-8")
                break
            except OSError:
                assert time.time() - t0 < 30 and proc.poll() is None, proc.stderr.read()
                time.sleep(0.2)
        assert 'href="/g/ecarte"' in page
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_verdicts_key_changes_with_a_variants_base_file(tmp_path):
    """A variant's verdicts are verified again when the file it extends changes, not only when it changes."""
    import shutil
    for f in ("ecarte.atout", "ecarte_classic.atout"):
        shutil.copy(os.path.join(ROOT, "rules", f), tmp_path / f)
    variant = str(tmp_path / "ecarte_classic.atout")
    key = load_entries([variant])[0].sha256
    assert load_entries([variant])[0].sha256 == key
    base = (tmp_path / "ecarte.atout").read_text(encoding="utf-8")
    (tmp_path / "ecarte.atout").write_text(base.replace("option target: int in 1..99 = 5",
                                                        "option target: int in 1..99 = 7"), encoding="utf-8")
    assert load_entries([variant])[0].sha256 != key


# -- the command -----------------------------------------------------------------------------------------------
def test_serve_bad_input_exits_2(capsys, monkeypatch, tmp_path):
    assert main(["serve", str(tmp_path / "missing.atout")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    bad = os.path.join(ROOT, "tests", "diagnostics", "E004_nesting_too_deep.atout")
    if os.path.exists(bad):
        assert main(["serve", bad]) == 2
        err = capsys.readouterr().err
        assert "error[E004]" in err and "E004_nesting_too_deep.atout:" in err
    assert main(["serve", str(tmp_path)]) == 2
    assert "no .atout rule file" in capsys.readouterr().err
    import socket
    with socket.socket() as busy:          # a port another server holds
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", os.path.join(ROOT, "rules", "ecarte.atout"), "--port", str(port)]) == 2
        assert f"cannot listen on 127.0.0.1:{port}: Address already in use; another server there?" in \
            capsys.readouterr().err
    import atout.web
    monkeypatch.setattr(atout.web, "missing_extra", lambda: "starlette")
    assert main(["serve", os.path.join(ROOT, "rules")]) == 2
    assert 'pip install "atout[web]"' in capsys.readouterr().err


def test_pages_answer_without_errors(client):
    """The lobby, a game page and the browser's favicon request answer (no 404 in the page's console)."""
    assert client.get("/").status_code == 200
    assert client.get("/g/ecarte").status_code == 200
    assert client.get("/favicon.ico").status_code == 204
    assert client.get("/g/no_such_game").status_code == 404

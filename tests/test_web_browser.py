"""``atout serve`` in a real browser: headless Chromium (Debian's ``chromium`` package) driven by Playwright.

A whole Écarté match against a bot through clicks, two browser contexts playing each other at one Euchre table
with two bots (neither page ever shows another hand's cards), Whist on a phone-sized page, a counterexample of
the verifier stepped through; the screenshots are checked to show the hand and the
trick (the cards' white faces counted in the image, not only in the page's DOM).  ``ATOUT_SCREENSHOTS=DIR`` keeps
the screenshots.
"""
from __future__ import annotations

import io
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
uvicorn = pytest.importorskip("uvicorn")
Image = pytest.importorskip("PIL.Image")

from atout.web.app import create_app  # noqa: E402
from atout.web.tables import load_entries  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
TIMEOUT = 20_000     # ms, for one element to appear
BROKEN = os.path.join(ROOT, "tests", "fixtures", "broken", "vole_worth_three.atout")   # a vole worth 3: refuted


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """uvicorn serving the shipped Écarté, Whist and Euchre, and a broken variant (for its counterexample), on a free
    port of localhost, in a thread."""
    files = [os.path.join(ROOT, "rules", f) for f in ("ecarte.atout", "whist.atout", "euchre.atout")] + [BROKEN]
    app = create_app(load_entries(files), bot_delay=0.05, cache_dir=str(tmp_path_factory.mktemp("verdicts")))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    t0 = time.time()
    while not srv.started:
        assert time.time() - t0 < 20, "uvicorn did not start"
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    # its verification runs in the background while the other tests play (test_a_counterexample_step_by_step)
    import urllib.request
    urllib.request.urlopen(urllib.request.Request(base + "/api/games/vole_worth_three/verdicts", method="POST")).read()
    yield base
    srv.should_exit = True
    th.join(10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def keep(png: bytes, name: str) -> None:
    folder = os.environ.get("ATOUT_SCREENSHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "wb") as fh:
            fh.write(png)


def paper_pixels(png: bytes) -> int:
    """How many pixels of the image are a card's face (#fbfaf6, the cards' paper): none on the felt."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    paper = (0xfb, 0xfa, 0xf6)
    return sum(c for c, rgb in img.getcolors(maxcolors=1 << 24) if all(abs(a - b) <= 2 for a, b in zip(rgb, paper)))


def cards_seen(page, selector, scale=1):
    """How many cards the screenshot of ``selector`` shows: its card-face pixels over one card's area (a card
    is its face less the rank, the suit and the rounded corners: about 0.8 to 0.95 of its box)."""
    w, h = page.locator(selector + " .card").first.evaluate(
        "e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; }")
    return paper_pixels(page.locator(selector).screenshot()) / (w * h * scale * scale)


def open_table(page, base, game, seats):
    """From the first page: choose the game and each seat's kind, open the table; returns its address."""
    page.goto(base + "/")
    page.select_option("#game", game)
    for p, kind in enumerate(seats):
        page.select_option(f'select[data-seat="{p}"]', kind)
    page.click("#open-table")
    page.wait_for_url("**/t/*")
    return page.url


def sit(page, seat, name):
    """Take ``seat``, clicking again (as a person would) while the page has not seated us: in a full suite on a
    loaded machine one click went unanswered for 20 s (the page now rebuilds its seat buttons only when the
    free seats change, so a click no longer lands on a button the next state replaces)."""
    page.fill("#sit-name", name)
    me = f'.seat.me[data-seat="{seat}"]'
    deadline = time.time() + TIMEOUT / 1000
    while True:
        try:
            page.click(f'.sit-seat[data-seat="{seat}"]', timeout=3_000)
            page.wait_for_selector(me, timeout=3_000)
            return
        except sync_api.TimeoutError:
            if page.is_visible(me):
                return
            if time.time() > deadline:
                raise


def my_move_or_end(page):
    """Wait until this page may move (a playable card or a move button) or the match is over; True if over."""
    page.wait_for_selector(".grid.my-turn, .end", timeout=TIMEOUT)
    return page.query_selector(".end") is not None


def click_a_move(page, rng):
    moves = page.query_selector_all(".card.playable, .moves button")
    step = page.evaluate("window.AtoutTable.state().step")
    rng.choice(moves).click()
    page.wait_for_function(f"window.AtoutTable.state().step > {step} || document.querySelector('.end') !== null",
                           timeout=TIMEOUT)


def hand_and_trick(page):
    hand = page.locator(".seat.me .hand .card")
    trick = page.locator("#trick .played .card")
    return hand.count(), trick.count()


def test_a_whole_ecarte_match_against_a_bot(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1100, "height": 820}, accept_downloads=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_table(page, server, "ecarte", ["person", "greedy"])
    sit(page, 0, "Ann")
    rng = random.Random(7)
    shot = None
    moves = 0
    my_move_or_end(page)
    step = page.evaluate("window.AtoutTable.state().step")      # the first move typed, as at atout play
    first = page.evaluate("window.AtoutTable.state().legal[0].text")
    page.fill("#typed-move", "1")
    page.press("#typed-move", "Enter")
    page.wait_for_function(f"window.AtoutTable.state().step > {step}", timeout=TIMEOUT)
    assert page.locator(".log li", has_text=f"you: {first}").count() == 1
    while not my_move_or_end(page):
        hand, trick = hand_and_trick(page)
        if shot is None and trick == 1 and hand >= 3 and page.locator(".seat.me .card.playable").count():
            # the opponent led: his card on the table, our hand below with the cards we may play
            assert page.locator("#trick .played .by").first.inner_text() == "seat 1"
            names = page.locator(".seat.me .hand .card").evaluate_all("els => els.map(e => e.title)")
            assert len(names) == hand and all(len(n) >= 2 for n in names)
            shot = page.screenshot()
            keep(shot, "web-table.png")
            bright = page.locator(".seat.me .hand .card:not(.dim)").count()     # (the cards it may not play are dim)
            assert bright >= 1
            assert 0.7 * bright < cards_seen(page, ".seat.me .hand") <= hand, "the screenshot does not show the hand"
            assert 0.7 < cards_seen(page, "#trick") <= 1, "the screenshot does not show the card led"
        click_a_move(page, rng)
        moves += 1
        assert moves < 400
    end = page.locator(".end h2").inner_text()
    assert end in ("you win", "you lose")
    assert shot is not None, "never saw a trick led by the bot"
    # the record of the match, downloaded from the page, replays with atout replay
    with page.expect_download() as dl:
        page.click("#record-link")
    path = tmp_path / "match.jsonl"
    dl.value.save_as(str(path))
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["bots"] == ["person", "greedy"] and rec["returns"] == ([1.0, -1.0] if end == "you win" else [-1.0, 1.0])
    done = subprocess.run([sys.executable, "-m", "atout.cli", "replay", os.path.join(ROOT, "rules", "ecarte.atout"),
                           str(path), "--quiet"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert not errors
    page.close()


def test_two_browsers_play_each_other_at_one_table(server, browser):
    """Euchre with a friend and two bots: two browser contexts (two people, opponents) at seats 0 and 1 play the
    match (one deal, by OpenSpiel's rules)."""
    a_ctx, b_ctx = browser.new_context(), browser.new_context()      # two people: two cookie jars and storages
    a, b = a_ctx.new_page(), b_ctx.new_page()
    url = open_table(a, server, "euchre", ["person", "person", "greedy", "greedy"])
    sit(a, 0, "Ann")
    b.goto(url)
    b.wait_for_selector('.sit-seat[data-seat="1"]', timeout=TIMEOUT)
    assert b.locator('.sit-seat[data-seat="0"]').count() == 0       # Ann's seat is taken
    sit(b, 1, "Bob")
    rng = random.Random(3)
    pages = {0: a, 1: b}
    deals = set()
    for _ in range(300):
        state = a.evaluate("window.AtoutTable.state()")
        if state["view"]["terminal"]:
            break
        mover = state["waiting_for"]
        if mover is None:
            a.wait_for_timeout(50)
            continue
        page = pages[mover]
        page.wait_for_selector(".grid.my-turn", timeout=TIMEOUT)
        for p, pg in pages.items():       # neither page shows a card of another hand
            for other in {0, 1, 2, 3} - {p}:
                assert pg.locator(f'.seat[data-seat="{other}"] .card:not(.back)').count() == 0
            size = pg.evaluate(f"window.AtoutTable.state().view.zones.find(z => z.name === 'hand' && z.owner === {p}).size")
            assert pg.locator(f'.seat[data-seat="{p}"] .hand .card:not(.back)').count() == size   # his own: all
        deals.add(state["view"]["deal"])
        click_a_move(page, rng)
        a.wait_for_function(f"window.AtoutTable.state().step > {state['step']}", timeout=TIMEOUT)
    assert state["view"]["terminal"]
    ends = sorted(pg.locator(".end h2").inner_text() for pg in (a, b))
    assert ends == ["you lose", "your side wins"]                # seats 0 and 2 against 1 and 3
    assert a.locator('.seat[data-seat="1"] .seat-name').inner_text().startswith("seat 1 · Bob")
    assert deals == {1}
    for pg, me, other in ((a, "you", "seat 1"), (b, "you", "seat 0")):      # each log tells the deal as its seat
        over = pg.locator(".log .ev-deal").first.inner_text()
        assert over.startswith("deal 1 over: ") and me in over and other in over, over
    a_ctx.close()
    b_ctx.close()


def test_the_table_on_a_phone(server, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    page = ctx.new_page()
    open_table(page, server, "whist", ["person", "greedy", "greedy", "greedy"])
    sit(page, 0, "Ann")
    rng = random.Random(1)
    for _ in range(60):
        my_move_or_end(page)
        hand, trick = hand_and_trick(page)
        if trick >= 1 and hand >= 5:
            break
        click_a_move(page, rng)
    assert trick >= 1 and hand >= 5
    assert page.evaluate("document.documentElement.scrollWidth") <= 390      # no sideways scrolling
    for box in page.locator(".seat.me .hand .card").evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"):
        assert 0 <= box[0] and box[1] <= 390, "a card of the hand is off the screen"
    moves = page.locator(".seat.me .card.playable").count() + page.locator(".moves button").count()
    assert moves >= 1
    png = page.screenshot(full_page=True)
    keep(png, "web-table-phone.png")
    img = Image.open(io.BytesIO(png))
    assert img.width == 780                   # 390 css pixels at a device scale of 2
    bright = page.locator(".seat.me .hand .card:not(.dim)").count()
    assert 0.7 * bright < cards_seen(page, ".seat.me .hand", 2) <= hand
    assert 0.7 * trick < cards_seen(page, "#trick", 2) <= trick
    ctx.close()


def test_the_game_page_works_offline(server, browser):
    """The game page: highlighted rules, the diagram, the verdicts panel; nothing is fetched from elsewhere."""
    page = browser.new_page()
    hosts = set()
    page.on("request", lambda r: hosts.add(r.url.split("/")[2]))
    page.goto(server + "/g/ecarte")
    assert page.locator(".rules .source").count() == 1
    assert page.locator(".rules .k").first.inner_text() in ("game", "players", "deck", "option", "zone", "phase")
    if shutil.which("dot"):
        assert page.locator(".diagram svg").count() == 1
    page.wait_for_selector("#run-verify:not([hidden])", timeout=TIMEOUT)
    assert page.locator("#verdict-state").inner_text() == "not yet run"
    assert hosts == {server.split("/")[2]}
    page.close()


def test_a_counterexample_step_by_step(server, browser):
    """The game page lists the verdicts of the broken variant, verified in the background since the server
    started; its refuted property's counterexample opens on the card table and steps back and forth."""
    page = browser.new_page()
    page.goto(server + "/g/vole_worth_three")
    page.wait_for_selector(".v-refuted a.replay", timeout=180_000)       # the verification takes a while
    assert page.locator(".v-refuted td").first.inner_text().startswith("three_point_cap")
    page.click(".v-refuted a.replay")
    page.wait_for_selector("#table .grid", timeout=TIMEOUT)
    assert page.locator("#step-text").inner_text() == "the start of the match"
    page.click("#next")
    assert page.locator("#step-text").inner_text().startswith("step 1: chance: deal ")
    page.click("#last")
    where = page.locator("#where").inner_text()
    n = int(where.split("/")[1])
    assert where.startswith(f"step {n} / {n}") and n > 20
    # every hand face up (a counterexample is full information), the last trick's cards on the felt or taken
    assert page.locator('.seat[data-seat="0"] .card.back').count() == 0
    page.keyboard.press("ArrowLeft")
    assert page.locator("#where").inner_text().startswith(f"step {n - 1} / {n}")
    page.close()


def test_resume_a_match_from_a_record_file(server, browser, tmp_path):
    """'Resume a match' on the first page: a record file half-way through a match opens a table at its last step."""
    import atout
    g = atout.load(os.path.join(ROOT, "rules", "ecarte.atout"))
    st, steps, rng = g.new_initial_state(), [], random.Random(11)
    while len(steps) < 30 or st.is_chance_node() or st.current_player() != 0:
        acts = [a for a, _ in st.chance_outcomes()] if st.is_chance_node() else st.legal_actions()
        a = rng.choice(acts)
        steps.append({"player": st.current_player(), "action": a, "text": st.action_to_string(a)})
        st.apply_action(a)
    rec = {"format": "atout-record/1", "game": "ecarte", "rules": "rules/ecarte.atout", "seed": None, "match": 0,
           "bots": ["person", "greedy"], "steps": steps}
    path = tmp_path / "half.jsonl"
    path.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    page = browser.new_page()
    page.goto(server + "/")
    page.set_input_files("#record-file", str(path))
    page.wait_for_url("**/t/*")
    sit(page, 0, "Ann")
    page.wait_for_selector(".grid.my-turn", timeout=TIMEOUT)
    state = page.evaluate("window.AtoutTable.state()")
    assert state["step"] == len(steps)
    hand = next(i for i, z in enumerate(g.zone_slots) if z.name == "hand" and z.owner == 0)
    shown = page.locator(".seat.me .hand .card").evaluate_all("els => els.map(e => Number(e.dataset.card))")
    assert sorted(shown) == sorted(st.zones[hand])          # the hand the record left seat 0 with
    page.close()

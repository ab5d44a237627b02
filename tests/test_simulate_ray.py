"""`atout simulate --ray`: matches played as Ray tasks give the records and statistics of a serial run.

Match i draws everything from ``random.Random(f"{seed}:{i}")`` (docs/records.md), so the Ray worker that
plays it cannot change it; the results are taken back in match order.  The serial run is the reference.

One local Ray instance (2 CPUs) serves the whole module: the command reuses a process's Ray connection, and a
second driver (a subprocess given the instance's address) connects to it as to a cluster.  At the end Ray is
shut down and no process it started is left.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest
from conftest import ROOT

from atout.cli import main

RULES = {g: os.path.join(ROOT, "rules", f"{g}.atout") for g in ("ecarte", "whist")}
RAY_CPUS = 2


def _descendants() -> set[int]:
    """Live (not zombie) processes descended from this one (Linux /proc); empty elsewhere."""
    if not os.path.isdir("/proc"):
        return set()
    parent = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != b"Z":
                parent[int(pid)] = int(fields[1])
    found, todo = set(), [os.getpid()]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p and c not in found]
        found.update(kids)
        todo.extend(kids)
    return found


@pytest.fixture(scope="module")
def ray_instance():
    """A local Ray instance for the module; shut down at the end, leaving no process behind."""
    ray = pytest.importorskip("ray")
    before = _descendants()
    ray.init(num_cpus=RAY_CPUS, include_dashboard=False, log_to_driver=False)
    assert _descendants() - before, "Ray's processes (gcs_server, raylet, workers) are seen as children"
    yield ray
    ray.shutdown()
    deadline = time.monotonic() + 20
    while _descendants() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _descendants() - before, "processes left by Ray after ray.shutdown()"


def _run(capsys, game: str, n: int, tag: str, tmp_path, *extra) -> tuple[int, dict | None, bytes | None, str]:
    record = tmp_path / f"{game}_{tag}.jsonl"
    code = main(["simulate", RULES[game], "-n", str(n), "--seed", "11", "--json", "--record", str(record),
                 "--bot", "greedy", "--bot", "random", *extra])
    out, err = capsys.readouterr()
    stats = json.loads(out) if code == 0 else None
    return code, stats, record.read_bytes() if record.exists() else None, err


def _timeless(stats: dict) -> dict:
    return {k: v for k, v in stats.items() if k not in ("seconds", "matches_per_second", "jobs")}


@pytest.mark.parametrize("game, n", [("ecarte", 40), ("whist", 18)])      # 3 and 2 chunks of 16
def test_ray_gives_the_serial_records_and_stats_byte_for_byte(capsys, tmp_path, ray_instance, game, n):
    code, serial, serial_record, err = _run(capsys, game, n, "serial", tmp_path)
    assert code == 0, err
    code, on_ray, ray_record, err = _run(capsys, game, n, "ray", tmp_path, "--ray")
    assert code == 0, err
    assert ray_record == serial_record
    assert json.dumps(_timeless(on_ray)) == json.dumps(_timeless(serial))
    assert on_ray["jobs"] == RAY_CPUS                 # the instance's CPUs, as it was started
    assert [json.loads(x)["match"] for x in ray_record.decode("utf-8").splitlines()] == list(range(n))
    assert ray_instance.is_initialized()              # the module's connection was used and left open


def test_a_second_driver_given_the_address_gets_the_same_records(capsys, tmp_path, ray_instance):
    """`--ray HOST:PORT` from another process: ray.init(address=...) to the running instance."""
    code, serial, serial_record, err = _run(capsys, "ecarte", 20, "serial", tmp_path)
    assert code == 0, err
    port = ray_instance.get_runtime_context().gcs_address.rpartition(":")[2]
    record = tmp_path / "driver.jsonl"
    out = subprocess.run([sys.executable, "-m", "atout.cli", "simulate", RULES["ecarte"], "-n", "20", "--seed", "11",
                          "--json", "--record", str(record), "--bot", "greedy", "--bot", "random",
                          "--ray", f"127.0.0.1:{port}"],
                         capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 0, out.stderr
    assert "Connected to Ray cluster" in out.stderr     # Ray's own line: it joined, it did not start one
    assert record.read_bytes() == serial_record
    assert _timeless(json.loads(out.stdout)) == _timeless(serial)
    assert ray_instance.cluster_resources().get("CPU") == RAY_CPUS    # the instance outlived the other driver


FAULTY = """
game g "a deal variable pushed out of its range"
players 2
deck {
  suits spades hearts diamonds clubs
  ranks A K Q J 10 9 8 7
}
zone stock: hidden, home
zone hand: per player, private
deal var n: int in 0..2 = 0
match var points: int in 0..9 per player = 0
phase deal {
  do {
    gather stock
    shuffle stock
    deal 3, 2 from stock to hand starting eldest
    n += 3
    goto play
  }
}
phase play {
  actor eldest
  action go "go" { points[eldest] += 1
                   end deal }
}
match {
  first dealer 0
  next dealer left(dealer)
  start deal
  ends when any(p in players: points[p] >= 3)
  returns(p) = points[p]
}
"""


def test_a_rule_error_in_a_ray_task_is_reported_as_in_a_serial_run(capsys, tmp_path, ray_instance):
    path = tmp_path / "faulty.atout"
    path.write_text(FAULTY, encoding="utf-8")
    errors = {}
    for tag, extra in (("serial", []), ("ray", ["--ray"])):
        record = tmp_path / f"{tag}.jsonl"
        code = main(["simulate", str(path), "-n", "20", "--record", str(record), *extra])
        errors[tag] = capsys.readouterr().err
        assert code == 1, errors[tag]
        assert not record.exists() and not (tmp_path / f"{tag}.jsonl.part").exists()
    assert "'n' would become 3, outside its range 0..2" in errors["serial"]
    assert errors["ray"] == errors["serial"]           # the same one line, no remote traceback


def _refused_address():
    """A loopback port bound but not listening: a connection to it is refused while the socket is held."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s, f"127.0.0.1:{s.getsockname()[1]}"


def test_bad_addresses_and_options_are_usage_errors(capsys, tmp_path):
    sock, refused = _refused_address()
    with sock:
        cases = {refused: "cannot reach a Ray cluster at " + refused,
                 f"ray://{refused}": "cannot reach a Ray cluster at ray://" + refused,
                 "nonsense": "write HOST:PORT",
                 "127.0.0.1:99999": "write HOST:PORT"}
        for address, message in cases.items():
            t0 = time.monotonic()
            code, _, record, err = _run(capsys, "ecarte", 3, "bad", tmp_path, "--ray", address)
            assert code == 2 and message in err and "Traceback" not in err, (address, err)
            assert record is None and not (tmp_path / "ecarte_bad.jsonl.part").exists()
            assert time.monotonic() - t0 < 30           # refused at once, not after Ray's minutes of retries
    code, _, _, err = _run(capsys, "ecarte", 3, "bad", tmp_path, "--ray", "-j", "2")
    assert code == 2 and "-j and --ray do not go together" in err


def test_ray_not_installed_names_the_extra(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)      # `import ray` raises ImportError
    code, _, record, err = _run(capsys, "ecarte", 3, "noray", tmp_path, "--ray")
    assert code == 2 and "not installed" in err and "pip install 'atout[ray]'" in err
    assert record is None
    code, _, _, err = _run(capsys, "ecarte", 3, "noray", tmp_path)                # without --ray: not needed
    assert code == 0, err


def test_the_progress_bar_under_ray_goes_to_stderr_only(capsys, tmp_path, monkeypatch, ray_instance):
    code, plain, plain_record, err = _run(capsys, "ecarte", 40, "plain", tmp_path, "--ray")
    assert code == 0 and "━" not in err and "simulated 40/40 matches" in err   # not a terminal: lines, no bar
    monkeypatch.setenv("FORCE_COLOR", "1")              # rich draws as on a terminal
    code, forced, forced_record, err = _run(capsys, "ecarte", 40, "forced", tmp_path, "--ray")
    assert code == 0, err
    assert "simulating" in err and "40/40" in err
    assert forced_record == plain_record and _timeless(forced) == _timeless(plain)

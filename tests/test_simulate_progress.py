"""`atout simulate`'s progress bar: drawn on stderr only when stderr is a terminal, never on stdout.

The command runs in a subprocess whose stderr is a pseudo-terminal (the bar is drawn: several frames counting
the matches up to N) or a pipe (no bar, but a line at the start and one per tenth of the matches);
``--no-progress`` and ``--quiet`` silence both.  In
every case stdout (the statistics) and the record file are those of a run without any bar.
"""
from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time

import pytest
from conftest import ROOT

ECARTE = os.path.join(ROOT, "rules", "ecarte.atout")
N = 120          # Écarté matches: the bar is drawn at every tenth of them (and by rich's own 10 refreshes a second)
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
FRAME = re.compile(rb"simulating\s+\S*\s+(\d+)/(\d+)")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal (pty)")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}
    env.update(COLUMNS="100", TERM="xterm")
    return env


def _simulate(tmp_path, name: str, *extra, tty: bool, n: int = N) -> tuple[bytes, bytes, bytes]:
    """(stdout, stderr, record bytes) of `atout simulate ECARTE -n n --seed 4 --json --record R *extra`."""
    import pty
    record = tmp_path / f"{name}.jsonl"
    cmd = [sys.executable, "-m", "atout.cli", "simulate", ECARTE, "-n", str(n), "--seed", "4", "--json",
           "--record", str(record), *extra]
    if not tty:
        out = subprocess.run(cmd, capture_output=True, env=_env(), stdin=subprocess.DEVNULL, timeout=120,
                             check=False)
        assert out.returncode == 0, out.stderr
        return out.stdout, out.stderr, record.read_bytes()
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, env=_env())
    os.close(slave)
    err = b""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:          # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                err += chunk
            elif proc.poll() is not None:
                break
        out = proc.stdout.read()
        assert proc.wait(timeout=30) == 0, err
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return out, err, record.read_bytes()


def _frames(err: bytes) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in FRAME.findall(ANSI.sub(b"", err))]


def _stats(out: bytes) -> dict:
    stats = json.loads(out)
    for k in ("seconds", "matches_per_second", "jobs"):
        stats.pop(k)
    return stats


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The serial run with stderr a pipe: the reference."""
    return _simulate(tmp_path_factory.mktemp("plain"), "plain", tty=False)


def test_no_bar_when_stderr_is_not_a_terminal(plain, tmp_path):
    out, err, record = plain
    lines = err.decode().splitlines()                          # no bar on a pipe: plain lines, a tenth each
    assert lines[0].startswith(f"simulating {N} matches of ecarte") and b"\x1b" not in err
    assert lines[1:] == [f"simulated {k}/{N} matches" for k in range(N // 10, N + 1, N // 10)]
    assert json.loads(out)["matches"] == N and len(record.splitlines()) == N
    out2, err2, record2 = _simulate(tmp_path, "quiet", "--no-progress", tty=False)
    assert err2 == b"" and _stats(out2) == _stats(out) and record2 == record


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_bar_is_drawn_on_a_terminal_and_changes_nothing_else(tmp_path, plain, jobs):
    plain_out, _, plain_record = plain
    out, err, record = _simulate(tmp_path, "tty", "-j", jobs, tty=True)
    frames = _frames(err)
    assert len(frames) >= 3, err[:400]                         # several frames ...
    assert {total for _, total in frames} == {N}               # ... of N matches ...
    done = [k for k, _ in frames]
    assert done == sorted(done) and done[0] < N and done[-1] == N   # ... counting up to N
    assert record == plain_record
    assert _stats(out) == _stats(plain_out)


@pytest.mark.parametrize("flag", ["--no-progress", "--quiet"])
def test_no_progress_and_quiet_silence_the_bar_on_a_terminal(tmp_path, flag):
    out, err, record = _simulate(tmp_path, "quiet", flag, tty=True, n=20)   # a bar draws its first frame at once
    assert _frames(err) == [] and b"simulating" not in err
    assert json.loads(out)["matches"] == 20
    assert len(record.splitlines()) == 20

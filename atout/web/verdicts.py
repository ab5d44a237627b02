"""``atout verify`` for the game pages: run in a background process, cached per rule file hash.

Verification takes seconds on Écarté and minutes on the big games, so the server never runs it in its own
process: :class:`Verdicts` starts ``python -m atout.cli verify FILE --json`` (the CLI's default budget) as a
subprocess, one at a time, and keeps its JSON output in ``CACHE/<sha256>.json``; a page shows 'not yet run',
'running' or the verdicts.  The key is the hash of the file's bytes (with its compiled IR, which changes when a
variant's base file does, and Atout's version), so an edited file is verified again and an unchanged one never
twice (also across restarts of the server).
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
import time


def default_cache_dir() -> str:
    """``$XDG_CACHE_HOME/atout/verify`` (default ``~/.cache/atout/verify``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "atout", "verify")


class Verdicts:
    """The verdicts of the served files.  ``status(entry)`` -> ``{"state": "not yet run" | "queued" |
    "running" | "done" | "failed", ...}``; ``start(entry)`` queues a run (no-op if cached or under way).
    ``extra_args`` are added to the command line of ``atout verify`` (e.g. a smaller ``--max-states``)."""

    def __init__(self, cache_dir: str | None = None, extra_args: list[str] | None = None):
        self.cache_dir = cache_dir or default_cache_dir()
        self.extra_args = list(extra_args or [])
        self.running: dict[str, dict] = {}      # sha -> {"state", "since"}
        self.failed: dict[str, str] = {}
        self._queue: asyncio.Queue | None = None
        self._worker: asyncio.Task | None = None

    def _path(self, entry) -> str:
        return os.path.join(self.cache_dir, f"{entry.sha256}.json")

    def cached(self, entry) -> dict | None:
        """The cached ``atout verify --json`` output of ``entry``'s file, or None."""
        try:
            with open(self._path(entry), encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return None

    def status(self, entry) -> dict:
        result = self.cached(entry)
        if result is not None:
            return {"state": "done", "result": result}
        if entry.sha256 in self.running:
            r = self.running[entry.sha256]
            return {"state": r["state"], "seconds": round(time.monotonic() - r["since"], 1)}
        if entry.sha256 in self.failed:
            return {"state": "failed", "error": self.failed[entry.sha256]}
        return {"state": "not yet run"}

    def start(self, entry) -> dict:
        """Queue a verification of ``entry`` (must be called on the server's event loop)."""
        if self.cached(entry) is None and entry.sha256 not in self.running:
            self.failed.pop(entry.sha256, None)
            if self._queue is None:
                self._queue = asyncio.Queue()
            if self._worker is None or self._worker.done():
                self._worker = asyncio.get_running_loop().create_task(self._work())
            self.running[entry.sha256] = {"state": "queued", "since": time.monotonic()}
            self._queue.put_nowait(entry)
        return self.status(entry)

    async def _work(self) -> None:
        while True:
            entry = await self._queue.get()
            self.running[entry.sha256] = {"state": "running", "since": time.monotonic()}
            try:
                await self._run(entry)
            except Exception as exc:  # noqa: BLE001 - reported on the page, the server goes on
                self.failed[entry.sha256] = f"{type(exc).__name__}: {exc}"
            finally:
                self.running.pop(entry.sha256, None)

    async def _run(self, entry) -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "atout.cli", "verify", os.path.abspath(entry.path), "--json", *self.extra_args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        if proc.returncode not in (0, 1, 3):
            raise RuntimeError(f"atout verify exited with status {proc.returncode}: "
                               f"{err.decode('utf-8', 'replace').strip()[-500:]}")
        result = json.loads(out.decode("utf-8"))
        result["exit_status"] = proc.returncode
        await asyncio.to_thread(self._store, entry, result)

    def _store(self, entry, result: dict) -> None:
        os.makedirs(self.cache_dir, exist_ok=True)
        tmp = self._path(entry) + ".part"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(result, fh, ensure_ascii=False)
        os.replace(tmp, self._path(entry))


def counterexamples(result: dict) -> list[dict]:
    """Every counterexample of a verify result: ``{"id", "name", "kind", "note", "steps", "cycle_start",
    "cycle_length"}`` (``id`` is its index in this list, for URLs)."""
    out = []
    for p in result.get("properties", []):
        ce = p.get("counterexample")
        if ce:
            out.append({"name": p["name"], "kind": ce.get("kind"), "note": ce.get("note") or p.get("method"),
                        "steps": ce.get("steps", []), "cycle_start": ce.get("cycle_start"),
                        "cycle_length": ce.get("cycle_length")})
    for i, f in enumerate(result.get("findings", [])):
        ce = f.get("counterexample")
        if ce:
            out.append({"name": f"finding {i + 1}: {f.get('kind')}", "kind": ce.get("kind"),
                        "note": f.get("message"), "steps": ce.get("steps", []), "cycle_start": None,
                        "cycle_length": None})
    for k, c in enumerate(out):
        c["id"] = k
    return out

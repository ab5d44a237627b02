"""The ``atout`` command line.

    atout check FILE                      compile; diagnostics, or a one-line summary (and a variant's changes)
    atout dump FILE                       the canonical IR dump
    atout play FILE [--seat N] [--bot B] [--seed S]
    atout simulate FILE -n N [--seed S] [--bot B ...] [--json] [--record OUT.jsonl] [-j N | --ray [ADDRESS]]
                 [--no-progress] [--quiet]
    atout replay FILE RECORD [--match K] [--quiet]
    atout verify FILE [--property NAME] [--json] [--trace-out DIR] [--max-states N] [--max-transitions N] [--cross-check N]
                 [--timeout SECONDS]
    atout export FILE --to python|openspiel|dot|mermaid|json -o OUT
    atout serve FILE_OR_DIR... [--host H] [--port P]   the web card table (the [web] extra; docs/web.md)
    atout lsp [--verify-on-save]          the language server, over stdio (docs/editors.md)

Exit status: 0 success; 1 a property refuted or unknown (verify), a replay that
disagrees with its record, or a rule error found while playing; 2 bad input
(a malformed rule file, a missing file, bad arguments); 3 the verifier's cross-check
found the verifier itself wrong (verify).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from atout.compiler import CompileError, compile_file, ir


from atout.errors import UsageError  # noqa: E402  (re-exported: atout.cli.UsageError)


def options_of(args) -> dict[str, str]:
    """``--option NAME=VALUE`` (repeated) as {name: value text}; a malformed one is a UsageError (exit 2)."""
    out = {}
    for item in getattr(args, "option", None) or []:
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise UsageError(f"--option {item!r}: write NAME=VALUE, e.g. --option target=7")
        out[name.strip()] = value.strip()
    return out


def _bot_arg(text: str) -> str:
    """argparse type of ``--bot``: a bot name (:func:`atout.engine.bots.bot_name`)."""
    import argparse

    from atout.engine.bots import bot_name
    try:
        return bot_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _compile(args):
    return compile_file(args.file, options_of(args))


def _load(path_or_args):
    from atout.engine import Game
    if isinstance(path_or_args, str):
        return Game(compile_file(path_or_args))
    return Game(_compile(path_or_args))


def _warn(g) -> None:
    """Print the compiler's warnings on ``g`` to stderr (they never change the exit status)."""
    from atout.compiler import warnings_text
    text = warnings_text(g)
    if text:
        print(text, file=sys.stderr)


def cmd_check(args) -> int:
    g = _compile(args)
    phases = len(g.phases)
    actions = sum(len(p.actions) for p in g.phases)       # named actions; a trick phase's play is not one
    tricks = sum(1 for p in g.phases if p.kind == "trick")
    def n(k, one, many=None):
        return f"{k} {one if k == 1 else many or one + 's'}"
    print(f"{args.file}: ok: game '{g.name}' ({g.title}): {n(g.players, 'player')}, {n(g.deck.size, 'card')} "
          f"({n(len(g.deck.suits), 'suit')} x {n(len(g.deck.ranks), 'rank')}), {n(phases, 'phase')}"
          f"{f' ({tricks} of tricks)' if tricks else ''}, "
          f"{n(actions, 'named action')}, {n(len(g.tables), 'scoring table')}, {n(len(g.options), 'option')}, "
          f"{n(len(g.properties), 'property', 'properties')}, {n(g.num_distinct_actions, 'distinct action id')}")
    from atout.compiler.variants_diff import describe_variant
    for line in describe_variant(args.file):
        print(line)
    sys.stdout.flush()
    _warn(g)
    return 0


def cmd_dump(args) -> int:
    sys.stdout.write(ir.dump(_compile(args)))
    return 0


def cmd_play(args) -> int:
    from atout.engine.terminal import play_terminal
    game = _load(args)
    if not 0 <= args.seat < game.players:
        raise UsageError(f"--seat must be 0..{game.players - 1} for {game.name}")
    return play_terminal(game, seat=args.seat, bot=args.bot, seed=args.seed)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt so that the cleanup of a half-written file runs."""


def _terminate_as_interrupt():
    """A context in which SIGTERM raises :class:`_Terminated` (the previous handler is restored after)."""
    import contextlib
    import signal

    @contextlib.contextmanager
    def ctx():
        def handler(signum, frame):
            raise _Terminated()
        try:
            old = signal.signal(signal.SIGTERM, handler)
        except ValueError:      # not the main thread: leave signals alone
            yield
            return
        try:
            yield
        finally:
            signal.signal(signal.SIGTERM, old)
    return ctx()


def cmd_simulate(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from atout.engine.report import print_stats
    from atout.engine.simulate import RayUnavailable, ray_session, simulate
    if args.n < 1:
        raise UsageError("-n must be at least 1")
    if args.jobs < 0:
        raise UsageError(f"-j must be 0 (one process per CPU) or more, not {args.jobs}")
    use_ray = args.ray is not None
    if use_ray and args.jobs != 1:
        raise UsageError("-j and --ray do not go together: with --ray the matches are spread over the Ray "
                         "cluster's CPUs")
    jobs = args.jobs or os.cpu_count() or 1
    game = _load(args)
    bots = args.bot or ["random"]
    record_fh = None
    tmp_path = None
    if args.record:
        if os.path.isdir(args.record):
            raise UsageError(f"cannot write record file '{args.record}': it is a directory (give a file name, "
                             f"e.g. {os.path.join(args.record, 'matches.jsonl')})")
        tmp_path = args.record + ".part"
        try:
            record_fh = open(tmp_path, "w", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write record file '{args.record}': {exc.strerror}") from None
    err = Console(stderr=True)
    progress = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=err, transient=True,
                        disable=not err.is_terminal or args.no_progress or args.quiet)
    # stderr not a terminal (a log file, CI): no bar, but a line at the start and at every tenth of the matches
    lines = not err.is_terminal and not args.no_progress and not args.quiet
    step = max(1, args.n // 10)
    if lines:
        print(f"simulating {args.n} match{'es' if args.n != 1 else ''} of {game.name} ({', '.join(bots)}): a line "
              f"every {step} match{'es' if step != 1 else ''}", file=sys.stderr, flush=True)
    import contextlib
    import time
    t0 = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            if use_ray:       # connected (or started) before the bar is drawn, so that Ray's log lines come first
                try:
                    jobs = stack.enter_context(ray_session(args.ray or None, quiet=args.quiet))
                except RayUnavailable as exc:
                    raise UsageError(str(exc)) from None
                t0 = time.perf_counter()      # "seconds" is the matches' time, not Ray's start-up
            stack.enter_context(progress)
            task = progress.add_task("matches", total=args.n)

            def on_match(i, result):
                if record_fh is not None:
                    rec = result.record(game, args.file, args.seed, i, [bots[p % len(bots)]
                                                                         for p in range(game.players)],
                                        options_of(args))
                    record_fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                progress.advance(task)
                if (i + 1) % step == 0:
                    progress.refresh()     # drawn at every tenth too, however fast the matches run
                if lines and ((i + 1) % step == 0 or i + 1 == args.n):
                    print(f"simulated {i + 1}/{args.n} matches", file=sys.stderr, flush=True)

            with _terminate_as_interrupt():
                stats = simulate(game, args.n, args.seed, bots, on_match, jobs=jobs, ray=use_ray,
                                 ray_address=args.ray or None)
    except BaseException:
        if record_fh is not None:
            record_fh.close()
            os.unlink(tmp_path)
        raise
    seconds = time.perf_counter() - t0
    if record_fh is not None:
        record_fh.close()
        os.replace(tmp_path, args.record)
    out = stats.as_json()
    out["game"] = game.name
    out["seed"] = args.seed
    out["bots"] = [bots[p % len(bots)] for p in range(game.players)]
    out["jobs"] = jobs
    out["seconds"] = round(seconds, 3)
    out["matches_per_second"] = round(args.n / seconds, 1) if seconds > 0 else None
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print_stats(out)
    return 0


def cmd_replay(args) -> int:
    from atout.engine.replay import MalformedRecord, first_record_options, replay_file
    options = options_of(args)
    if not options:          # the options the record was made with (its "options" field), if it says
        try:
            options = first_record_options(args.record)
        except MalformedRecord:
            options = {}     # replay_file reports the bad file
    from atout.engine import Game
    game = Game(compile_file(args.file, options))
    return replay_file(game, args.record, match=args.match, quiet=args.quiet, step=args.step, seat=args.seat,
                       options=options)


def cmd_verify(args) -> int:
    from atout.verify.cli import run_verify
    status = run_verify(args)
    if getattr(args, "own_process", False):
        # the process ends here: skip freeing the verifier's millions of objects one by one (seconds of CPU)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


def cmd_export(args) -> int:
    from atout.export import export
    return export(args.file, args.to, args.output, options_of(args))


def cmd_lsp(args) -> int:
    from atout.lsp import EXTRA_HINT, missing_dependency
    missing = missing_dependency()
    if missing is not None:
        raise UsageError(f"'{missing}' is not installed: {EXTRA_HINT}")
    if args.verify_timeout <= 0:
        raise UsageError(f"--verify-timeout must be positive, not {args.verify_timeout}")
    if args.debounce < 0:
        raise UsageError(f"--debounce must be 0 or more, not {args.debounce}")
    from atout.lsp.server import serve
    return serve(verify_on_save=args.verify_on_save, verify_timeout=args.verify_timeout, debounce=args.debounce)


def cmd_serve(args) -> int:
    from atout.web import missing_extra
    missing = missing_extra()
    if missing:
        raise UsageError(f"atout serve needs the [web] extra ({missing} is not installed): "
                         f"pip install \"atout[web]\" (or pip install -e \".[web]\" in a checkout)")
    from atout.web.tables import load_entries
    try:
        entries = load_entries(args.paths)
    except FileNotFoundError as exc:
        raise UsageError(f"no such file or folder: {exc.args[0]}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, not {args.port}")
    if args.bot_delay < 0:
        raise UsageError(f"--bot-delay must be 0 or more seconds, not {args.bot_delay}")
    if args.tables and os.path.exists(args.tables) and not os.path.isdir(args.tables):
        raise UsageError(f"--tables {args.tables}: not a folder (a file of that name exists)")
    import socket
    try:                      # the address is free (uvicorn would only log the error)
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as exc:
        import errno
        why = os.strerror(exc.errno) if isinstance(exc.errno, int) and exc.errno > 0 else \
            str(exc.strerror or exc).split(" (while attempting")[0]
        hint = "another server there? choose another --port" if exc.errno == errno.EADDRINUSE else \
            "--host is an address of this machine, or 0.0.0.0 for all of them"
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {why}; {hint}") from None
    import uvicorn
    from atout.web.app import create_app
    app = create_app(entries, bot_delay=args.bot_delay, cache_dir=args.cache, tables_dir=args.tables)
    print(f"atout serve: {len(entries)} game{'s' if len(entries) != 1 else ''} "
          f"({', '.join(e.key for e in entries)}) at http://{args.host}:{args.port}/ (ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="atout", description="Card games as declarative rules: check, play, "
                                                           "simulate, verify and export them.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="compile a rule file and print diagnostics or a summary")
    p.add_argument("file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="set an option of the game (repeat), as a variant's 'override option' would")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("dump", help="print the canonical IR of a rule file")
    p.add_argument("file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="set an option of the game (repeat), as a variant's 'override option' would")
    p.set_defaults(func=cmd_dump)

    p = sub.add_parser("play", help="play a match at the terminal against bots")
    p.add_argument("file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="set an option of the game (repeat), as a variant's 'override option' would")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--bot", type=_bot_arg, default="greedy", metavar="BOT",
                   help="the opponents: random, greedy (default), ismcts (a search, 200 iterations a move: "
                        "under a second in Écarté) or ismcts:N (N iterations a move)")
    p.add_argument("--seed", type=int, default=None, help="seed for shuffles and bots")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="bots play N matches; print statistics")
    p.add_argument("file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="set an option of the game (repeat), as a variant's 'override option' would")
    p.add_argument("-n", type=int, required=True, help="number of matches")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bot", action="append", type=_bot_arg, metavar="BOT",
                   help="bot for seat 0, then seat 1, ... (repeat; cycles; default random): random, greedy, "
                        "ismcts or ismcts:N (N iterations a move)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--record", metavar="FILE.jsonl", help="write one JSON line per match (docs/records.md)")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="play the matches in N processes (0: one per CPU); results and records are those of "
                        "a serial run")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="play the matches as Ray tasks: on the cluster at ADDRESS (HOST:PORT, auto), or on a "
                        "Ray instance started here when ADDRESS is left out; records are those of a serial run "
                        "(needs the [ray] extra)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (drawn on stderr when it is a "
                   "terminal) and no progress lines (printed when it is not)")
    p.add_argument("--quiet", action="store_true", help="nothing on stderr but errors (no progress bar, no "
                   "Ray log lines)")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("replay", help="replay a recorded match step by step")
    p.add_argument("file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="set an option of the game (repeat), as a variant's 'override option' would")
    p.add_argument("record")
    p.add_argument("--match", type=int, default=None, help="which match of the record file (default: all)")
    p.add_argument("--quiet", action="store_true", help="only check that the record replays (prints nothing "
                   "on success)")
    p.add_argument("--step", action="store_true", help="step through the match interactively (next, back, "
                   "step K, deal N)")
    p.add_argument("--seat", type=int, default=None, help="show the table as this seat (0-based) saw it")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("verify", help="prove or refute the properties of a rule file")
    p.add_argument("file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="set an option of the game (repeat), as a variant's 'override option' would")
    p.add_argument("--property", action="append", help="only this property (repeatable)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--trace-out", metavar="DIR", help="write each counterexample as a replayable record")
    p.add_argument("--max-states", type=int, default=400_000,
                   help="abstract states per exploration before a verdict is unknown (default 400000)")
    p.add_argument("--max-transitions", type=int, default=1_000_000, metavar="N",
                   help="transitions per exploration before a verdict is unknown: what its memory grows with, "
                        "about 10 KB each with its states (default 1000000)")
    p.add_argument("--cross-check", type=int, default=24, metavar="N",
                   help="seeded engine matches replayed against the abstraction after verifying, at most 500 "
                        "engine steps each on average (default 24; 0: none)")
    p.add_argument("--search-steps", type=int, default=60_000, metavar="N",
                   help="engine steps of each concrete search for a counterexample the abstraction found "
                        "(default 60000)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="wall-clock safety in seconds (default 600); a verdict it cuts says so")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="run the checks in N processes (default 1; Linux), after the explorations they share: "
                        "the same verdicts as -j 1")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("export", help="export a game: python, openspiel, dot, mermaid or json")
    p.add_argument("file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="set an option of the game (repeat), as a variant's 'override option' would")
    p.add_argument("--to", required=True, choices=["python", "openspiel", "dot", "mermaid", "json"])
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("lsp", help="the language server for editors, over stdio (the [lsp] extra; docs/editors.md)")
    p.add_argument("--verify-on-save", action="store_true",
                   help="run 'atout verify' when a file is saved and show the verdicts on the property lines "
                        "(off by default; it runs in the background)")
    p.add_argument("--verify-timeout", type=float, default=300.0, metavar="SECONDS",
                   help="wall-clock safety of each verification on save (default 300)")
    p.add_argument("--debounce", type=float, default=0.15, metavar="SECONDS",
                   help="compile this long after the last keystroke (default 0.15)")
    p.set_defaults(func=cmd_lsp)

    p = sub.add_parser("serve", help="the web card table: play a game with friends and bots in a browser "
                                     "(the [web] extra; docs/web.md)")
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="rule files, or folders of *.atout files")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                   "only; 0.0.0.0 for the local network)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--bot-delay", type=float, default=0.7, metavar="SECONDS",
                   help="pause before each bot move, to see the cards fall (default 0.7)")
    p.add_argument("--cache", default=None, metavar="DIR", help="where the verdicts of 'atout verify' are kept "
                   "(default ~/.cache/atout/verify)")
    p.add_argument("--tables", default=None, metavar="DIR", help="keep each table's record in DIR and open the "
                   "tables found there again on start (default: tables last as long as the server)")
    p.set_defaults(func=cmd_serve)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    args.own_process = argv is None    # run as the 'atout' program (not called from Python)
    try:
        return args.func(args)
    except CompileError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"atout: error: {exc}", file=sys.stderr)
        return 2
    except _Terminated:
        print("\nterminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a rule error found while running a game
        from atout.engine import RuleError
        if isinstance(exc, RuleError):
            print(f"atout: rule error: {exc}", file=sys.stderr)
            i = getattr(exc, "match_index", None)
            if i is not None:
                print(f"  in match {i} of the run (0-based) with seed {exc.seed}: 'atout simulate FILE -n {i + 1} "
                      f"--seed {exc.seed}' with the same bots plays it again", file=sys.stderr)
            return 1
        if os.environ.get("ATOUT_TRACEBACK"):
            raise
        import traceback
        last = traceback.extract_tb(exc.__traceback__)[-1]
        print(f"atout: internal error, a bug of Atout (please report it with the command and the rule file): "
              f"{type(exc).__name__}: {exc}\n  at {os.path.basename(last.filename)}:{last.lineno} in {last.name}; "
              f"ATOUT_TRACEBACK=1 shows the whole traceback", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

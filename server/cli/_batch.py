"""``perfalign optimize --all PATH…``: every function of a tree, for CI, with a report folder and an exit status.

The work is the library's (``optimize.find_targets``, ``plan_batch``, ``run_batch``, ``apply_best`` and
``reports.write_report``); this module reads the options, shows progress and turns the run into an exit
status: 0 whether or not suggestions were found, :data:`EXIT_ERROR` when a file could not be used, a job
failed (the model, perfalign) or the report could not be written, :data:`EXIT_FAIL_ABOVE` when
``--fail-above X`` is given and a verified speedup exceeds X, 130 when interrupted (after the report of
what was done is written).
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..errors import describe

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_FAIL_ABOVE = 4
EXIT_INTERRUPTED = 130
DEFAULT_REPORT = "perfalign-report"
LOG_EVERY_S = 60.0  # without a terminal, a running job's progress is written at most this often
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")


def parse_budget(text: str | None) -> float | None:
    """``30m``, ``1h30m``, ``90s`` or ``90`` (seconds) as seconds; None for no budget."""
    if text is None:
        return None
    match = _DURATION.match(text.strip().lower())
    if not text.strip() or match is None or not any(match.groups()):
        raise click.BadParameter(f"{text!r} is not a duration; write it like 30m, 1h30m or 90s", param_hint="--budget")
    hours, minutes, seconds = (float(g) if g else 0.0 for g in match.groups())
    total = hours * 3600 + minutes * 60 + seconds
    if total <= 0:
        raise click.BadParameter("the budget must be more than 0", param_hint="--budget")
    return total


def batch_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of ``optimize --all``, added to the optimize command."""
    for option in reversed([
        click.option("--all", "all_", is_flag=True,
                     help="Optimize every function of the C/C++ files under the PATHs (for CI; see --report)."),
        click.option("--jobs", type=click.IntRange(1, 64), default=None,
                     help="With --all: functions worked on at once, sharing one model (default 1; see the docs)."),
        click.option("--report", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help=f"With --all: the report folder (HTML, SARIF, patches, state; default ./{DEFAULT_REPORT})."),
        click.option("--budget", default=None, help="With --all: stop starting functions after this long (30m, 1h)."),
        click.option("--fail-above", type=click.FloatRange(min=1.0), default=None,
                     help="With --all: exit 4 when a verified speedup exceeds this (e.g. 1.5)."),
    ]):
        command = option(command)
    return command


def repository_root(start: Path) -> Path:
    """The git repository holding ``start``, else ``start`` itself: patches and SARIF name files from here."""
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return start.resolve()
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else start.resolve()


def _hot_keys(targets: list[Any], top: int, cwd: Path) -> list[str]:
    """The keys of the ``top`` hottest functions of the kept profile among ``targets``, hottest first."""
    from ..hotspots import hot_targets  # noqa: PLC0415

    by_place = {(t.path, t.function): t.key for t in targets}
    keys = [by_place[(path.resolve(), name)] for path, name in hot_targets(cwd, 1_000_000)
            if (path.resolve(), name) in by_place]
    if not keys:
        raise click.ClickException("none of the profile's hot functions is under the PATHs given; "
                                   "run perfalign hotspots from the project's folder, or give its folder to --all")
    return keys[:top]


def run_all(paths: list[Path], *, hot: int | None, mode: str, samples: int | None, model: str | None, threads: int | None,
            max_tokens: int, seed: int | None, apply_: bool, as_json: bool, jobs: int | None, report: Path | None,
            budget: str | None, fail_above: float | None) -> None:
    """The ``--all`` command; ends the process with the exit status."""
    from .. import optimize as opt  # noqa: PLC0415
    from ..backends import BackendError, create_backend  # noqa: PLC0415
    from ..reports import write_report  # noqa: PLC0415
    from ..settings import SettingsError, load_settings  # noqa: PLC0415
    from ..store import open_for_logging  # noqa: PLC0415

    budget_s = parse_budget(budget)
    folder = (report or Path(DEFAULT_REPORT)).resolve()
    cwd = Path.cwd()
    root = repository_root(cwd)
    first = paths[0] if paths[0].is_dir() else paths[0].parent
    try:
        settings = load_settings(first, {"model": model, "samples": samples, "threads": threads})
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    say = _Say()

    found = opt.find_targets(paths, root, skip=[folder])
    problems = [(p.relpath, p.reason) for p in found.problems]
    for relpath, reason in problems:
        say.err(f"skipped {relpath}: {reason}")
    state = opt.BatchState.load(folder)
    if state.note:
        say.err(state.note)
    hot_keys = None if hot is None else _hot_keys(found.targets, hot, cwd)
    if hot_keys is not None:
        say.err(f"the {len(hot_keys)} hottest function{'s' if len(hot_keys) != 1 else ''} of the kept profile "
                f"under {', '.join(str(p) for p in paths)}, hottest first")
    items = opt.plan_batch(opt.order_targets(found.targets, hot=hot_keys), state, mode)
    reused = sum(i.disposition == opt.Disposition.REUSED for i in items)
    to_run = len(items) - reused
    say.err(f"{len(items)} functions in {found.files} files; {reused} unchanged since an earlier run, {to_run} to run"
            + (f" within {budget}" if budget_s is not None else ""))
    cpus = os.cpu_count() or 1
    jobs = jobs or 1
    if jobs > 1 and jobs > cpus:
        say.err(f"--jobs {jobs} on {cpus} cores: verification timings will share cores; using {cpus}")
        jobs = cpus

    cancel = threading.Event()
    backend = None
    store = None
    store_note = ""
    try:
        previous = signal.signal(signal.SIGTERM, _interrupt)  # a cancelled CI job: end like Ctrl-C
    except ValueError:  # not the main thread (a test runner)
        previous = None
    try:
        if to_run:
            say.err(f"loading {model or settings.model}" if settings.backend != "fake" else "loading replies")
            try:
                backend = create_backend(settings, model=model)
            except BackendError as exc:
                raise click.ClickException(f"cannot load the model: {exc}") from None
            opened = open_for_logging(settings)
            store, store_note = opened.store, opened.note or ""
            if store_note:
                say.err(store_note)
        options = opt.BatchOptions(mode=mode, jobs=jobs, budget_s=budget_s, samples=samples, model=model,
                                   max_tokens=max_tokens, seed=seed, workspace=root)
        with _Progress(to_run, say) as progress:
            run = opt.run_batch(items, state, settings, options, backend=backend, store=store,  # type: ignore[arg-type]
                                cancel=cancel, on_event=progress.event) if to_run else opt.BatchRun(items)
    except KeyboardInterrupt:
        say.err("interrupted before any function was run; nothing was changed")
        sys.exit(EXIT_INTERRUPTED)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if backend is not None:
            backend.close()
        if store is not None:
            store.close()

    applied: list[Any] = []
    if apply_ and not run.interrupted:
        applied = opt.apply_best(run.items)
        for a in applied:
            say.err(a.note)
    version = _version()
    header = _header(run, found, paths, root, settings, mode, budget, version)
    try:
        files = write_report(folder, run, problems, header, root, version)
    except OSError as exc:
        say.err(f"Error: cannot write the report in {folder}: {describe(exc, 'writing the report')}")
        sys.exit(EXIT_ERROR)
    for limit in files.limits:
        say.err(f"SARIF size limit: {limit}")
    status, reasons = _exit_status(run, problems, applied, fail_above)
    _summary(say, run, files, reasons, status, as_json, folder)
    sys.exit(status)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _version() -> str:
    try:
        return importlib.metadata.version("perfalign")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def _header(run: Any, found: Any, paths: list[Path], root: Path, settings: Any, mode: str, budget: str | None,
            version: str) -> dict[str, str]:
    from ..optimize import Disposition  # noqa: PLC0415

    minutes = run.elapsed_s / 60
    ran = run.count(Disposition.RUN)
    rate = f"{ran / minutes:.1f}" if minutes > 0 and ran else "0"
    found_n = sum(1 for i in run.items if i.result is not None and i.result.suggestions)
    return {
        "paths": " ".join(str(p) for p in paths), "root": str(root), "perfalign": version,
        "model": settings.model if settings.backend != "fake" else "fake (replayed replies)",
        "mode": mode, "budget": budget or "none",
        "functions": f"{len(run.items)} in {found.files} files",
        "run now": f"{ran} in {run.elapsed_s:.0f} s ({rate} a minute)",
        "reused from earlier runs": str(run.count(Disposition.REUSED)),
        "not reached": str(run.count(Disposition.NOT_REACHED) + run.count(Disposition.STOPPED))
                       + (" (the budget ran out)" if run.budget_spent else " (interrupted)" if run.interrupted else ""),
        "functions with a verified faster rewrite": str(found_n),
    }


def _exit_status(run: Any, problems: list[tuple[str, str]], applied: list[Any],
                 fail_above: float | None) -> tuple[int, list[str]]:
    reasons = []
    if problems:
        reasons.append(f"{len(problems)} file{'s' if len(problems) != 1 else ''} could not be used")
    for item in run.errors:
        reasons.append(f"{item.target.relpath}::{item.target.function}: {item.result.summary}")
    reasons += [f"{a.relpath}::{a.function}: {a.note}" for a in applied if not a.applied]
    reasons += run.notes
    if run.interrupted:
        return EXIT_INTERRUPTED, reasons
    if reasons:
        return EXIT_ERROR, reasons
    if fail_above is not None:
        over = [(i, i.result.suggestions[0]) for i in run.items if i.result is not None and i.result.suggestions
                and i.result.suggestions[0].speedup > fail_above]
        if over:
            return EXIT_FAIL_ABOVE, [f"{i.target.relpath}::{i.target.function}: verified {s.speedup:.2f}× faster, "
                                     f"above --fail-above {fail_above:g}" for i, s in over]
    return EXIT_OK, reasons


def _summary(say: _Say, run: Any, files: Any, reasons: list[str], status: int, as_json: bool, folder: Path) -> None:
    from ..optimize import Disposition  # noqa: PLC0415

    with_suggestions = [i for i in run.items if i.result is not None and i.result.suggestions]
    if as_json:
        doc = {
            "functions": len(run.items), "run": run.count(Disposition.RUN), "reused": run.count(Disposition.REUSED),
            "not_reached": run.count(Disposition.NOT_REACHED) + run.count(Disposition.STOPPED),
            "budget_spent": run.budget_spent, "interrupted": run.interrupted, "elapsed_s": round(run.elapsed_s, 1),
            "suggestions": [{"file": i.target.relpath, "function": i.target.function, "mode": i.mode,
                             "speedup": i.result.suggestions[0].speedup,
                             "ci95": list(i.result.suggestions[0].ci95)} for i in with_suggestions],
            "report": str(files.html), "sarif": str(files.sarif), "patches": [str(p) for p in files.patches],
            "exit_status": status, "reasons": reasons,
        }
        click.echo(json.dumps(doc, indent=2))
        return
    for item in with_suggestions:
        best = item.result.suggestions[0]
        click.echo(f"{item.target.relpath}:{item.target.info.start_line + 1}: {item.target.function} ({item.mode}): "
                   f"verified {best.speedup:.2f}× faster [{best.ci95[0]:.2f}, {best.ci95[1]:.2f}]")
    if run.budget_spent:
        click.echo("the budget ran out; run the same command again to continue where it stopped", err=True)
    if run.interrupted:
        click.echo("interrupted: the functions that finished are kept; run the same command again to continue",
                   err=True)
    click.echo(f"{len(with_suggestions)} of {len(run.items)} functions have a verified faster rewrite; "
               f"report: {files.html}, SARIF: {files.sarif}, {len(files.patches)} "
               f"patch{'es' if len(files.patches) != 1 else ''} in {folder / 'patches'}")
    for reason in reasons:
        click.echo(f"{'Error' if status == EXIT_ERROR else 'Note'}: {reason}", err=True)


class _Say:
    """Messages for the person or the CI log: always on stderr, so that --json keeps stdout to itself."""

    def err(self, message: str) -> None:
        click.echo(message, err=True)


class _Progress:
    """A progress bar on a terminal; one line per function otherwise (CI logs)."""

    def __init__(self, total: int, say: _Say) -> None:
        self.total = total
        self.say = say
        self.interactive = sys.stderr.isatty()
        self.bar: Any = None
        self.task: Any = None
        self.lock = threading.Lock()
        self.last_note: dict[str, float] = {}  # per function: when its progress was last written to the log

    def __enter__(self) -> _Progress:
        if self.interactive and self.total:
            from rich.console import Console  # noqa: PLC0415
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn  # noqa: PLC0415
            from rich.progress import Progress as Bar  # noqa: PLC0415

            self.bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                           console=Console(stderr=True), transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("starting", total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def event(self, event: Any) -> None:
        from ..optimize import Done, Started, Working  # noqa: PLC0415

        with self.lock:
            if isinstance(event, Started):
                t = event.item.target
                text = f"[{event.position}/{self.total}] {t.relpath}::{t.function} ({event.item.mode})"
                if self.bar is not None:
                    self.bar.update(self.task, description=text)
                else:
                    self.say.err(text)
            elif isinstance(event, Working):
                t = event.item.target
                if self.bar is not None:
                    self.bar.update(self.task, description=f"{t.function}: {event.message}"[:100])
                elif time.monotonic() - self.last_note.get(t.key, time.monotonic()) >= LOG_EVERY_S:
                    self.say.err(f"  {t.function}: {event.message}")  # a CI log shows the job is alive
                    self.last_note[t.key] = time.monotonic()
                else:
                    self.last_note.setdefault(t.key, time.monotonic())
            elif isinstance(event, Done):
                result = event.item.result
                assert result is not None
                line = f"  {event.item.target.function}: {_outcome_line(result)}"
                if self.bar is not None:
                    self.bar.advance(self.task)
                    self.bar.console.print(line, markup=False, highlight=False)
                else:
                    self.say.err(line)


def _outcome_line(result: Any) -> str:
    if result.suggestions:
        s = result.suggestions[0]
        return f"verified {s.speedup:.2f}× faster [{s.ci95[0]:.2f}, {s.ci95[1]:.2f}] [{result.elapsed_s:.0f} s]"
    return f"{result.outcome.replace('_', ' ')}: {result.summary}"

"""``perfalign optimize``: verified rewrites of one function, from the terminal."""
from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import click

from ..events import Candidate, CandidateGenerated, Finished, Progress, VerdictReady
from ..verdict import Verdict
from ._batch import batch_options, run_all

# Exit statuses: 0 a faster candidate (or none faster, honestly measured); 1 bad input or a model/verifier
# that could not be used; 3 the model wrote nothing usable; 130 interrupted.
EXIT_ERROR = 1
EXIT_NOTHING_USABLE = 3


def _check_file(file: Path) -> None:
    """A pipe, device, folder or oversized FILE is refused before anything reads it."""
    from ..errors import SourceFileError  # noqa: PLC0415
    from ..files import check_source  # noqa: PLC0415

    try:
        check_source(file)
    except SourceFileError as exc:
        raise click.UsageError(exc.message) from None


def _status_style(status: str) -> str:
    return {"faster": "green", "not_significant": "yellow", "slower": "red"}.get(status, "magenta")


def _interval(candidate: Candidate) -> str:
    v = candidate.verdict
    if v.speedup is None or v.ci95 is None:
        return ""
    return f"{v.speedup:.2f}× [{v.ci95[0]:.2f}, {v.ci95[1]:.2f}]"


def _measured_at(verdict: Verdict) -> str:
    """Where the speedup was measured: the flags, and what the compiler alone gives there."""
    from ..evidence import scaling_summary  # noqa: PLC0415

    text = f"measured at {' '.join(verdict.flags) or 'the compiler defaults'}"
    evidence = scaling_summary(verdict.scaling, verdict.compiler_alone)
    if evidence:
        text += f"; {evidence}"
    return text


@click.command()
@click.argument("files", nargs=-1, metavar="FILE | --hot N [FILE...] | --all PATH...",
                type=click.Path(exists=True, path_type=Path))
@click.option("--hot", type=click.IntRange(1, None), default=None,
              help="Work through the top N functions of the kept profile (perfalign hotspots), of FILE… if given; "
                   "with --all, the top N under the PATHs.")
@click.option("--function", "function", default=None, help="Name of the function to optimize.")
@click.option("--line", type=int, default=None, help="A line inside the function (1-based, as editors show).")
@click.option("--mode", type=click.Choice(["serial", "openmp", "auto"]), default="serial", show_default=True,
              help="auto (with --all): OpenMP for functions with loops on a machine with more than one core.")
@click.option("--samples", type=click.IntRange(1, 64), default=None, help="Candidates to sample (default: setting 'samples').")
@click.option("--model", default=None, help="Model name (see 'perfalign models list').")
@click.option("--threads", type=click.IntRange(1, 1024), default=None, help="OpenMP threads to time with.")
@click.option("--max-tokens", type=click.IntRange(64, 8192), default=768, show_default=True)
@click.option("--seed", type=int, default=None, help="Sampling seed (default: from the clock).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document: every candidate's verdict, code and diff.")
@click.option("--apply", "apply_", is_flag=True, help="Rewrite FILE with the best faster candidate (only that function).")
@batch_options
def optimize(
    files: tuple[Path, ...], hot: int | None, function: str | None, line: int | None, mode: str,
    samples: int | None, model: str | None, threads: int | None, max_tokens: int, seed: int | None, as_json: bool,
    apply_: bool, **batch: Any,
) -> None:
    """Suggest a faster version of one function of FILE, verified on this machine.

    Samples candidates from the model, compiles each, checks it computes what the
    original computes, times it against the original, and shows the best one
    that is faster (with its speedup and 95% interval). With --hot N, the N
    hottest functions of the profile 'perfalign hotspots' kept, one after another.

    With --all, every function of the C/C++ files under the PATHs, best
    candidates first, within --budget, resuming an interrupted run: writes an
    HTML report, a SARIF log and one patch per suggestion into --report.
    """
    if batch.pop("all_"):
        if function is not None or line is not None:
            raise click.UsageError("--all works on every function; leave out --function and --line")
        if not files:
            raise click.UsageError("give the files or folders to work through: --all PATH...")
        run_all(list(files), hot=hot, mode=mode, samples=samples, model=model, threads=threads,
                max_tokens=max_tokens, seed=seed, apply_=apply_, as_json=as_json, **batch)
        return
    rest = (mode, samples, model, threads, max_tokens, seed, as_json, apply_)
    if hot is None:
        _optimize_one(_one_file(files, mode, batch), function, line, *rest)
        return
    _batch_options_refused(batch)
    if mode == "auto":
        raise click.UsageError("--mode auto goes with --all; with --hot choose serial or openmp")
    if any(f.is_dir() for f in files):
        raise click.UsageError("--hot N takes files; for the hot functions under a folder use --all PATH --hot N")
    from ..hotspots import hot_targets  # noqa: PLC0415

    if function is not None or line is not None or as_json:
        raise click.UsageError("--hot N picks the functions itself: leave out --function, --line and --json")
    worst = 0
    for path, name in hot_targets(Path.cwd(), hot, list(files) or None):
        click.echo(f"--- {name} ({path})", err=True)
        try:
            _optimize_one(path, name, None, *rest)
        except SystemExit as exc:
            worst = max(worst, exc.code if isinstance(exc.code, int) else EXIT_ERROR)
            if exc.code == 130:
                break
    sys.exit(worst)


def _optimize_one(
    file: Path, function: str | None, line: int | None, mode: str, samples: int | None, model: str | None,
    threads: int | None, max_tokens: int, seed: int | None, as_json: bool, apply_: bool,
) -> None:
    """One function of FILE: the command's work, exiting with its status."""
    from ..optimize import OptimizeRequest, apply_candidate, run_optimize  # noqa: PLC0415
    from ..settings import SettingsError, load_settings  # noqa: PLC0415
    from ..store import open_for_logging  # noqa: PLC0415

    if (function is None) == (line is None):
        raise click.UsageError("give exactly one of --function NAME or --line N")
    if line is not None and line < 1:
        raise click.UsageError("--line counts from 1")
    _check_file(file)
    try:
        settings = load_settings(file.parent, {"model": model, "samples": samples, "threads": threads})
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    opened = open_for_logging(settings)
    store, store_note = opened.store, opened.note or ""
    request = OptimizeRequest(
        path=file, function=function, line=line - 1 if line is not None else None, mode=mode,
        samples=samples, model=model, max_tokens=max_tokens, seed=seed, source="cli",
    )
    cancel = threading.Event()
    interactive = sys.stderr.isatty() and not as_json
    finished: Finished | None = None
    try:
        finished = _run(run_optimize(request, settings, store=store, cancel=cancel), interactive, as_json)
    except KeyboardInterrupt:
        cancel.set()
        click.echo("interrupted: the model and the running checks were stopped; nothing was changed", err=True)
        sys.exit(130)
    finally:
        if store is not None:
            store.close()
    assert finished is not None
    if store_note and not as_json:
        click.echo(store_note, err=True)

    applied = False
    apply_note = ""
    if apply_ and finished.suggestions:
        best = finished.suggestions[0]
        applied, apply_note = _apply(file, finished, best, apply_candidate)
    elif apply_:
        apply_note = "not applied: no candidate was verified faster"

    if as_json:
        doc = {
            "file": str(file), "function": finished.function, "mode": finished.mode,
            "outcome": finished.outcome, "summary": finished.summary, "request_id": finished.request_id,
            "candidates": [c.to_dict() for c in finished.candidates],
            "best": finished.suggestions[0].index if finished.suggestions else None,
            "applied": applied,
        }
        click.echo(json.dumps(doc, indent=2))
    else:
        _print_result(finished, interactive)
        if apply_note:
            click.echo(apply_note, err=not applied)
    if finished.outcome == "error":
        if not as_json:
            click.echo(f"Error: {finished.summary}", err=True)
        sys.exit(EXIT_ERROR)
    if finished.outcome == "nothing_usable":
        sys.exit(EXIT_NOTHING_USABLE)
    if finished.outcome == "cancelled":
        sys.exit(130)
    if apply_ and not applied:
        sys.exit(EXIT_ERROR)


def _batch_options_refused(batch: dict[str, Any]) -> None:
    """The options of --all are refused without it."""
    given = [f"--{name.replace('_', '-')}" for name, value in batch.items() if value is not None]
    if given:
        raise click.UsageError(f"{', '.join(given)} go{'es' if len(given) == 1 else ''} with --all")


def _one_file(files: tuple[Path, ...], mode: str, batch: dict[str, Any]) -> Path:
    """The one FILE of a single-function run; the options of --all are refused without it."""
    _batch_options_refused(batch)
    if mode == "auto":
        raise click.UsageError("--mode auto goes with --all; for one function choose serial or openmp")
    if len(files) != 1:
        raise click.UsageError("give one FILE (or --hot N for the hottest functions, or --all PATH... for every function of a tree)")
    if files[0].is_dir():
        raise click.UsageError(f"{files[0]} is a folder; give a file, or --all {files[0]}")
    return files[0]


def _apply(file: Path, finished: Finished, best: Candidate, apply_candidate) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    from .. import cparse  # noqa: PLC0415
    from ..optimize import extract  # noqa: PLC0415

    text = file.read_text(encoding="utf-8")
    language = cparse.language_for(file)
    try:
        info = cparse.find_function(text, language, name=finished.function)
    except cparse.CParseError as exc:
        return False, f"not applied: {exc.message}"
    if info.text != finished.original_code:
        return False, f"not applied: {file} changed while perfalign was working"
    extraction = extract(best.raw_output, info, original_source=text)
    if extraction.candidate is None:
        return False, "not applied: the candidate could not be extracted again"
    try:
        new_text = apply_candidate(text, info, extraction.candidate.replacement, extraction.candidate.includes)
    except ValueError as exc:
        return False, f"not applied: {exc}"
    tmp = file.with_name(f".{file.name}.perfalign.tmp")
    try:
        tmp.write_text(new_text, encoding="utf-8")
        tmp.replace(file)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        return False, f"not applied: cannot write {file}: {exc.strerror}"
    return True, f"applied candidate {best.index + 1} to {file} ({_interval(best)})"


def _label(c: Candidate) -> str:
    """``candidate 3``, ``candidate 1 (loop interchange)`` for a sample asked for a strategy, or ``candidate 5
    (repair of 2)`` for an answer of a feedback round."""
    if c.parent is None:
        return f"candidate {c.index + 1}" + (f" ({c.strategy_name})" if c.strategy_name else "")
    return f"candidate {c.index + 1} ({c.feedback or 'answer'} of {c.parent + 1})"


def _run(events, interactive: bool, as_json: bool) -> Finished:  # type: ignore[no-untyped-def]
    from rich.console import Console  # noqa: PLC0415

    console = Console(stderr=True)
    if not interactive:
        finished = None
        for event in events:
            if isinstance(event, VerdictReady) and not as_json:
                c = event.candidate
                click.echo(f"{_label(c)}: {c.verdict.status.value}: {c.verdict.detail}", err=True)
            if isinstance(event, Finished):
                finished = event
        assert finished is not None
        return finished
    from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn  # noqa: PLC0415
    from rich.progress import Progress as Bar

    finished = None
    with Bar(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
             console=console, transient=True) as bar:
        task = bar.add_task("starting", total=1.0)
        for event in events:
            if isinstance(event, Progress):
                bar.update(task, completed=event.fraction, description=event.message)
            elif isinstance(event, CandidateGenerated):
                bar.update(task, description=f"candidate {event.index + 1} written; verifying")
            elif isinstance(event, VerdictReady):
                c = event.candidate
                style = _status_style(c.verdict.status.value)
                bar.console.print(f"{_label(c)}: [{style}]{c.verdict.status.value}[/{style}] {c.verdict.detail}")
            elif isinstance(event, Finished):
                finished = event
    assert finished is not None
    return finished


def _print_result(finished: Finished, interactive: bool) -> None:
    from rich.console import Console  # noqa: PLC0415
    from rich.syntax import Syntax  # noqa: PLC0415

    console = Console(highlight=False, force_terminal=None if interactive else False)
    if finished.suggestions:
        best = finished.suggestions[0]
        by = f" ({best.strategy_name})" if best.strategy_name else ""
        console.print(f"[bold green]{finished.function}: candidate {best.index + 1}{by} is {_interval(best)} "
                      f"faster[/]")
        console.print(_measured_at(best.verdict), markup=False)
        console.print(Syntax(best.diff, "diff", theme="ansi_dark", background_color="default"))
    console.print(finished.summary)

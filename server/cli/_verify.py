"""``perfalign verify``: check and time one candidate rewrite of a function."""
from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import click

from ..verdict import Status, Verdict

STATUS_STYLE = {
    Status.FASTER: "bold green",
    Status.NOT_SIGNIFICANT: "yellow",
    Status.SLOWER: "yellow",
}


def _read(path: Path, what: str) -> str:
    """A regular file's text; a pipe, device, folder or oversized file is refused before it is read."""
    from ..errors import SourceFileError
    from ..files import read_source_within

    try:
        return read_source_within(path, what=what).decode("utf-8", errors="replace")
    except SourceFileError as exc:
        raise click.UsageError(exc.message) from None


@click.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--function", "-f", "function", required=True, help="Name of the function (ns::f and Class::m work).")
@click.option("--candidate", "-c", "candidate", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="File holding the rewritten function (same signature), maybe preceded by helpers and includes.")
@click.option("--mode", type=click.Choice(["serial", "openmp"]), default="serial", show_default=True,
              help="openmp checks the candidate repeatedly at 2 and 4 threads and times it with --threads.")
@click.option("--threads", type=click.IntRange(1, 1024), default=None, help="Threads for timing in openmp mode.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON document.")
def verify(file: Path, function: str, candidate: Path, mode: str, threads: int | None, as_json: bool) -> None:
    """Check that CANDIDATE computes what FUNCTION in FILE computes, and time it.

    Exit status 0 whenever a verdict was produced (whatever it says).
    """
    from .. import cparse
    from ..settings import SettingsError, load_settings
    from ..verify import Cancelled, verify_source

    source = _read(file, "file")
    code = _read(candidate, "candidate")
    try:
        settings = load_settings(file.resolve().parent, {"threads": threads} if threads else None)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    language = cparse.language_for(file)
    cancel = threading.Event()
    progress = (lambda message: None) if as_json else _progress_printer()
    try:
        verdict = verify_source(
            source, language, function, code, mode=mode, settings=settings, source_path=file, cancel=cancel,
            progress=progress,
        )
    except (KeyboardInterrupt, Cancelled):
        cancel.set()
        raise click.ClickException("cancelled") from None
    if as_json:
        click.echo(json.dumps(verdict.to_dict()))
    else:
        _print_human(verdict, function)


def _progress_printer():  # type: ignore[no-untyped-def]
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True)
    quiet = not sys.stderr.isatty()

    def show(message: str) -> None:
        if not quiet:
            console.print(f"[dim]… {escape(message)}[/dim]")

    return show


def _print_human(verdict: Verdict, function: str) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False)
    style = STATUS_STYLE.get(verdict.status, "bold red")
    console.print(f"[{style}]{verdict.status.value}[/{style}]  {escape(function)}: {escape(verdict.detail)}")
    if verdict.example:
        console.print(escape(verdict.example))
    if verdict.speedup is None:
        if verdict.flags:
            console.print(f"[dim]flags[/dim] {escape(' '.join(verdict.flags))}")
        return
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="dim")
    table.add_column()
    low, high = verdict.ci95 or (float("nan"), float("nan"))
    table.add_row("speedup", f"{verdict.speedup:.3f}x  (95% CI {low:.3f}-{high:.3f}, p={verdict.p_value:.2g})")
    table.add_row("original", f"{verdict.baseline_ms:.3f} ms (median)")
    table.add_row("candidate", f"{verdict.candidate_ms:.3f} ms (median)")
    table.add_row("problem size", str(verdict.problem_size))
    table.add_row("threads", f"{verdict.threads} ({verdict.mode})")
    if verdict.one_thread_speedup is not None:
        table.add_row("at 1 thread", f"{verdict.one_thread_speedup:.3f}x")
    table.add_row("flags", escape(" ".join(verdict.flags)) or "(the compiler's defaults)")
    if verdict.compiler_alone is not None:
        table.add_row("compiler alone", f"{verdict.compiler_alone:.3f}x  (the original at -O3 -march=native)")
    _scaling_rows(table, verdict)
    for i, session in enumerate(verdict.sessions, 1):
        low, high = session["ci95"]
        table.add_row(f"session {i}", f"{session['status']}: {session['speedup']:.3f}x (95% CI {low:.3f}-{high:.3f}), "
                                      f"size {session['size']}, {session['threads']} thread"
                                      f"{'s' if session['threads'] > 1 else ''}")
    phases = ", ".join(f"{k} {v:.2f} s" for k, v in verdict.phases.items())
    if verdict.scaling and verdict.scaling.get("cost_s") is not None:
        phases += f" (sizes {verdict.scaling['cost_s']:.2f} s of it)"
    table.add_row("took", phases)
    console.print(table)


def _scaling_rows(table, verdict: Verdict) -> None:  # type: ignore[no-untyped-def]
    """The growth with the size, beside the compiler alone; one row per size timed."""
    from rich.markup import escape

    from ..evidence import scaling_summary, times

    if not verdict.scaling:
        return
    table.add_row("scaling", escape(scaling_summary(verdict.scaling, verdict.compiler_alone)))
    head = verdict.scaling.get("headline") or {}
    for point in verdict.scaling.get("sizes") or []:
        mark = "  (your target size)" if head.get("target") and head.get("size") == point["size"] else ""
        table.add_row(f"  n = {point['size']:,}", f"{point['baseline_ms']:.3f} ms -> {point['candidate_ms']:.3f} ms: "
                                              f"{times(point['speedup'])} ({point['pairs']} pairs){mark}")

"""``perfalign prefs``: review the preference store, export training data, forget files."""
from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import click

from ..diffs import unified_diff
from ..store import CandidateStore, StoredCandidate, StoredRequest, StoreError, StorePolicy, StoreReadOnlyError, iso_utc

database_option = click.option(
    "-d",
    "--database",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="PERFALIGN_DB",
    help="The preference database (default: perfalign.db in the perfalign data folder, or $PERFALIGN_DB).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
since_option = click.option("--since", "since_days", type=click.IntRange(min=1), help="Only the last N days.")


def _db_path(database: Path | None) -> Path:
    from ..paths import default_db_path

    return database if database is not None else default_db_path()


def _policy() -> StorePolicy:
    from ..settings import SettingsError, load_settings

    try:
        return StorePolicy.from_settings(load_settings(Path.cwd()))
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None


def open_store(database: Path | None, *, write: bool = False) -> CandidateStore:
    """Open the store for a command; reading falls back to read-only access, errors become one line."""
    path = _db_path(database)
    if not write and not path.exists():
        raise click.ClickException(f"no preference database at {path} yet; it is created when perfalign first logs")
    try:
        try:
            return CandidateStore(path, policy=_policy())
        except StoreReadOnlyError:
            if write:
                raise
            return CandidateStore(path, read_only=True)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


def _since(days: int | None) -> str | None:
    return iso_utc(datetime.now(timezone.utc) - timedelta(days=days)) if days else None


def _console() -> Any:
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 160, highlight=False)


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


def _speedup(speedup: float | None, low: float | None = None, high: float | None = None) -> str:
    if speedup is None:
        return "–"
    if low is not None and high is not None:
        return f"{speedup:.2f}× [{low:.2f}, {high:.2f}]"
    return f"{speedup:.2f}×"


@click.group()
def prefs() -> None:
    """Review logged candidates and user verdicts, export training data, forget files.

    Every command reads the same SQLite database; -d/--database picks another.
    """


@prefs.command("path")
@database_option
def path_cmd(database: Path | None) -> None:
    """Print where the preference database is."""
    click.echo(str(_db_path(database)))


@prefs.command("list")
@database_option
@json_option
@click.option("-n", "--limit", type=click.IntRange(min=0), default=20, show_default=True, help="How many (0: all).")
@click.option("--status", help="Only this verdict status (faster, slower, incorrect, ...).")
@click.option("--model", help="Only candidates from this model.")
@click.option("--mode", type=click.Choice(["serial", "openmp"]), help="Only this mode.")
@click.option("--function", help="Only this function name.")
@click.option("-q", "--search", help="Full-text search in code, function names and file paths.")
def list_cmd(database: Path | None, as_json: bool, limit: int, status: str | None, model: str | None,
             mode: str | None, function: str | None, search: str | None) -> None:
    """List logged candidates, newest first."""
    with open_store(database) as store:
        try:
            rows = store.list_candidates(limit=limit or None, status=status, model=model, mode=mode,
                                         function=function, search=search)
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        _echo_json(rows)
        return
    if not rows:
        click.echo("no candidates match")
        return
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    for column in ("id", "when", "file", "function", "mode", "model", "status", "speedup", "feedback"):
        table.add_column(column, no_wrap=column in {"id", "when", "status"})
    for r in rows:
        table.add_row(r["id"], r["created_at"][:19].replace("T", " "), r["file_path"], r["function"], r["mode"],
                      r["model"] + (f"+{r['adapter']}" if r["adapter"] else ""), r["status"],
                      _speedup(r["speedup"]), r["feedback"] or "")
    _console().print(table)


def _resolve(store: CandidateStore, ident: str) -> tuple[StoredRequest, StoredCandidate | None, list[StoredCandidate]]:
    try:
        kind, full = store.resolve_id(ident)
        if kind == "candidate":
            cand = store.get_candidate(full)
            return store.get_request(cand.request_id), cand, []
        return store.get_request(full), None, store.candidates_of(full)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


def _candidate_json(c: StoredCandidate) -> dict[str, Any]:
    data = asdict(c)
    data["verdict"] = c.verdict.to_dict()
    return data


def _verdict_lines(c: StoredCandidate) -> list[str]:
    v = c.verdict
    lines = [f"status: {v.status.value}"]
    low, high = v.ci95 if v.ci95 else (None, None)
    if v.speedup is not None:
        lines.append(f"speedup: {_speedup(v.speedup, low, high)}" + (f"  p={v.p_value:.3g}" if v.p_value is not None else ""))
    if v.baseline_ms is not None and v.candidate_ms is not None:
        lines.append(f"time: {v.baseline_ms:.3f} ms -> {v.candidate_ms:.3f} ms")
    lines.append(f"threads: {v.threads}" + (f"  problem size: {v.problem_size}" if v.problem_size else ""))
    if v.detail:
        lines.append(f"detail: {v.detail}")
    return lines


def _parent(store: CandidateStore, cand: StoredCandidate | None) -> StoredCandidate | None:
    if cand is None or not cand.parent_id:
        return None
    try:
        return store.get_candidate(cand.parent_id)
    except StoreError:
        return None  # deleted since: the line names its id


def _round_lines(cand: StoredCandidate, parent: StoredCandidate | None) -> list[str]:
    """Which round the candidate came from and, for a feedback round, what it answered."""
    if cand.round <= 1 and not cand.parent_id:
        return ["round 1: sampled from the first prompt"]
    what = {"repair": "a repair", "improve": "an improvement"}.get(cand.round_kind or "", "an answer")
    if parent is not None:
        of = f" of candidate {parent.id} ({parent.status})"
    else:
        of = f" of candidate {cand.parent_id}" if cand.parent_id else ""
    lines = [f"round {cand.round}: {what}{of}"]
    if cand.round_feedback:
        lines.append("the model was told: " + " ".join(cand.round_feedback.split())[:300])
    return lines


def _feedback_lines(c: StoredCandidate) -> list[str]:
    return [f"{f.created_at[:19].replace('T', ' ')}  {f.action} ({f.source})" for f in c.feedback] or ["none"]


def _code(console: Any, code: str, language: str, stored: bool) -> None:
    from rich.syntax import Syntax

    if not stored:
        console.print("(code not stored: only its hash was kept, by the store_code_under setting)")
    elif not code:
        console.print("(no code could be extracted from the model's output)")
    else:
        console.print(Syntax(code, "cpp" if language == "cpp" else "c", theme="ansi_dark", background_color="default"))


@prefs.command("show")
@click.argument("ident", metavar="ID")
@database_option
@json_option
def show_cmd(ident: str, database: Path | None, as_json: bool) -> None:
    """Show a candidate (or a request): the original, the candidate, the verdict and the feedback.

    ID is a candidate or request id, or a unique prefix of one.
    """
    with open_store(database) as store:
        req, cand, siblings = _resolve(store, ident)
        parent = _parent(store, cand)
    if as_json:
        data: dict[str, Any] = {"request": asdict(req)}
        if cand is not None:
            data["candidate"] = _candidate_json(cand)
        else:
            data["candidates"] = [_candidate_json(c) for c in siblings]
        _echo_json(data)
        return
    console = _console()
    console.rule(f"{req.function} in {req.file_path} ({req.mode}, {req.language})")
    console.print(f"request {req.id}  {req.created_at}  {req.compiler} {' '.join(req.flags)}  "
                  f"{req.threads} threads  {req.cpu_model} ({req.cpu_cores} cores)")
    console.rule("original")
    _code(console, req.original_code, req.language, req.code_stored)
    if cand is None:
        console.rule(f"{len(siblings)} candidates")
        for c in siblings:
            feedback = ", ".join(f.action for f in c.feedback)
            origin = f"round {c.round}" + (f", {c.round_kind} of {c.parent_id}" if c.parent_id else "")
            console.print(f"{c.id}  {c.model}  {c.status:16} {_speedup(c.verdict.speedup)}  {origin}  {feedback}")
        return
    console.rule(f"candidate {cand.id} from {cand.model}" + (f"+{cand.adapter}" if cand.adapter else ""))
    for line in _round_lines(cand, parent):
        console.print(line)
    _code(console, cand.code, req.language, req.code_stored)
    console.rule("verdict")
    for line in _verdict_lines(cand):
        console.print(line)
    console.rule("feedback")
    for line in _feedback_lines(cand):
        console.print(line)


@prefs.command("diff")
@click.argument("ident", metavar="ID")
@database_option
def diff_cmd(ident: str, database: Path | None) -> None:
    """Print a candidate as a unified diff against the original, with its verdict and feedback."""
    with open_store(database) as store:
        req, cand, _ = _resolve(store, ident)
    if cand is None:
        raise click.ClickException(f"{ident} is a request; give one of its candidates (perfalign prefs show {req.id})")
    for line in [f"candidate {cand.id}: {req.function} in {req.file_path} ({req.mode}) from {cand.model}",
                 *("verdict " + line for line in _verdict_lines(cand)),
                 *("feedback: " + line for line in _feedback_lines(cand))]:
        click.echo(f"# {line}")
    if not req.code_stored:
        click.echo("# code not stored: only its hash was kept, by the store_code_under setting")
        return
    click.echo(unified_diff(req.original_code, cand.code, before=f"a/{req.file_path}:{req.function}",
                            after=f"b/{req.file_path}:{req.function}"), nl=False)


@prefs.command("stats")
@database_option
@json_option
@since_option
def stats_cmd(database: Path | None, as_json: bool, since_days: int | None) -> None:
    """Acceptance rate, share verified and geomean speedup, overall, by model and by mode."""
    from ..store import GroupStats, compute

    with open_store(database) as store:
        try:
            stats = compute(store, _since(since_days))
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        _echo_json(stats.to_dict())
        return
    from rich.table import Table

    def pct(v: float | None) -> str:
        return "–" if v is None else f"{v:.0%}"

    def table(title: str, groups: list[GroupStats]) -> Table:
        t = Table(title=title, box=None, title_justify="left")
        for col in (title.split()[-1], "candidates", "verified", "share verified", "shown", "accepted",
                    "acceptance rate", "geomean speedup"):
            t.add_column(col, justify="left" if col == title.split()[-1] else "right")
        for g in groups:
            t.add_row(g.name, str(g.candidates), str(g.verified), pct(g.share_verified), str(g.shown),
                      str(g.accepted), pct(g.acceptance_rate), _speedup(g.geomean_speedup))
        return t

    console = _console()
    console.print(f"{stats.requests} requests, {stats.overall.candidates} candidates, {stats.feedback} feedback events")
    console.print(table("overall", [stats.overall]))
    console.print(table("by model", stats.by_model))
    console.print(table("by mode", stats.by_mode))


@prefs.command("export")
@database_option
@json_option
@since_option
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), default=Path("perfalign-export"),
              show_default=True, help="Folder for the JSONL files.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(["dpo", "reward", "sft", "rl", "repair"]),
              help="What to export (repeatable; default: all).")
@click.option("--eval-percent", type=click.IntRange(0, 100), default=10, show_default=True,
              help="Share of functions held out for evaluation.")
def export_cmd(database: Path | None, as_json: bool, since_days: int | None, output: Path, kinds: tuple[str, ...],
               eval_percent: int) -> None:
    """Write training data as JSONL: DPO, reward and repair pairs, SFT examples, RL prompts (docs/preferences.md)."""
    from ..store import KINDS, export

    with open_store(database) as store:
        try:
            result = export(store, output, kinds or KINDS, eval_percent, _since(since_days))
        except (StoreError, OSError) as exc:
            raise click.ClickException(f"export failed: {exc}") from None
    if as_json:
        _echo_json(result.to_dict())
        return
    for kind, path in result.files.items():
        split = result.splits[kind]
        click.echo(f"{kind:7} {result.rows[kind]:6} rows ({split['train']} train, {split['eval']} eval)  {path}")


@prefs.command("report")
@database_option
@since_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=Path("perfalign-report.html"),
              show_default=True, help="The HTML file to write.")
def report_cmd(database: Path | None, since_days: int | None, output: Path) -> None:
    """Write a self-contained HTML report with plots (opens offline in any browser)."""
    from ..store import write_report

    with open_store(database) as store:
        try:
            path = write_report(store, output, _since(since_days))
        except (StoreError, OSError) as exc:
            raise click.ClickException(f"report failed: {exc}") from None
    click.echo(f"wrote {path}")


@prefs.command("forget")
@click.argument("path", type=click.Path(path_type=Path))
@database_option
@json_option
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
def forget_cmd(path: Path, database: Path | None, as_json: bool, yes: bool) -> None:
    """Delete everything logged about files under PATH (rows and search index), then compact the file."""
    target = os.path.abspath(os.path.expanduser(str(path)))
    if not _db_path(database).exists():
        raise click.ClickException(f"no preference database at {_db_path(database)}; nothing to forget")
    if not yes and not click.confirm(f"Delete everything logged about files under {target}?"):
        raise click.ClickException("nothing deleted")
    with open_store(database, write=True) as store:
        try:
            result = store.forget(path)
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        _echo_json(asdict(result))
        return
    click.echo(f"deleted {result.requests} requests, {result.candidates} candidates, {result.feedback} feedback events"
               f" under {target}")
    if result.requests and not result.compacted:
        click.echo("another process kept the database open, so freed pages are zeroed but the file was not compacted;"
                   " run this again when perfalign is not running")

"""``perfalign prefs``: review the preference store, decide what may be trained on, export training data, forget."""
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
from ..store import (
    REVIEW_SCOPES,
    CandidateStore,
    NotFoundError,
    StoredCandidate,
    StoredRequest,
    StoreError,
    StorePolicy,
    iso_utc,
    open_for_editing,
    open_for_reading,
)
from ._main import LazyGroup

database_option = click.option(
    "-d",
    "--database",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="PERFALIGN_DB",
    help="The preference database (default: perfalign.db in the perfalign data folder, or $PERFALIGN_DB).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
since_option = click.option("--since", "since_days", type=click.IntRange(min=1), help="Only the last N days.")
reviewer_option = click.option(
    "--reviewer",
    envvar="PERFALIGN_REVIEWER",
    help="Who decides (default: $PERFALIGN_REVIEWER, else the user name you are logged in as).",
)
REVIEW_STATUS_CHOICE = click.Choice(["unreviewed", "approved", "excluded"])


def _db_path(database: Path | None) -> Path:
    from ..paths import default_db_path

    return database if database is not None else default_db_path()


def _policy(notes: list[str] | None = None) -> StorePolicy:
    """The store policy of the user's settings (a workspace's perfalign.toml cannot set retention)."""
    from ..settings import SettingsError, load_settings

    try:
        return StorePolicy.from_settings(load_settings(Path.cwd(), notes=notes))
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None


def open_store(database: Path | None, *, write: bool = False) -> CandidateStore:
    """Open the store for a command; errors become one line.

    Reading commands never prune and fall back to read-only access, saying so
    once on stderr; a store in a folder that cannot be written (a read-only file
    system) is read as it is.
    """
    path = _db_path(database)
    opened = open_for_editing(path, _policy) if write else open_for_reading(path, _policy)
    if opened.store is None:
        raise click.ClickException(opened.note or f"cannot open {path}")
    if opened.note:
        click.echo(f"note: {opened.note}", err=True)
    return opened.store


def _reviewer(name: str | None) -> str:
    if name and name.strip():
        return name.strip()
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        raise click.ClickException("cannot tell who you are from the system; pass --reviewer NAME") from None


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


@click.group(cls=LazyGroup, lazy={"review": "perfalign.server.cli._review:review_cmd"})
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
@click.option("--review-status", type=REVIEW_STATUS_CHOICE,
              help="Only candidates no reviewer has decided on, or whose latest review approves or excludes them.")
def list_cmd(database: Path | None, as_json: bool, limit: int, status: str | None, model: str | None,
             mode: str | None, function: str | None, search: str | None, review_status: str | None) -> None:
    """List logged candidates, newest first."""
    with open_store(database) as store:
        try:
            rows = store.list_candidates(limit=limit or None, status=status, model=model, mode=mode,
                                         function=function, search=search, review_status=review_status)
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
    for column in ("id", "when", "file", "function", "mode", "model", "status", "speedup", "feedback", "review"):
        table.add_column(column, no_wrap=column in {"id", "when", "status"})
    for r in rows:
        table.add_row(r["id"], r["created_at"][:19].replace("T", " "), r["file_path"], r["function"], r["mode"],
                      r["model"] + (f"+{r['adapter']}" if r["adapter"] else ""), r["status"],
                      _speedup(r["speedup"]), r["feedback"] or "", r["review"] or "")
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
    if v.example:
        lines.append(f"failing call: {v.example}")
    return lines


def _parent(store: CandidateStore, cand: StoredCandidate | None) -> StoredCandidate | None:
    if cand is None or not cand.parent_id:
        return None
    try:
        return store.get_candidate(cand.parent_id)
    except StoreError:
        return None  # deleted since: the line names its id


def _round_lines(cand: StoredCandidate, parent: StoredCandidate | None) -> list[str]:
    """Which round the candidate came from, the strategy its prompt asked for and, for a feedback round, what it
    answered."""
    asked = [f"asked for: {cand.strategy.replace('_', ' ')}"] if cand.strategy else []
    if cand.round <= 1 and not cand.parent_id:
        return ["round 1: sampled from the first prompt", *asked]
    what = {"repair": "a repair", "improve": "an improvement"}.get(cand.round_kind or "", "an answer")
    if parent is not None:
        of = f" of candidate {parent.id} ({parent.status})"
    else:
        of = f" of candidate {cand.parent_id}" if cand.parent_id else ""
    lines = [f"round {cand.round}: {what}{of}", *asked]
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
    """Show a candidate (or a request): the original, the candidate, the verdict, the feedback and the reviews.

    ID is a candidate or request id, or a unique prefix of one.
    """
    with open_store(database) as store:
        req, cand, siblings = _resolve(store, ident)
        try:
            reviews = store.reviews_of(cand.id) if cand is not None else []
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
        parent = _parent(store, cand)
    if as_json:
        data: dict[str, Any] = {"request": asdict(req)}
        if cand is not None:
            data["candidate"] = {**_candidate_json(cand), "reviews": [asdict(r) for r in reviews]}
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
            origin = f"round {c.round}" + (f", {c.round_kind} of {c.parent_id}" if c.parent_id else "") \
                + (f", {c.strategy.replace('_', ' ')}" if c.strategy else "")
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
    console.rule("reviews")
    for r in reviews or []:
        pair = f" (pair {r.candidate_id}:{r.other_id})" if r.other_id else ""
        note = f": {r.note}" if r.note else ""
        console.print(f"{r.created_at[:19].replace('T', ' ')}  {r.decision} by {r.reviewer}{pair}{note}", markup=False)
    if not reviews:
        console.print("none")


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
    """Acceptance rate, share verified and geomean speedup, overall, by model and by mode; review coverage."""
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
    coverage = stats.review
    console.print(f"{coverage.reviews} reviews; {coverage.overall.reviewed} of {coverage.overall.candidates} candidates"
                  f" reviewed, {coverage.overall.excluded} excluded, {coverage.overall.overruled} overruled")
    if coverage.reviews:
        console.print(_review_table("review coverage by function", coverage.by_function))
        console.print(_review_table("review coverage by model", coverage.by_model))


def _review_table(title: str, groups: list[Any]) -> Any:
    from rich.table import Table

    def share(n: int, total: int) -> str:
        return f"{n} ({n / total:.0%})" if total else "0"

    t = Table(title=title, box=None, title_justify="left")
    for col in (title.split()[-1], "candidates", "reviewed", "excluded", "overruled"):
        t.add_column(col, justify="left" if col == title.split()[-1] else "right")
    for g in groups:
        t.add_row(g.name, str(g.candidates), share(g.reviewed, g.candidates), share(g.excluded, g.candidates),
                  share(g.overruled, g.candidates))
    return t


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
@click.option("--approved-only", is_flag=True,
              help="Only pairs and examples a reviewer approved (or flipped); RL prompts are not reviewed.")
def export_cmd(database: Path | None, as_json: bool, since_days: int | None, output: Path, kinds: tuple[str, ...],
               eval_percent: int, approved_only: bool) -> None:
    """Write training data as JSONL: DPO, reward and repair pairs, SFT examples, RL prompts (docs/preferences.md).

    Items a reviewer excluded are left out and pairs they flipped are written the other way round.
    """
    from ..store import KINDS, export

    with open_store(database) as store:
        try:
            result = export(store, output, kinds or KINDS, eval_percent, _since(since_days), approved_only)
        except (StoreError, OSError) as exc:
            raise click.ClickException(f"export failed: {exc}") from None
    if as_json:
        _echo_json(result.to_dict())
        return
    for kind, path in result.files.items():
        split = result.splits[kind]
        reviews = result.reviews.get(kind, {})
        decided = ", ".join(f"{reviews[k]} {k}" for k in ("approved", "flipped", "excluded") if reviews.get(k))
        click.echo(f"{kind:7} {result.rows[kind]:6} rows ({split['train']} train, {split['eval']} eval)  {path}"
                   + (f"  reviewed: {decided}" if decided else ""))


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


def _candidate_id(store: CandidateStore, ident: str) -> str:
    """The full id of the candidate ``ident`` names; a request id or an unknown id is an error that says why."""
    try:
        kind, full = store.resolve_id(ident)
    except NotFoundError as exc:
        raise click.ClickException(
            f"{exc}: it was never logged, or `perfalign prefs forget` or the retention period removed it"
        ) from None
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    if kind != "candidate":
        raise click.ClickException(
            f"{full} is a request; label one of its candidates or a pair CHOSEN:REJECTED (perfalign prefs show {full})"
        )
    return full


@prefs.command("label")
@click.argument("ident", metavar="ID")
@database_option
@json_option
@click.option("--approve", "decision", flag_value="approve", help="Fit to train on as it is.")
@click.option("--exclude", "decision", flag_value="exclude", help="Never train on it.")
@click.option("--prefer-other", "decision", flag_value="prefer_other",
              help="For a pair: the second candidate (the rejected one) is the better one.")
@click.option("--note", default="", help="A note for the next reviewer; it goes into the exported rows too.")
@reviewer_option
@click.option("--rule", "applies_to", type=click.Choice(REVIEW_SCOPES), default="all", show_default=True,
              help="Which export the decision applies to.")
def label_cmd(ident: str, database: Path | None, as_json: bool, decision: str | None, note: str,
              reviewer: str | None, applies_to: str) -> None:
    """Record a reviewer's decision on a candidate or a pair; the latest decision on an item wins.

    ID is a candidate id (or a unique prefix), or a pair CHOSEN:REJECTED as `prefs export` writes
    it (chosen_id:rejected_id). Exports leave out excluded items and write prefer-other pairs the other way round.
    """
    if decision is None:
        raise click.UsageError("say what you decide: --approve, --exclude or --prefer-other")
    parts = ident.split(":")
    if len(parts) > 2 or not all(p.strip() for p in parts):
        raise click.ClickException(f"{ident!r} is neither a candidate id nor a pair CHOSEN:REJECTED")
    name = _reviewer(reviewer)
    with open_store(database, write=True) as store:
        ids = [_candidate_id(store, part) for part in parts]
        try:
            review_id = store.record_review(ids[0], decision, other_id=ids[1] if len(ids) == 2 else None, note=note,
                                            reviewer=name, applies_to=applies_to, source="cli")
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    item = ":".join(ids)
    if as_json:
        _echo_json({"id": review_id, "item": item, "decision": decision, "note": note.strip(), "reviewer": name,
                    "applies_to": applies_to})
        return
    words = {"approve": "approved", "exclude": "excluded", "prefer_other": "flipped (the second one preferred)"}
    scope = "" if applies_to == "all" else f" for {applies_to}"
    click.echo(f"{item} {words[decision]}{scope} by {name}" + (f": {note.strip()}" if note.strip() else ""))


@prefs.command("prune")
@database_option
@json_option
@click.option("--dry-run", is_flag=True, help="Show what would be removed and change nothing.")
def prune_cmd(database: Path | None, as_json: bool, dry_run: bool) -> None:
    """Apply your retention settings now: old requests go, with their candidates and feedback; old raw outputs too.

    Only your own settings count (settings.toml in the perfalign data folder);
    a workspace's perfalign.toml cannot set retention. Nothing written in the
    last 24 hours is removed. The language server and `perfalign optimize`
    apply the same rule whenever they open the store to write.
    """
    notes: list[str] = []
    policy = _policy(notes)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    if not _db_path(database).exists():
        raise click.ClickException(f"no preference database at {_db_path(database)}; nothing to prune")
    with open_store(database, write=not dry_run) as store:
        store.policy = policy
        try:
            result = store.prune(dry_run=dry_run)
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        _echo_json({"dry_run": dry_run, "retention_days": policy.retention_days,
                    "raw_output_days": policy.raw_output_days, **asdict(result)})
        return
    verb = ("would remove", "would drop") if dry_run else ("removed", "dropped")
    requests = (f"{verb[0]} {result.requests} requests ({result.candidates} candidates, {result.feedback} feedback"
                f" events) older than {policy.retention_days} days" if policy.retention_days
                else "keeping every request (store_retention_days = 0)")
    raw = (f"{verb[1]} {result.raw_outputs} raw model outputs older than {policy.raw_output_days} days"
           if policy.raw_output_days else "keeping every raw model output (store_raw_output_days = 0)")
    click.echo(f"{requests}; {raw}")

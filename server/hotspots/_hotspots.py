"""Profile the user's command and keep the ranking; read it back for the editor and ``optimize --hot``."""
from __future__ import annotations

import datetime
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import HotspotsError
from ._profile import HotFunction, Profile, body_hash, file_sha256, load, profile_path, save
from ._profilers import choose, profiled_argv, read_counts
from ._rank import Ranking, rank, within
from ._run import command_text, run_limited, tail

RUNS_DIR = "hotspots-runs"
KEEP_RUNS = 5


def profile_command(command: list[str], *, workspace: Path, cwd: Path | None = None, time_limit_s: float = 600.0,
                    profiler: str = "auto", progress: Callable[[str], None] | None = None) -> Profile:
    """Run ``command`` plainly, then under a profiler; rank the workspace's functions and keep the profile.

    Raises :class:`HotspotsError` with what to do when the command fails, runs past the time limit, no profiler
    can run or nothing maps to the workspace's source; the kept profile is then left as it was.
    """
    say = progress or (lambda message: None)
    if not command:
        raise HotspotsError("give the command to profile after --, e.g. perfalign hotspots -- ./bench 4096")
    workspace = workspace.resolve()
    cwd = (cwd or Path.cwd()).resolve()
    binary = _resolve(command[0], cwd)
    folder = _run_folder(workspace)
    choice = choose(profiler, folder)
    try:
        binary_sha = file_sha256(binary)
    except OSError as exc:
        raise HotspotsError(f"cannot read {binary}: {exc.strerror}") from None

    say(f"running {command_text(command)} without a profiler")
    plain = run_limited(command, cwd=cwd, folder=folder, name="plain", time_limit_s=time_limit_s, what="the command")
    if plain.returncode != 0:
        raise HotspotsError(f"the command failed (exit status {plain.returncode}) before any profiling: "
                            f"{tail(plain.stderr) or 'no message'}; its output is in {folder}")
    say(f"running it under {choice.name} ({choice.note})")
    profiled = run_limited(profiled_argv(choice.name, command, folder), cwd=cwd, folder=folder, name=choice.name,
                           time_limit_s=time_limit_s, what=f"the command under {choice.name}",
                           profiled=True)
    if profiled.returncode != 0:
        raise HotspotsError(f"the command failed under {choice.name} (exit status {profiled.returncode}): "
                            f"{tail(profiled.stderr) or 'no message'}; its output and the profiler's are in {folder}")
    say("reading the profile")
    counts = read_counts(choice.name, folder)
    if counts.total <= 0:
        raise HotspotsError(f"{choice.name} recorded nothing for {command_text(command)} (too short a run?); "
                            f"its output is in {folder}")
    ranking = rank(counts, workspace, cwd)
    if not ranking.functions:
        raise HotspotsError(_nothing_mapped(ranking, binary, workspace, folder))
    profile = Profile(
        command=list(command), command_text=command_text(command), cwd=str(cwd),
        time=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        profiler=choice.name, profiler_note=choice.note, unit=counts.unit, binary=str(binary),
        binary_sha256=binary_sha, wall_s=round(profiled.wall_s, 4), plain_wall_s=round(plain.wall_s, 4),
        output_dir=str(folder), functions=ranking.functions, system_share=round(ranking.system_share, 6),
        system_top=ranking.system_top, unmapped_share=round(ranking.unmapped_share, 6), left_out=ranking.left_out,
        unlisted_share=round(ranking.unlisted_share, 6), unlisted_top=ranking.unlisted_top,
    )
    save(profile, workspace)
    _prune_runs(folder.parent)
    return profile


def _resolve(program: str, cwd: Path) -> Path:
    if "/" in program:
        path = (cwd / program).resolve()
    else:
        found = shutil.which(program)
        if found is None:
            raise HotspotsError(f"cannot run {program}: not found on PATH (a program in this folder is ./{program})")
        path = Path(found).resolve()
    if not path.is_file():
        raise HotspotsError(f"cannot run {program}: {path} is not a file")
    if not os.access(path, os.X_OK):
        raise HotspotsError(f"cannot run {program}: {path} is not executable")
    return path


def _run_folder(workspace: Path) -> Path:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    folder = workspace / ".perfalign" / RUNS_DIR / stamp
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise HotspotsError(f"cannot make {folder} for the profiler's output: {exc.strerror}") from None
    return folder


def _prune_runs(runs: Path) -> None:
    """Keep the newest runs' output only."""
    kept = sorted((p for p in runs.iterdir() if p.is_dir()), reverse=True)
    for old in kept[KEEP_RUNS:]:
        shutil.rmtree(old, ignore_errors=True)


def _nothing_mapped(ranking: Ranking, binary: Path, workspace: Path, folder: Path) -> str:
    if ranking.unlisted_share > 0:
        top = ranking.unlisted_top[0]
        return (f"the time in {workspace}'s source went to code that is not a function perfalign works on "
                f"(most in {top.symbol} at {top.object}, e.g. a method defined inside its class); "
                f"the profiler's output is in {folder}")
    unmapped = ranking.unmapped_objects
    if unmapped or ranking.unmapped_share > 0:
        names = ", ".join(Path(o).name for o in unmapped) or binary.name
        return (f"{names} has no debug information, so no time could be put on a function of the source: "
                f"build it with -g (e.g. gcc -O2 -g, or CFLAGS+=-g), then run perfalign hotspots again")
    if not within(binary, workspace):
        return (f"no time was spent in a function of {workspace}: {binary} is outside it; run perfalign hotspots "
                f"from the project's folder (or give --workspace) with a program built from its source")
    return (f"no time was spent in a function whose source is in {workspace} "
            f"(all of it went to system libraries); the profiler's output is in {folder}")


# --- reading the kept profile ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hot:
    """A ranked function as it stands now: ``stale`` says why the entry no longer applies (None: it does)."""

    rank: int  # 1-based, by self time
    function: HotFunction
    stale: str | None
    line: int | None = None  # 1-based first line now, where the body is unchanged


def hot_message(profile: Profile, hot: HotFunction, binary_note: str | None = None) -> str:
    """``31% of run time in `./bench 4096`, 2026-12-01 (…)``: its own share, with what it calls, and the profiler."""
    text = (f"{_pct(hot.self_share)} of run time in `{profile.command_text}`, {profile.date} "
            f"({_pct(hot.inclusive_share)} with what it calls; {profile.profiler})")
    if binary_note:
        text += f"; {binary_note}"
    return text


def _pct(share: float) -> str:
    value = share * 100
    return f"{value:.0f}%" if value >= 10 else f"{value:.1f}%"


def ranked(profile: Profile, workspace: Path, read: Callable[[Path], str | None] | None = None) -> list[Hot]:
    """Every kept function with whether its body is still the one profiled (``read`` gives a file's text now)."""
    from .. import cparse  # noqa: PLC0415

    reader = read or _read_text
    texts: dict[str, dict[str, dict[str, int]] | None] = {}
    out = []
    for i, hot in enumerate(profile.functions, 1):
        if hot.path not in texts:
            path = workspace / hot.path
            text = reader(path)
            if text is None:
                texts[hot.path] = None
            else:
                by_name: dict[str, dict[str, int]] = {}
                try:
                    for info in cparse.list_functions(text, cparse.language_for(path)):
                        bodies_of = by_name.setdefault(info.qualified_name or info.name, {})
                        bodies_of.setdefault(body_hash(info.text), info.start_line + 1)
                except cparse.CParseError:
                    pass
                texts[hot.path] = by_name
        bodies = texts[hot.path]
        if bodies is None:
            stale: str | None = f"{hot.path} is gone"
        elif hot.name not in bodies:
            stale = f"{hot.name} is no longer in {hot.path}"
        elif hot.body_sha256 not in bodies[hot.name]:
            stale = f"{hot.name} changed since the profile was taken"
        else:
            stale = None
        out.append(Hot(i, hot, stale, bodies[hot.name][hot.body_sha256] if stale is None and bodies else None))
    return out


def _read_text(path: Path) -> str | None:
    from ..files import read_source  # noqa: PLC0415

    try:
        return read_source(path).decode("utf-8", errors="replace")
    except Exception:  # noqa: BLE001 - a file that cannot be read has no current body
        return None


def hot_targets(workspace: Path, top: int, files: list[Path] | None = None) -> list[tuple[Path, str]]:
    """The top ``top`` functions of the kept profile that still apply, as (path, function name), hottest first.

    ``workspace`` is the folder the profile was kept in, or a folder below it. ``files`` limits them to those
    files. Raises :class:`HotspotsError` when there is no profile or none of its functions still applies.
    """
    start = workspace.resolve()
    workspace = next((d for d in (start, *start.parents) if profile_path(d).is_file()), start)
    profile = load(workspace)
    if profile is None:
        raise HotspotsError(f"no profile in {start} or a folder above it: run perfalign hotspots -- CMD ARGS first")
    wanted = {f.resolve() for f in files} if files else None
    out = []
    for hot in ranked(profile, workspace):
        path = workspace / hot.function.path
        if hot.stale is not None or (wanted is not None and path.resolve() not in wanted):
            continue
        out.append((path, hot.function.name))
        if len(out) >= top:
            break
    if not out:
        which = f" of {', '.join(str(f) for f in files)}" if files else ""
        raise HotspotsError(f"no function{which} in the profile of {workspace} still applies (each one changed "
                            f"since `{profile.command_text}` was profiled): run perfalign hotspots again")
    return out

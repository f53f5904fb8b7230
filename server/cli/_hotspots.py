"""``perfalign hotspots``: which of the workspace's functions a real run spends its time in."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

EXIT_ERROR = 1


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document: the profile and its ranking.")
@click.option("--time-limit", "time_limit", type=click.FloatRange(0.1, None), default=600.0, show_default=True,
              help="Seconds each run of the command may take (plain, then profiled).")
@click.option("--profiler", type=click.Choice(["auto", "perf", "callgrind"]), default="auto", show_default=True,
              help="perf where the kernel allows it, else callgrind (auto).")
@click.option("--workspace", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="The project folder whose functions are ranked (default: this folder).")
@click.option("--top", type=click.IntRange(1, None), default=20, show_default=True, help="Functions to list.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
def hotspots(as_json: bool, time_limit: float, profiler: str, workspace: Path | None, top: int,
             command: tuple[str, ...]) -> None:
    """Run CMD ARGS under a profiler and rank the workspace's C/C++ functions by time.

    Give the command after --, e.g. perfalign hotspots -- ./bench 4096. The
    command runs once plainly and once under perf (or callgrind where perf cannot
    run); the ranking is kept in .perfalign/hotspots.json, where the language
    server and 'perfalign optimize --hot N' read it. Without a command, the kept
    ranking is shown, with what in it is stale.
    """
    from ..hotspots import HotspotsError, binary_changed, load, profile_command, profile_path, ranked  # noqa: PLC0415

    root = (workspace or Path.cwd()).resolve()
    try:
        if command:
            profile = profile_command(list(command), workspace=root, time_limit_s=time_limit, profiler=profiler,
                                      progress=None if as_json else lambda m: click.echo(m, err=True))
        else:
            loaded = load(root)
            if loaded is None:
                raise HotspotsError(f"no profile kept in {root}: run perfalign hotspots -- CMD ARGS")
            profile = loaded
    except HotspotsError as exc:
        if as_json:
            click.echo(json.dumps({"error": str(exc)}, indent=2))
        else:
            click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    hots = ranked(profile, root)
    build = binary_changed(profile)
    if as_json:
        doc: dict[str, Any] = profile.to_dict()
        doc["profile_file"] = str(profile_path(root))
        doc["binary_changed"] = build
        for entry, hot in zip(doc["functions"], hots, strict=True):
            entry["rank"] = hot.rank
            entry["stale"] = hot.stale
        click.echo(json.dumps(doc, indent=2))
        return
    _print(profile, hots, build, top, profile_path(root))


def _pct(share: float) -> str:
    return f"{share * 100:5.1f}%"


def _short(symbol: str, limit: int = 60) -> str:
    return symbol if len(symbol) <= limit else symbol[: limit - 1] + "…"


def _print(profile: Any, hots: list[Any], build: str | None, top: int, kept: Path) -> None:
    overhead = profile.overhead
    click.echo(f"`{profile.command_text}` under {profile.profiler} ({profile.profiler_note}), {profile.time}: "
               f"{profile.wall_s:.2f} s, {profile.plain_wall_s:.2f} s without the profiler"
               + (f" ({overhead:.1f}× overhead)" if overhead else ""))
    click.echo(f"shares of the run's {profile.unit}; self: in the function's own code, incl.: with what it calls")
    click.echo(f"{'rank':>4} {'self':>6} {'incl.':>6}  function  (file:line)")
    for hot in hots[:top]:
        f = hot.function
        stale = f"  [stale: {hot.stale}]" if hot.stale else ""
        click.echo(f"{hot.rank:>4} {_pct(f.self_share)} {_pct(f.inclusive_share)}  {f.name}  "
                   f"({f.path}:{f.line}){stale}")
    more = len(hots) - min(top, len(hots)) + profile.left_out
    if more:
        click.echo(f"     … and {more} more functions (--top, --json)")
    if profile.system_share > 0:
        top_system = ", ".join(f"{_short(s.symbol)} ({s.object}) {s.self_share * 100:.1f}%"
                               for s in profile.system_top[:3])
        click.echo(f"{_pct(profile.system_share)} in system libraries and the kernel (not offered): {top_system}")
    if profile.unlisted_share > 0.01:
        top_unlisted = ", ".join(f"{_short(s.symbol)} ({s.object}) {s.self_share * 100:.1f}%"
                                 for s in profile.unlisted_top[:3])
        click.echo(f"{_pct(profile.unlisted_share)} in workspace code that is not a function perfalign works on "
                   f"(e.g. a method defined inside its class): {top_unlisted}")
    if profile.unmapped_share > 0.01:
        click.echo(f"{_pct(profile.unmapped_share)} in the workspace's binaries without source lines "
                   f"(build with -g to place it)")
    if build:
        click.echo(f"stale: {build}; run perfalign hotspots again")
    click.echo(f"kept in {kept}; the runs' and the profiler's output: {profile.output_dir}")

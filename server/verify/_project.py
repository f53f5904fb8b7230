"""Verify a candidate with the project's own build, test and benchmark commands.

For functions the generated harness cannot drive (globals, I/O, structs of
pointers) or when the user prefers their own benchmark, ``perfalign.toml``
names the commands::

    [project]
    build = "make"                 # run in the root of a copy of the project
    test = "make test"             # must exit 0 with the candidate in place
    bench = "./bench"              # one run = one timing
    copy = ["Makefile", "src", "tests"]   # optional; default: the whole folder
    bench_metric = "wall"          # or "stdout_ms": the last number the bench prints, in ms
    runs = 11                      # timed runs of each side, interleaved
    build_timeout_s = 300
    test_timeout_s = 300
    bench_timeout_s = 60
    functions = ["NAME"]           # always verify these functions this way

The candidate replaces the function's text in a temporary copy of the
project; the original is built from a second copy. Both builds, the tests and
the benchmark runs go through the sandbox, and the benchmark timings are
compared with the same statistics as the harness.
"""
from __future__ import annotations

import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..settings import CONFIG_FILE, Settings, SettingsError, find_config, read_config
from ..verdict import Status, Verdict
from .sandbox import _sandbox as sandbox
from .sandbox._lease import TimingLeases
from .sandbox._lease import summary as lease_summary

SKIP_DIRS = {".git", ".hg", ".svn", "build", "node_modules", ".venv", "__pycache__", ".cache"}
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass
class ProjectConfig:
    root: Path
    build: str
    test: str
    bench: str
    copy: list[str] = field(default_factory=list)
    bench_metric: str = "wall"
    runs: int = 11
    build_timeout_s: float = 300.0
    test_timeout_s: float = 300.0
    bench_timeout_s: float = 60.0
    functions: list[str] = field(default_factory=list)

    def wants_project(self, function: str) -> bool:
        """True when ``[project] functions`` names this function."""
        return function in self.functions or function.split("::")[-1] in self.functions


def load_project(source_path: Path) -> ProjectConfig | None:
    """The ``[project]`` table of the ``perfalign.toml`` nearest ``source_path``, or None when there is none.

    Raises :class:`SettingsError` for a table that is there but wrong.
    """
    config_path = find_config(source_path)
    if config_path is None:
        return None
    data = read_config(config_path)
    table = data.get("project")
    if table is None:
        return None
    where = f"{config_path}: [project]"
    if not isinstance(table, dict):
        raise SettingsError(f"{where} must be a table")
    known = {"build", "test", "bench", "copy", "bench_metric", "runs", "build_timeout_s", "test_timeout_s",
             "bench_timeout_s", "functions"}
    unknown = set(table) - known
    if unknown:
        raise SettingsError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
    for key in ("build", "test", "bench"):
        if not isinstance(table.get(key), str) or not table[key].strip():
            raise SettingsError(f"{where} needs {key} = \"<command>\"")
    metric = table.get("bench_metric", "wall")
    if metric not in ("wall", "stdout_ms"):
        raise SettingsError(f"{where}: bench_metric must be \"wall\" or \"stdout_ms\", got {metric!r}")
    runs = table.get("runs", 11)
    if not isinstance(runs, int) or runs < 3:
        raise SettingsError(f"{where}: runs must be a whole number of at least 3")
    copy = table.get("copy", [])
    if not isinstance(copy, list) or not all(isinstance(c, str) for c in copy):
        raise SettingsError(f"{where}: copy must be a list of paths relative to {config_path.parent}")
    functions = table.get("functions", [])
    if not isinstance(functions, list) or not all(isinstance(f, str) for f in functions):
        raise SettingsError(f"{where}: functions must be a list of function names")
    return ProjectConfig(
        root=config_path.parent,
        build=table["build"],
        test=table["test"],
        bench=table["bench"],
        copy=list(copy),
        bench_metric=metric,
        runs=runs,
        build_timeout_s=float(table.get("build_timeout_s", 300.0)),
        test_timeout_s=float(table.get("test_timeout_s", 300.0)),
        bench_timeout_s=float(table.get("bench_timeout_s", 60.0)),
        functions=list(functions),
    )


def _copy_project(config: ProjectConfig, dest: Path) -> None:
    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIP_DIRS}

    if not config.copy:
        shutil.copytree(config.root, dest, ignore=ignore, symlinks=True, dirs_exist_ok=True)
        return
    for rel in [*config.copy, CONFIG_FILE]:
        src = config.root / rel
        target = dest / rel
        if src.is_dir():
            shutil.copytree(src, target, ignore=ignore, symlinks=True, dirs_exist_ok=True)
        elif src.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)


def _function_range(text: str, language: str, function: str) -> tuple[int, int, str]:
    """Byte range and text of ``function`` in ``text``."""
    from ..cparse import find_function, list_functions

    # The listing needs no clean parse: a function passing a statement to a macro is found as well.
    named = [f for f in list_functions(text, language) if function.replace(" ", "") in (f.qualified_name, f.name)]
    info = named[0] if len(named) == 1 else find_function(text, language, name=function)
    return info.start_byte, info.end_byte, info.text


def _language(path: Path) -> str:
    from ..cparse import language_for

    return language_for(path)


def _shell(command: str) -> list[str]:
    return ["/bin/sh", "-c", command]


def _last_line(result: sandbox.RunResult) -> str:
    """The most telling line of a failed command: the first error, else the last line it printed."""
    lines = [
        line.strip()
        for line in (result.stderr + "\n" + result.stdout).splitlines()
        if line.strip() and not line.startswith(("make:", "make[", "gmake:"))
    ]
    errors = [line for line in lines if "error" in line.lower()]
    chosen = errors[0] if errors else (lines[-1] if lines else f"exit status {result.returncode}")
    return chosen[:200]


def _failure(result: sandbox.RunResult, what: str, failed: Status) -> Verdict:
    if result.timed_out:
        return Verdict(Status.TIMEOUT, detail=f"{what} ran past its time limit", path="project")
    if result.output_exceeded:
        return Verdict(Status.CRASH, detail=f"{what} printed more output than allowed", path="project")
    if result.signal is not None:
        return Verdict(Status.CRASH, detail=f"{what} was killed by signal {result.signal}: {_last_line(result)}",
                       path="project")
    return Verdict(failed, detail=f"{what} failed: {_last_line(result)}", path="project")


def _bench_ms(result: sandbox.RunResult, metric: str) -> float | None:
    if metric == "wall":
        return result.wall_s * 1000.0
    numbers = NUMBER.findall(result.stdout)
    return float(numbers[-1]) if numbers else None


def verify_with_project(
    source_path: Path,
    function: str,
    candidate_code: str,
    *,
    mode: str,
    settings: Settings,
    cancel: threading.Event | None = None,
    progress: Callable[[str], None] | None = None,
) -> Verdict:
    """Build, test and time ``candidate_code`` in a copy of the project; ``Verdict.path == "project"``.

    Every failure is a verdict with a one-line ``detail``; setting ``cancel``
    raises :class:`sandbox.Cancelled`.
    """
    say = progress or (lambda message: None)
    try:
        config = load_project(source_path)
    except SettingsError as exc:
        return Verdict(Status.UNSUPPORTED, detail=str(exc), path="project", mode=mode)
    if config is None:
        return Verdict(
            Status.UNSUPPORTED,
            detail=f"no [project] table in a {CONFIG_FILE} above {source_path}; add build, test and bench commands",
            path="project",
            mode=mode,
        )
    source_path = source_path.resolve()
    try:
        rel = source_path.relative_to(config.root.resolve())
    except ValueError:
        return Verdict(Status.UNSUPPORTED, detail=f"{source_path} is outside the project at {config.root}",
                       path="project", mode=mode)
    language = _language(source_path)
    try:
        text = source_path.read_text(encoding="utf-8")
    except OSError as exc:
        return Verdict(Status.UNSUPPORTED, detail=f"cannot read {source_path}: {exc.strerror}", path="project", mode=mode)
    try:
        start, end, original = _function_range(text, language, function)
    except Exception as exc:  # cparse reports a missing or unparsable function as an error value
        return Verdict(Status.UNSUPPORTED, detail=getattr(exc, "message", str(exc)), path="project", mode=mode)

    from .judging._screen import screen

    if (reason := screen(candidate_code, original, language)) is not None:
        return Verdict(Status.REJECTED_UNSAFE, detail=reason, path="project", mode=mode)

    threads = settings.threads if mode == "openmp" else 1
    env = {"OMP_NUM_THREADS": str(threads), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    encoded = text.encode("utf-8")
    candidate_text = (encoded[:start] + candidate_code.encode("utf-8") + encoded[end:]).decode("utf-8")
    phases: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="perfalign-project-") as tmp:
        base_dir, cand_dir = Path(tmp) / "original", Path(tmp) / "candidate"
        say("copying the project")
        try:
            for dest in (base_dir, cand_dir):
                dest.mkdir()
                _copy_project(config, dest)
            if not (cand_dir / rel).exists():
                return Verdict(Status.UNSUPPORTED, detail=f"{rel} is not among the files copied ([project] copy)",
                               path="project", mode=mode)
            (cand_dir / rel).write_text(candidate_text, encoding="utf-8")
        except OSError as exc:
            return Verdict(Status.UNSUPPORTED, detail=f"cannot copy the project: {exc}", path="project", mode=mode)

        build_limits = sandbox.Limits(wall_s=config.build_timeout_s, cpu_s=config.build_timeout_s * 4)
        started = time.monotonic()
        for label, folder in (("the original", base_dir), ("the candidate", cand_dir)):
            if cancel is not None and cancel.is_set():
                raise sandbox.Cancelled()
            say(f"building {label}: {config.build}")
            built = sandbox.run(_shell(config.build), cwd=folder, limits=build_limits, env=env, cancel=cancel,
                                sandbox=settings.sandbox)
            if built.cancelled:
                raise sandbox.Cancelled()
            if not built.ok:
                if folder is base_dir:
                    verdict = _failure(built, f"building the original project ({config.build})", Status.UNSUPPORTED)
                else:
                    verdict = _failure(built, f"build ({config.build})", Status.COMPILE_ERROR)
                verdict.mode = mode
                return verdict
        phases["compile"] = time.monotonic() - started

        started = time.monotonic()
        say(f"testing the candidate: {config.test}")
        tested = sandbox.run(
            _shell(config.test), cwd=cand_dir,
            limits=sandbox.Limits(wall_s=config.test_timeout_s, cpu_s=config.test_timeout_s * 4),
            env=env, cancel=cancel, sandbox=settings.sandbox,
        )
        if tested.cancelled:
            raise sandbox.Cancelled()
        if not tested.ok:
            verdict = _failure(tested, f"the project's tests ({config.test})", Status.INCORRECT)
            verdict.mode = mode
            return verdict
        phases["check"] = time.monotonic() - started

        started = time.monotonic()
        leases = TimingLeases.for_settings(settings)
        with leases.lease(threads, check=lambda: _check_cancel(cancel), progress=say) as lease:
            outcome = _bench(config, base_dir, cand_dir, threads, env, cancel, settings, mode, say, lease.cores)
        if isinstance(outcome, Verdict):
            return outcome
        timings = outcome
        phases["time"] = time.monotonic() - started

    from .judging._stats import compare

    result = compare(timings["baseline"], timings["candidate"], threshold=settings.threshold)
    return Verdict(
        status=result.status,
        detail=f"built with '{config.build}', tests passed ('{config.test}'), timed with '{config.bench}'"
               + (f"; timed without the machine-wide timing lease: {lease.reason}" if not lease.leased else ""),
        speedup=result.speedup,
        ci95=result.ci95,
        p_value=result.p_value,
        baseline_ms=result.baseline_ms,
        candidate_ms=result.candidate_ms,
        threads=threads,
        mode=mode,
        path="project",
        timings=timings,
        phases=phases,
        lease=lease_summary([lease]),
    )


def _check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise sandbox.Cancelled()


def _bench(config: ProjectConfig, base_dir: Path, cand_dir: Path, threads: int, env: dict[str, str],
           cancel: threading.Event | None, settings: Settings, mode: str, say: Callable[[str], None],
           cpus: tuple[int, ...]) -> dict[str, list[float]] | Verdict:
    """The project's benchmark run on both sides in turn, ``config.runs`` times each: their milliseconds."""
    bench_limits = sandbox.Limits(wall_s=config.bench_timeout_s, cpu_s=config.bench_timeout_s * max(threads, 1) * 2,
                                  cpus=cpus)
    timings: dict[str, list[float]] = {"baseline": [], "candidate": []}
    for i in range(config.runs):
        say(f"timing {i + 1}/{config.runs}: {config.bench}")
        order = [("baseline", base_dir), ("candidate", cand_dir)]
        if i % 2:
            order.reverse()
        for side, folder in order:
            ran = sandbox.run(_shell(config.bench), cwd=folder, limits=bench_limits, env=env, cancel=cancel,
                              sandbox=settings.sandbox)
            if ran.cancelled:
                raise sandbox.Cancelled()
            if not ran.ok:
                what = "the original's benchmark" if side == "baseline" else "the benchmark"
                verdict = _failure(ran, f"{what} ({config.bench})",
                                   Status.UNSUPPORTED if side == "baseline" else Status.CRASH)
                verdict.mode = mode
                return verdict
            ms = _bench_ms(ran, config.bench_metric)
            if ms is None:
                return Verdict(Status.UNSUPPORTED, detail=f"the benchmark ({config.bench}) printed no number "
                               "(bench_metric = \"stdout_ms\")", path="project", mode=mode)
            timings[side].append(ms)
    return timings


def project_route(source_path: Path, function: str) -> str | None:
    """How ``perfalign.toml`` wants ``function`` verified.

    ``"project"``: ``[project] functions`` names it; ``"fallback"``: a ``[project]`` table exists, to be used when the
    harness cannot drive the function; None: no project commands (or a broken
    table, reported when the project path is asked for).
    """
    try:
        config = load_project(source_path)
    except SettingsError:
        config_path = find_config(source_path)
        try:
            table = read_config(config_path).get("project", {}) if config_path else {}
        except SettingsError:
            return None
        named = table.get("functions", []) if isinstance(table, dict) else []
        return "project" if isinstance(named, list) and function in named else None
    if config is None:
        return None
    return "project" if config.wants_project(function) else "fallback"

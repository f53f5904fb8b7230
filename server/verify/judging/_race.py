"""Find data races in OpenMP code with ThreadSanitizer and Archer.

The harness is rebuilt with ``clang -fopenmp -fsanitize=thread`` and run with
LLVM's OpenMP runtime and its Archer tool loaded, which tells ThreadSanitizer
about OpenMP's own synchronisation (barriers, reductions, tasks), so the only
races reported are the program's. gcc's ThreadSanitizer is never used: it
reports false races inside libgomp.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ...settings import Settings
from ..sandbox import _sandbox as sandbox

RACE_EXIT = 66
FIRST_ERROR = re.compile(r"^.*\berror\b.*$", re.MULTILINE)


@dataclass(frozen=True)
class RaceCheck:
    """What a race check saw: the first race (one line), none, or why it could not finish.

    ``failed`` is set when the check could not build or run the program to
    the end (``timed_out`` when it ran out of time): nothing is known about
    races then, and a caller must not take it for "no race".
    """

    race: str | None = None
    failed: str | None = None
    timed_out: bool = False

    @property
    def clean(self) -> bool:
        return self.race is None and self.failed is None
SUMMARY = re.compile(r"SUMMARY: ThreadSanitizer: data race (\S+?):(\d+)(?::\d+)?(?: in (\S+))?")
FRAME = re.compile(r"#\d+ \S+ (\S+?):(\d+)(?::\d+)? ")


def _clang(language: str) -> str | None:
    return shutil.which("clang++" if language in ("cpp", "c++", "cxx") else "clang")


@lru_cache(maxsize=1)
def archer_library() -> Path | None:
    """Where LLVM's Archer OpenMP tool library is installed (Debian: ``/usr/lib/llvm-N/lib``)."""
    clang = shutil.which("clang")
    if clang is None:
        return None
    candidates: list[str] = []
    try:
        resource = subprocess.run(
            [clang, "-print-resource-dir"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
        if resource:
            candidates.append(str(Path(resource).parents[1] / "libarcher.so"))
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    real = Path(os.path.realpath(clang))
    candidates.append(str(real.parent.parent / "lib" / "libarcher.so"))
    candidates += sorted(glob.glob("/usr/lib/llvm-*/lib/libarcher.so"), reverse=True)
    candidates += glob.glob("/usr/lib/*-linux-gnu/libarcher.so") + glob.glob("/usr/local/lib/libarcher.so")
    for path in candidates:
        if os.path.isfile(path):
            return Path(path)
    return None


@lru_cache(maxsize=1)
def archer_available() -> bool:
    """True when clang can build an OpenMP program with ThreadSanitizer and Archer is installed."""
    if archer_library() is None or _clang("c") is None:
        return False
    import tempfile

    with tempfile.TemporaryDirectory(prefix="perfalign-archer-") as tmp:
        work = Path(tmp)
        (work / "probe.c").write_text(
            "#include <omp.h>\nint main(void){int s=0;\n#pragma omp parallel reduction(+:s)\ns+=1;\nreturn s>0?0:1;}\n"
        )
        built = sandbox.run(
            [_clang("c") or "clang", "-fopenmp", "-fsanitize=thread", "-g", "probe.c", "-o", "probe"],
            cwd=work,
            limits=sandbox.Limits(wall_s=60, memory_bytes=0),
        )
        if not built.ok:
            return False
        ran = sandbox.run(["./probe"], cwd=work, limits=sandbox.Limits(wall_s=60, memory_bytes=0),
                          env=_race_env(2))
        return ran.ok


def _race_env(threads: int) -> dict[str, str]:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    env.update(
        OMP_NUM_THREADS=str(max(2, threads)),
        OMP_TOOL_LIBRARIES=str(archer_library()),
        ARCHER_OPTIONS="verbose=0",
        # The longest history: ThreadSanitizer drops a race whose earlier access has left it, and on a loaded
        # machine, where a thread is descheduled for long, history_size=4 left a racy candidate unreported in 8
        # runs of 100 (7: in none of 90).
        TSAN_OPTIONS=(
            f"ignore_noninstrumented_modules=1 halt_on_error=1 exitcode={RACE_EXIT} "
            "report_signal_unsafe=0 history_size=7"
        ),
    )
    return env


def find_race(
    sources: list[Path],
    *,
    language: str,
    include_dirs: list[Path],
    workdir: Path,
    threads: int,
    run_args: list[str],
    settings: Settings,
    cancel: threading.Event | None = None,
) -> RaceCheck:
    """Build a whole program from ``sources`` with ThreadSanitizer and Archer, run it, describe the first race.

    The check's ``race`` names the racy source line (``file:line: code``);
    ``failed`` says why the program could not be built or run to the end.
    Both are None when it ran cleanly, or when clang or Archer is not
    installed (``archer_available`` tells those apart).
    """
    compile_args = [*[f"-I{d}" for d in include_dirs], *map(str, sources)]
    return _race(compile_args, sources, readable=list(include_dirs) + list(sources), language=language,
                 workdir=workdir, threads=threads, run_args=run_args, stdin=None, settings=settings, cancel=cancel)


def race_in_candidate(
    c_sources: list[Path],
    units: list[Path],
    *,
    flags: list[str],
    language: str,
    workdir: Path,
    threads: int,
    commands: bytes,
    settings: Settings,
    cancel: threading.Event | None = None,
    patience: float = 1.0,
) -> RaceCheck:
    """Build a candidate's worker with ThreadSanitizer and Archer, run it on recorded commands, describe the first race.

    ``c_sources`` are C files (the worker), ``units`` the function's own units
    (the glue and the candidate), compiled with the user's ``flags`` but no
    optimisation flags. The candidate is compiled from the same text as for
    timing. ``patience`` multiplies the run's time limits (a second try
    after a first one ran out of time on a loaded machine).
    """
    keep = [f for f in flags if not f.startswith("-O") and f != "-fopenmp" and not f.startswith("-falign")]
    worker = ["-x", "c", *map(str, c_sources), "-x", "none"] if language == "cpp" else [str(s) for s in c_sources]
    compile_args = ["-w", *keep, *worker, *map(str, units)]
    return _race(compile_args, list(units), readable=list(c_sources) + list(units), language=language,
                 workdir=workdir, threads=threads, run_args=[], stdin=commands, settings=settings, cancel=cancel,
                 patience=patience)


def _race(compile_args: list[str], sources: list[Path], *, readable: list[Path], language: str, workdir: Path,
          threads: int, run_args: list[str], stdin: bytes | None, settings: Settings,
          cancel: threading.Event | None, patience: float = 1.0) -> RaceCheck:
    if not archer_available():
        return RaceCheck()
    clang = _clang(language)
    if clang is None:
        return RaceCheck(failed="clang is no longer on the PATH")
    binary = workdir / "race_check"
    built = sandbox.run(
        [clang, "-fopenmp", "-fsanitize=thread", "-g", "-O0", *compile_args, "-o", str(binary), "-lm"],
        cwd=workdir,
        limits=sandbox.Limits(wall_s=settings.compile_timeout_s, memory_bytes=0),
        cancel=cancel,
        sandbox=settings.sandbox,
        readable=readable,
    )
    if built.cancelled:
        return RaceCheck(failed="cancelled")
    if not built.ok:
        if built.timed_out:
            return RaceCheck(failed=f"clang did not build it with ThreadSanitizer within {settings.compile_timeout_s:.0f} s",
                             timed_out=True)
        error = FIRST_ERROR.search(built.stderr)
        reason = error.group(0).strip() if error else f"exit status {built.returncode}"
        return RaceCheck(failed=f"clang could not build it with ThreadSanitizer ({_short(reason)})")
    wall_s = settings.run_timeout_s * 4 * patience
    ran = sandbox.run(
        [str(binary), *run_args],
        cwd=workdir,
        stdin=stdin,
        limits=sandbox.Limits(wall_s=wall_s, cpu_s=settings.run_timeout_s * 8 * patience, memory_bytes=0),
        env=_race_env(threads),
        cancel=cancel,
        sandbox=settings.sandbox,
    )
    if ran.cancelled:
        return RaceCheck(failed="cancelled")
    if (race := describe_race(ran.stderr, sources)) is not None:
        return RaceCheck(race=race)
    if ran.timed_out:
        return RaceCheck(failed=f"its run under ThreadSanitizer did not finish within {wall_s:.0f} s", timed_out=True)
    if not ran.ok:
        return RaceCheck(failed=f"its run under ThreadSanitizer failed ({_ended(ran)})")
    return RaceCheck()


def _ended(ran: sandbox.RunResult) -> str:
    """How a run under ThreadSanitizer ended, in a few words: its signal or exit status and last report line."""
    how = f"signal {ran.signal}" if ran.signal else f"exit status {ran.returncode}"
    if ran.output_exceeded:
        how += ", too much output"
    lines = [line.strip() for line in ran.stderr.splitlines() if line.strip()]
    return f"{how}: {_short(lines[-1])}" if lines else how


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


LINE_DIRECTIVE = re.compile(r'^\s*#\s*line\s+(\d+)\s+"([^"]+)"')


def _code_at(path: str, line: int, sources: list[Path]) -> str | None:
    """The text of ``path:line`` as the compiler saw it: a given source, or a ``#line "path"`` region in one."""
    for source in sources:
        if str(source) == path or source.name == Path(path).name:
            try:
                lines = source.read_text(errors="replace").splitlines()
            except OSError:
                continue
            if 0 < line <= len(lines):
                return lines[line - 1].strip()
    # Later sources first: the candidate comes after the driver and the original.
    for source in reversed(sources):
        try:
            lines = source.read_text(errors="replace").splitlines()
        except OSError:
            continue
        directives = [(i, LINE_DIRECTIVE.match(t)) for i, t in enumerate(lines)]
        directives = [(i, m) for i, m in directives if m]
        for k, (index, match) in enumerate(directives):
            if match.group(2) != path and Path(match.group(2)).name != Path(path).name:
                continue
            end = directives[k + 1][0] if k + 1 < len(directives) else len(lines)
            real = index + 1 + (line - int(match.group(1)))
            if index < real < end:
                return lines[real].strip()
    return None


def describe_race(report: str, sources: list[Path]) -> str | None:
    """One line from a ThreadSanitizer report: where the race is and the code on that line."""
    if "ThreadSanitizer: data race" not in report:
        return None
    places: list[tuple[str, int]] = []
    if summary := SUMMARY.search(report):
        places.append((summary.group(1), int(summary.group(2))))
    places += [(m.group(1), int(m.group(2))) for m in FRAME.finditer(report)]
    # The racy access is the top frame (SUMMARY); when its file is unknown, the first frame in a given source.
    for path, line in places:
        code = _code_at(path, line, sources)
        if code is not None:
            where = f"{Path(path).name}:{line}"
            return f"data race at {where}: {code}" if code else f"data race at {where}"
    if places:
        path, line = places[0]
        return f"data race at {Path(path).name}:{line}"
    return "data race between OpenMP threads (ThreadSanitizer gave no source line)"

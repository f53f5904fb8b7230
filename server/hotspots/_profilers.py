"""perf and callgrind: which one can run here, the command line of each, and their counts per function.

Both give, per (object file, symbol), a self count (the function was running) and an inclusive count (it was
running or on the call stack), and the run's total: perf in sampled time (sample periods), callgrind in
executed instructions.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import HotspotsError

PROFILERS = ("perf", "callgrind")
# Debian packages that provide each profiler.
PACKAGES = {"perf": "linux-perf", "callgrind": "valgrind"}
PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")
TOOL_TIMEOUT_S = 600.0


@dataclass
class Counts:
    """What a profiler saw: per (object, symbol) [self, inclusive], and the run's total."""

    per_symbol: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    total: float = 0.0
    unit: str = ""

    def add(self, obj: str, symbol: str, self_count: float, inclusive: float) -> None:
        entry = self.per_symbol.setdefault((obj, symbol), [0.0, 0.0])
        entry[0] += self_count
        entry[1] += inclusive


@dataclass(frozen=True)
class Choice:
    """The profiler chosen and why the other one was not."""

    name: str
    note: str


def perf_refusal(probe_dir: Path) -> str | None:
    """None when ``perf record`` works here; else why not, in words."""
    if shutil.which("perf") is None:
        return f"perf is not installed (Debian package {PACKAGES['perf']})"
    data = probe_dir / "perf-probe.data"
    try:
        proc = subprocess.run(["perf", "record", "-q", "-o", str(data), "--", "true"], capture_output=True,
                              text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"perf could not be started: {exc}"
    finally:
        data.unlink(missing_ok=True)
        data.with_name(data.name + ".old").unlink(missing_ok=True)
    if proc.returncode == 0:
        return None
    level = _paranoid()
    why = (proc.stderr.strip().splitlines() or ["no message"])[0][:160]
    if level is not None and level > 2:
        return (f"the kernel refuses perf to this user (kernel.perf_event_paranoid = {level}; "
                f"'sysctl kernel.perf_event_paranoid=2' allows it): {why}")
    return f"the kernel refused perf here (often so inside a container): {why}"


def _paranoid() -> int | None:
    try:
        return int(PARANOID.read_text().strip())
    except (OSError, ValueError):
        return None


def choose(wanted: str, probe_dir: Path) -> Choice:
    """``perf`` where the kernel allows it, else ``callgrind``; ``wanted`` is perf, callgrind or auto."""
    has_valgrind = shutil.which("valgrind") is not None and shutil.which("callgrind_annotate") is not None
    no_valgrind = f"valgrind is not installed (Debian package {PACKAGES['callgrind']})"
    if wanted == "callgrind":
        if not has_valgrind:
            raise HotspotsError(f"cannot profile with callgrind: {no_valgrind}; "
                                f"install it with: sudo apt-get install {PACKAGES['callgrind']}")
        return Choice("callgrind", "asked for")
    refusal = perf_refusal(probe_dir)
    if wanted == "perf":
        if refusal is not None:
            raise HotspotsError(f"cannot profile with perf: {refusal}; or use --profiler callgrind")
        return Choice("perf", "asked for")
    if refusal is None:
        return Choice("perf", "the kernel allows perf here")
    if has_valgrind:
        return Choice("callgrind", f"perf cannot run: {refusal}")
    raise HotspotsError(f"no profiler can run here: {refusal}, and {no_valgrind}; install one with: "
                        f"sudo apt-get install {PACKAGES['callgrind']}  (or {PACKAGES['perf']})")


def profiled_argv(profiler: str, command: list[str], folder: Path) -> list[str]:
    if profiler == "perf":
        return ["perf", "record", "-q", "-g", "-o", str(folder / "perf.data"), "--", *command]
    return ["valgrind", "--tool=callgrind", "--trace-children=yes",
            f"--callgrind-out-file={folder / 'callgrind.out.%p'}", f"--log-file={folder / 'valgrind.%p.log'}",
            "--", *command]


def read_counts(profiler: str, folder: Path) -> Counts:
    return _perf_counts(folder / "perf.data") if profiler == "perf" else _callgrind_counts(folder)


# --- perf --------------------------------------------------------------------------------------------------------

_CHAIN = re.compile(r"^\s*[0-9a-f]+ (?P<sym>.*?) \((?P<obj>[^()]*)\)$")


def _perf_counts(data: Path) -> Counts:
    if not data.exists():
        raise HotspotsError(f"perf wrote no profile ({data} is missing); its messages are beside it")
    proc = _tool(["perf", "script", "-i", str(data), "-F", "period,ip,sym,dso"], "perf script")
    counts = Counts(unit="sampled time")
    period = 0.0
    frames: list[tuple[str, str]] = []

    def flush() -> None:
        if not frames:
            return
        counts.total += period
        counts.add(frames[0][0], frames[0][1], period, 0.0)
        for obj, sym in dict.fromkeys(frames):  # a recursive function counts once per sample
            counts.add(obj, sym, 0.0, period)

    for line in proc.splitlines():
        if not line.strip():
            continue
        if line.startswith("\t") or line.startswith("        "):
            m = _CHAIN.match(line)
            if m:
                frames.append((m.group("obj"), _base_symbol(m.group("sym"))))
            continue
        flush()
        frames = []
        try:
            period = float(line.split()[0])
        except (IndexError, ValueError):
            period = 0.0
    flush()
    return counts


def _base_symbol(sym: str) -> str:
    """``hot+0x1d`` → ``hot`` (perf may add the offset)."""
    return re.sub(r"\+0x[0-9a-f]+$", "", sym)


# --- callgrind ---------------------------------------------------------------------------------------------------

_ANNOTATED = re.compile(r"^\s*(?P<n>[0-9,]+) \([ 0-9.]+%\)\s+(?P<where>.*) \[(?P<obj>[^\]]*)\]\s*$")
_TOTAL = re.compile(r"^\s*(?P<n>[0-9,]+) \([ 0-9.]+%\)\s+PROGRAM TOTALS")


def _callgrind_counts(folder: Path) -> Counts:
    outputs = sorted(folder.glob("callgrind.out.*"))
    if not outputs:
        raise HotspotsError(f"callgrind wrote no profile in {folder}; valgrind's messages are in its valgrind.*.log")
    counts = Counts(unit="instructions")
    for out in outputs:
        for inclusive in (False, True):
            argv = ["callgrind_annotate", "--threshold=100", "--auto=no"]
            if inclusive:
                argv.append("--inclusive=yes")
            text = _tool([*argv, str(out)], "callgrind_annotate")
            for line in text.splitlines():
                total = _TOTAL.match(line)
                if total and not inclusive:
                    counts.total += float(total.group("n").replace(",", ""))
                    continue
                m = _ANNOTATED.match(line)
                if not m:
                    continue
                n = float(m.group("n").replace(",", ""))
                # ``file:function``: the function is what follows the file's last colon outside parentheses.
                symbol = _function_of(m.group("where"))
                counts.add(m.group("obj"), symbol, 0.0 if inclusive else n, n if inclusive else 0.0)
    return counts


def _function_of(where: str) -> str:
    depth = 0
    for i, ch in enumerate(where):
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        elif ch == ":" and depth == 0 and where[i + 1:i + 2] != ":" and where[i - 1:i] != ":":
            return where[i + 1:]
    return where


def _tool(argv: list[str], name: str) -> str:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=TOOL_TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        raise HotspotsError(f"{name} took longer than {TOOL_TIMEOUT_S:g} s reading the profile") from None
    except OSError as exc:
        raise HotspotsError(f"cannot run {name}: {exc.strerror}") from None
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no message"])[-1][:200]
        raise HotspotsError(f"{name} could not read the profile: {first}")
    return proc.stdout

"""The toolchain: which compiler, which flags, the headers a build may read, and what its errors mean.

Builds see the system's headers and the include folders the project's
``compile_commands.json`` names, read-only; of the source file's own folder
they see only copies of the headers the original file includes (found the
way the compiler would, and their includes in turn), so a candidate cannot
read a file beside the source through the compiler.
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ...settings import Settings
from ..sandbox._sandbox import RunResult
from ..harness._compile_db import compile_flags_for

OMP = re.compile(r"#\s*pragma\s+omp\b|\bomp_\w+\s*\(|<omp\.h>")
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
MAX_HEADERS = 400
MAX_HEADER_BYTES = 32 * 1024 * 1024
# perfalign's own worker (worker.c): its speed is not what is measured, and it is the same for both sides.
WORKER_FLAGS = ["-O2", "-std=gnu11", "-w"]
NATIVE = ["-O3", "-march=native"]  # what the compiler alone can do, for the compiler-alone comparison


@dataclass
class Toolchain:
    settings: Settings
    language: str
    mode: str
    source_text: str
    source_path: Path | None
    flags: list[str] = field(default_factory=list)  # for every unit of the function
    link: list[str] = field(default_factory=list)
    openmp: bool = False

    @classmethod
    def for_function(cls, settings: Settings, language: str, mode: str, source_text: str, source_path: Path | None,
                     headers: Path) -> "Toolchain":
        """The flags of the user's build, with the original's quoted headers copied under ``headers``.

        ``cflags`` from the settings (default ``-O3``), then the flags of the
        file's ``compile_commands.json`` entry; an ``-O`` level there is the one
        the user builds with and replaces the settings' one.
        """
        flags = list(settings.cflags)
        if source_path is not None:
            folder = source_path.resolve().parent
            project = compile_flags_for(source_path)
            if any(f.startswith("-O") for f in project):
                flags = [f for f in flags if not f.startswith("-O")]  # the level the user builds with
            flags += [f for f in project if not _names_folder(f, folder)]
            if QUOTED_INCLUDE.search(source_text):
                mirror = copy_headers(source_text, folder, project, headers)
                flags.append(f"-iquote{mirror}")
        link = ["-lm"]
        openmp = mode == "openmp" or bool(OMP.search(source_text))
        if openmp:
            flags.append("-fopenmp")
            link.append("-fopenmp")
        return cls(settings, language, mode, source_text, source_path, flags, link, openmp)

    def code_flags(self) -> list[str]:
        """The flags that decide the code (include paths and defines left out), as verdicts report them."""
        out: list[str] = []
        skip = False
        for flag in self.flags:
            if skip:
                skip = False
                continue
            if flag in ("-I", "-D", "-U", "-isystem", "-include", "-iquote"):
                skip = True
                continue
            if flag.startswith(("-I", "-D", "-U", "-isystem", "-iquote", "-include")):
                continue
            out.append(flag)
        return out

    def native(self) -> "Toolchain | None":
        """The same build at ``-O3 -march=native``; None when the flags already say that."""
        kept = [f for f in self.flags if not f.startswith(("-O", "-march=", "-mtune="))]
        if _last_level(self.flags) == "-O3" and "-march=native" in self.flags:
            return None
        return Toolchain(self.settings, self.language, self.mode, self.source_text, self.source_path,
                         [*kept, *NATIVE], list(self.link), self.openmp)

    def compiler(self) -> str:
        return self.settings.cxx if self.language == "cpp" else self.settings.cc

    def compile(self, sources: list[Path], out: Path) -> list[str]:
        """Compile one unit of the function to an object file."""
        # Every function starts on a 64-byte boundary, so identical code has identical layout in both units.
        return [self.compiler(), *self.flags, "-fno-lto", "-falign-functions=64", "-w", "-c", *map(str, sources),
                "-o", str(out)]

    def compile_worker(self, source: Path, out: Path) -> list[str]:
        """The worker's own C source (the same for every function): perfalign's flags, not the user's."""
        omp = ["-fopenmp"] if self.openmp else []
        return [self.settings.cc, *WORKER_FLAGS, *omp, "-c", str(source), "-o", str(out)]

    def program(self, unit: Path, worker_obj: Path, glue_obj: Path, out: Path) -> list[str]:
        """A worker program of one unit of the function (its source, or its object), built the same way for the
        original, every candidate and the references: perfalign's worker and glue first, the unit last, so that
        identical code lies at the same addresses in each program."""
        argv = self.compile([unit], out)
        argv.remove("-c")
        at = argv.index(str(unit))
        argv[at:at] = [str(worker_obj), str(glue_obj)]
        return argv + self.link

    def sanitized(self, worker: Path, units: list[Path], out: Path) -> list[str]:
        """The original with AddressSanitizer (memory errors) and UndefinedBehaviorSanitizer (overflow and the like).

        ``worker`` is the worker's source, or its object from :meth:`sanitized_worker`.
        """
        if worker.suffix == ".o":
            worker_lang = [str(worker)]
        else:
            worker_lang = ["-x", "c", str(worker), "-x", "none"] if self.language == "cpp" else [str(worker)]
        return [*self._sanitizing(self.flags), *worker_lang, *map(str, units), "-o", str(out), *self.link]

    def sanitized_worker(self, source: Path, out: Path) -> list[str]:
        """The worker's object for :meth:`sanitized`: the same command, without the copied headers' folder (the
        worker includes system headers only), so that every function of a project builds the same one."""
        flags = [f for f in self.flags if not (f.startswith("-iquote") and len(f) > len("-iquote"))]
        lang = ["-x", "c"] if self.language == "cpp" else []
        return [*self._sanitizing(flags), *lang, "-c", str(source), "-o", str(out)]

    def _sanitizing(self, flags: list[str]) -> list[str]:
        keep = [f for f in flags if not f.startswith("-O")]
        checks = ["-fsanitize=address,undefined,float-cast-overflow", "-fsanitize-recover=undefined,float-cast-overflow",
                  "-fno-omit-frame-pointer"]
        return [self.compiler(), *keep, "-O1", "-g", "-w", *checks]


def _last_level(flags: list[str]) -> str:
    """The optimisation level the compiler uses: the last ``-O`` flag (``-O0`` without one)."""
    levels = [f for f in flags if f.startswith("-O")]
    return levels[-1] if levels else "-O0"


def _names_folder(flag: str, folder: Path) -> bool:
    """``-I`` of the source's own folder: its headers are copied instead."""
    for prefix in ("-I", "-iquote"):
        if flag.startswith(prefix) and flag[len(prefix):]:
            try:
                return Path(flag[len(prefix):]).resolve() == folder
            except OSError:
                return False
    return False


def copy_headers(source_text: str, folder: Path, project_flags: list[str], dest: Path) -> Path:
    """Copy the headers ``#include "…"`` finds for the source (and their includes), at their paths under ``dest``.

    Returns the copy of ``folder``: the source's relative includes find their
    copies there, ``../`` ones included.
    """
    search = [Path(f[2:]) for f in project_flags if f.startswith("-I") and len(f) > 2]
    mirror = dest / str(folder).lstrip("/")
    mirror.mkdir(parents=True, exist_ok=True)
    todo = [(folder, name) for name in QUOTED_INCLUDE.findall(source_text)]
    seen: set[Path] = set()
    total = 0
    while todo and len(seen) < MAX_HEADERS:
        base, name = todo.pop()
        found = _resolve(name, [base, folder, *search])
        if found is None or found in seen or not found.is_relative_to(Path("/")):
            continue
        seen.add(found)
        try:
            size = found.stat().st_size
            if total + size > MAX_HEADER_BYTES:
                break
            target = dest / str(found).lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found, target)
            total += size
            text = found.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        todo += [(found.parent, inner) for inner in QUOTED_INCLUDE.findall(text)]
    for path in [dest, *[p for p in dest.rglob("*")]]:
        try:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        except OSError:
            pass
    return mirror


def _resolve(name: str, folders: list[Path]) -> Path | None:
    candidate = Path(name)
    if candidate.is_absolute():
        return None  # an absolute include is the project's business, not a header to copy
    for folder in folders:
        path = (folder / candidate).resolve()
        if path.is_file():
            return path
    return None


def others_can_read(folder: Path) -> bool:
    """Whether a sandboxed command running as a throw-away user can read ``folder`` (always, unless root)."""
    if os.geteuid() != 0:
        return True
    try:
        if not folder.stat().st_mode & 0o005 == 0o005:
            return False
        return all(p.stat().st_mode & 0o001 for p in folder.parents)
    except OSError:
        return False


def compiler_error(res: RunResult) -> str:
    """The compiler's first error, with perfalign's generated names and file names taken out."""
    if res.timed_out:
        return "the compiler did not finish in time"
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if re.search(r"\berror\b", line)]
    line = errors[0] if errors else (lines[0] if lines else f"exit status {res.returncode}")
    line = re.sub(r"^\S*/(candidate|original|side|glue|worker)\.(c|cpp):", "", line)
    line = re.sub(r"^function:(\d+):(\d+):", r"line \1: ", line)
    line = re.sub(r"^(context|glue):\d+:\d+:", r"\1: ", line)
    line = re.sub(r"perfalign_[wg]_(\w+)", r"\1", line)
    return line.strip()


def link_error(res: RunResult) -> str:
    lines = [line for line in res.stderr.splitlines() if "undefined reference" in line or "multiple definition" in line]
    if not lines:
        return compiler_error(res)
    line = re.sub(r"^.*?: (undefined reference|multiple definition)", r"\1", lines[0])
    return re.sub(r"perfalign_[wg]_(\w+)", r"\1", line).strip()

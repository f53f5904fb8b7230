"""The toolchain: the compiler flags a function is built with, the headers its build may read, and perfalign's
worker built once per process."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import Status
from perfalign.server.verify import FunctionVerifier
from perfalign.server.verify.harness._compile_db import compile_flags_for


def test_compile_flags_come_from_the_nearest_compile_commands(tmp_path: Path) -> None:
    src = tmp_path / "src" / "k.c"
    src.parent.mkdir()
    src.write_text("int k(void) { return 0; }\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path / "build"),
        "command": f"cc -Iinclude -DFAST=1 -std=c11 -O3 -o k.o -c {src}",
        "file": str(src),
    }]))
    assert compile_flags_for(src) == [f"-I{tmp_path / 'build' / 'include'}", "-DFAST=1", "-std=c11", "-O3"]
    assert compile_flags_for(tmp_path.parent / "elsewhere.c") == []


def test_the_worker_is_compiled_once_per_process_and_its_sanitized_object_still_finds_memory_errors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from perfalign.server.verify.sandbox import _runner

    compiled: list[list[str]] = []
    real_run = _runner.sandbox.run

    def recording(argv: list[str], **kw: object) -> object:
        if any(arg.endswith("worker.c") for arg in argv):
            compiled.append(argv)
        return real_run(argv, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(_runner.sandbox, "run", recording)
    # A C function and a C++ one, twice each: the C++ build compiles its sanitized worker with its own driver.
    sources = [
        ("c", "scale", "void scale(double *x, int n) { for (int i = 0; i < n; i++) x[i] *= 2.0; }\n",
         "void scale(double *x, int n) { for (int i = 0; i < n; i++) x[i] *= 3.0; }\n"),
        ("cpp", "total", "#include <vector>\nlong total(const std::vector<int> &v) { long s = 0; "
                         "for (int x : v) s += x; return s; }\n",
         "#include <vector>\nlong total(const std::vector<int> &v) { long s = 1; for (int x : v) s += x; return s; }\n"),
    ]
    for round_ in range(2):
        compiled.clear()
        for language, name, original, wrong in sources:
            with FunctionVerifier(original, language, name, settings=Settings(min_time_ms=1.0)) as verifier:
                assert verifier.prepare() is None
                assert verifier.verify(wrong).status is Status.INCORRECT
    # The second time round, each function links the objects the first built (or an earlier test in the process).
    assert compiled == [], compiled
    # The probe linked with the kept object still finds, with AddressSanitizer, that x holds n + 1 elements.
    said: list[str] = []
    overread = "double last(const double *x, int n) { double s = 0; for (int i = 0; i <= n; i++) s += x[i]; return s; }\n"
    with FunctionVerifier(overread, "c", "last", settings=Settings(min_time_ms=1.0), progress=said.append) as verifier:
        assert verifier.prepare() is None
    assert said[-1].endswith("size(x)=n + 1"), said[-1]

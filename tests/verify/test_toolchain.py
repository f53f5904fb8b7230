"""The toolchain: the compiler flags a function is built with, and the headers its build may read."""
from __future__ import annotations

import json
from pathlib import Path

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

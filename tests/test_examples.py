"""examples/: each file compiles on its own and the verifier can drive its function."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from perfalign.server import cparse
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*/*.c*"))


def test_there_are_enough_examples_in_both_languages() -> None:
    assert len(EXAMPLES) >= 20
    assert sum(p.suffix == ".c" for p in EXAMPLES) >= 10
    assert sum(p.suffix == ".cpp" for p in EXAMPLES) >= 5
    assert (REPO / "examples" / "c" / "row_sums.c").is_file()  # the README and `make demo` use it


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_compiles_and_can_be_verified(path: Path, tmp_path: Path) -> None:
    compiler = ["g++", "-std=c++17"] if path.suffix == ".cpp" else ["gcc", "-std=c11"]
    build = subprocess.run([*compiler, "-O2", "-Wall", "-Werror", "-c", str(path), "-o", str(tmp_path / "x.o")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    text = path.read_text()
    language = cparse.language_for(path)
    functions = cparse.list_functions(text, language)
    assert functions, "one function to optimize per file"
    name = functions[-1].name
    assert name == path.stem or path.stem.startswith(name.split("_")[0])
    with FunctionVerifier(text, language, name, mode="serial", settings=Settings(), source_path=path) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail if failure else ""

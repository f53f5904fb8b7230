"""`make demo` shows a verified faster rewrite (slow: the real default model).

The test runs the demo target's own command line, read from the Makefile, so
the README's promise and the test cannot drift apart.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.alone]  # the real model samples on every core


def demo_command() -> list[str]:
    """The `perfalign optimize …` line of the Makefile's demo target, with the environment's perfalign."""
    makefile = (REPO / "Makefile").read_text()
    recipe = re.search(r"^demo:.*\n\t(.+)$", makefile, re.MULTILINE)
    assert recipe is not None, "the Makefile has a demo target"
    words = shlex.split(recipe.group(1))
    assert words[0] == "$(BIN)/perfalign"
    return [str(Path(sys.executable).parent / "perfalign"), *words[1:]]


def test_the_readme_names_the_demo_command() -> None:
    command = " ".join(demo_command()[1:])
    assert f"perfalign {command}" in (REPO / "README.md").read_text()


def test_make_demo_shows_a_verified_faster_rewrite(tmp_path: Path) -> None:
    env = {**os.environ, "PERFALIGN_HOME": str(tmp_path / "home")}
    ran = subprocess.run(demo_command(), cwd=REPO, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    found = re.search(r"candidate \d+( \([^)]*\))? is [\d.]+× \[[\d.]+, [\d.]+\] faster", ran.stdout)
    assert found, ran.stdout + ran.stderr[-2000:]
    assert re.search(r"^candidate \d+( \([^)]*\))?: faster: ", ran.stderr, re.MULTILINE), ran.stderr[-2000:]
    assert "measured at -O3" in ran.stdout

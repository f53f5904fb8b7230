"""The verifier digest covers every source of the verifier, its subpackages' included."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from perfalign.server import verify

PACKAGE = Path(verify.__file__).resolve().parent


def _digest_of(folder: Path) -> str:
    """``verifier_digest()`` of the package copied to ``folder`` (the module hashes the folder it is in)."""
    spec = importlib.util.spec_from_file_location(f"digest_{abs(hash(folder))}", folder / "_digest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.verifier_digest())


@pytest.mark.parametrize("source", ["_verifier.py", "harness/_plan.py", "sandbox/worker.c", "judging/_stats.py",
                                    "build/__init__.py"])
def test_a_change_to_any_source_changes_the_digest(tmp_path: Path, source: str) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    for copy in (before, after):
        shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (after / source).open("a") as f:
        f.write("\n")
    assert _digest_of(before) != _digest_of(after)


def test_the_digest_of_this_tree_is_the_one_the_package_gives(tmp_path: Path) -> None:
    copy = tmp_path / "verify"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert _digest_of(copy) == verify.verifier_digest()

"""Shared fixtures: every test gets its own PERFALIGN_HOME (the real model cache is kept)."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@pytest.fixture(autouse=True)
def perfalign_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("perfalign-home")
    monkeypatch.setenv("PERFALIGN_HOME", str(home))
    return home

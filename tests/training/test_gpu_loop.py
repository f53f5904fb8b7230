"""The GPU loop script's wiring, run on the CPU with a tiny model: every stage runs or says why not, and the card is written."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.train


def test_gpu_loop_runs_every_stage_and_writes_the_card(tmp_path: Path) -> None:
    from perfalign.training import gpu_loop
    from perfalign.training.modeling import build_tiny_model

    tiny = build_tiny_model(tmp_path / "tiny")
    out = tmp_path / "out"
    code = gpu_loop.main(
        [
            "--model", str(tiny), "--out", str(out), "--samples", "2", "--grpo-steps", "1", "--max-tokens", "8",
            "--verify-workers", "1", "--corpus", str(REPO / "training" / "corpus" / "clamp_sum.c"),
            "--eval-functions", str(REPO / "training" / "corpus" / "saxpy_div.c"),
        ]
    )
    assert code == 0
    card = json.loads((out / "card.json").read_text())
    assert [s["command"] for s in card["stages"]] == ["grpo"]
    assert set(card["timings_s"]) >= {"load base", "self-play", "grpo", "export", "eval"}
    # random text never compiles: no pairs, so DPO is skipped and the card says so
    assert any("DPO skipped" in n for n in card["notes"])
    assert not [n for n in card["notes"] if " failed: " in n]  # no stage raised
    assert card["evaluation"]["base"]["problems"] == card["evaluation"]["trained"]["problems"] == 1
    assert (out / "adapter.gguf").is_file() and (out / "base-f16.gguf").is_file()
    text = (out / "MODEL_CARD.md").read_text()
    assert "| pass@1 |" in text and "perfalign train grpo" in text

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


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny f32 base GGUF and a GGUF LoRA adapter with non-zero weights for it."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from perfalign.training import export, ggufio
    from perfalign.training.config import ExportConfig
    from perfalign.training.tiny import build_tiny_model

    root = tmp_path_factory.mktemp("tiny-gguf")
    base = build_tiny_model(root / "base")
    model = AutoModelForCausalLM.from_pretrained(base)
    tokenizer = AutoTokenizer.from_pretrained(base)
    base_gguf = ggufio.write_model_gguf(root / "base.gguf", model, tokenizer, dtype="f32")
    torch.manual_seed(3)
    peft_model = get_peft_model(model, LoraConfig(r=4, lora_alpha=32, target_modules=["q_proj", "v_proj", "down_proj"],
                                                  init_lora_weights=False))
    peft_model.save_pretrained(root / "adapter")
    result = export.main(ExportConfig(adapter_dir=str(root / "adapter"), base_gguf=str(base_gguf), dtype="f32",
                                      check_sequences=0, output=str(root / "adapter.gguf")))
    return base_gguf, result.adapter_gguf

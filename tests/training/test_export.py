"""GGUF export: a PEFT LoRA becomes a llama.cpp adapter that loads on the base GGUF and computes
what PEFT computes; a wrong adapter fails the check; a merged Q8_0 model matches too."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from perfalign.training.export import ExportConfig  # noqa: E402
from perfalign.training.export import _export as export  # noqa: E402
from perfalign.training.export import _gguf as ggufio  # noqa: E402
from perfalign.training.modeling import build_tiny_model  # noqa: E402
from perfalign.training.trainers import RUN_FILE  # noqa: E402

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A tiny base, its f32 GGUF, and a LoRA adapter with non-zero weights and a run record."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    root = tmp_path_factory.mktemp("export")
    base = build_tiny_model(root / "base")
    model = AutoModelForCausalLM.from_pretrained(base)
    tokenizer = AutoTokenizer.from_pretrained(base)
    base_gguf = ggufio.write_model_gguf(root / "base-f32.gguf", model, tokenizer, dtype="f32")
    torch.manual_seed(1)
    peft_model = get_peft_model(
        model,
        LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], init_lora_weights=False),
    )
    adapter_dir = root / "run" / "adapter"
    peft_model.save_pretrained(adapter_dir)
    (adapter_dir / RUN_FILE).write_text(json.dumps({"base": str(base), "command": "dpo", "data_snapshot_id": "pairs-test", "config": {"lora_r": 4}}))
    return base, base_gguf, adapter_dir


def test_adapter_loads_in_llama_cpp_and_matches_peft(trained: tuple[Path, Path, Path]) -> None:
    base, base_gguf, adapter_dir = trained
    result = export.main(ExportConfig(adapter_dir=str(adapter_dir), base_gguf=str(base_gguf), dtype="f32", check_sequences=2, tolerance=0.01))
    meta = ggufio.read_metadata(result.adapter_gguf)
    assert meta["general.type"] == "adapter" and meta["adapter.type"] == "lora"
    assert meta["adapter.lora.alpha"] == pytest.approx(8.0)
    assert meta["perfalign.data_snapshot_id"] == "pairs-test"
    names = ggufio.tensor_names(result.adapter_gguf)
    assert "blk.0.attn_q.weight.lora_a" in names and "blk.1.ffn_down.weight.lora_b" in names
    assert result.agreement is not None and result.agreement.passed, result.agreement
    assert result.agreement.adapter_effect > 0.01  # the adapter really changes the model
    assert result.agreement.effect_correlation > 0.99
    assert 0.99 < result.agreement.effect_slope < 1.01
    assert result.agreement.answer_tokens > 0  # the answer's tokens are compared, not only the prompt's
    card = json.loads(result.adapter_gguf.with_suffix(".json").read_text())
    assert card["lineage"]["data_snapshot_id"] == "pairs-test"


def test_a_wrongly_scaled_adapter_fails_the_check(trained: tuple[Path, Path, Path], tmp_path: Path) -> None:
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base, base_gguf, adapter_dir = trained
    wrong = ggufio.write_lora_adapter(
        tmp_path / "wrong.gguf",
        ggufio.lora_tensors_from_peft(load_file(str(adapter_dir / "adapter_model.safetensors"))),
        model_type="qwen2",
        n_blocks=2,
        alpha=32.0,
    )
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), str(adapter_dir)).eval()
    sequences = export.check_sequences(adapter_dir, AutoTokenizer.from_pretrained(base), 1)
    assert not export.compare(model, sequences, base_gguf, wrong, tolerance=0.01).passed


def test_an_adapter_exported_at_twice_its_scale_fails_even_at_a_loose_tolerance(
    trained: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base, base_gguf, adapter_dir = trained
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), str(adapter_dir)).eval()
    # A fine-tune's small effect, where log-probabilities move in proportion to the adapter's scale
    # (a large random adapter at twice its scale fails on its shape alone).
    for name, weight in model.named_parameters():
        if "lora_B" in name:
            weight.data *= 0.1
    tensors = ggufio.lora_tensors_from_peft(model.state_dict())
    sequences, answers = export.check_data(adapter_dir, AutoTokenizer.from_pretrained(base), 2)
    right = ggufio.write_lora_adapter(tmp_path / "right.gguf", tensors, model_type="qwen2", n_blocks=2, alpha=8.0)
    double = ggufio.write_lora_adapter(tmp_path / "double.gguf", tensors, model_type="qwen2", n_blocks=2, alpha=16.0)
    good = export.compare(model, sequences, base_gguf, right, tolerance=10.0, answer_tokens=answers)
    bad = export.compare(model, sequences, base_gguf, double, tolerance=10.0, answer_tokens=answers)
    assert good.passed and 0.9 <= good.effect_slope <= 1.1
    # Its effect has the right shape (a high correlation) but twice the size: the slope catches it.
    assert bad.adapter_effect > export.MIN_EFFECT
    assert bad.effect_correlation > 0.9 and bad.effect_slope > 1.5 and not bad.passed


def test_the_check_reads_training_length_sequences_with_their_answers(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    base = build_tiny_model(tmp_path / "base")
    tokenizer = AutoTokenizer.from_pretrained(base)
    data = tmp_path / "sft.jsonl"
    answer = "int f(int x) { return x + 1; } /* the answer */"
    long_prompt = "Optimize this function. " + "x" * 600
    row = {"messages": [{"role": "user", "content": long_prompt}, {"role": "assistant", "content": answer}]}
    data.write_text(json.dumps(row) + "\n")
    adapter_dir = tmp_path / "adapter"
    adapter_dir.mkdir()
    (adapter_dir / RUN_FILE).write_text(json.dumps({"data_sources": [str(data)], "config": {"max_length": 300}}))
    sequences, answers = export.check_data(adapter_dir, tokenizer, 3)
    assert len(sequences) == 1 and len(sequences[0]) == 300  # as long as training's, not 192
    assert "the answer" in tokenizer.decode(sequences[0])  # the end is kept: the answer is in
    assert 0 < answers < 300


def test_merged_q8_model_matches_the_adapter(trained: tuple[Path, Path, Path], tmp_path: Path) -> None:
    base, base_gguf, adapter_dir = trained
    result = export.main(
        ExportConfig(adapter_dir=str(adapter_dir), base_gguf=str(base_gguf), output=str(tmp_path / "a.gguf"), check_sequences=1, tolerance=0.05, merged_q8=True)
    )
    assert result.merged_gguf is not None
    assert ggufio.read_metadata(result.merged_gguf)["general.file_type"] == 7  # MOSTLY_Q8_0
    from transformers import AutoTokenizer

    sequences = export.check_sequences(adapter_dir, AutoTokenizer.from_pretrained(base), 1)
    merged = export.llama_logprobs(result.merged_gguf, None, sequences)[0]
    with_adapter = export.llama_logprobs(base_gguf, result.adapter_gguf, sequences)[0]
    assert sum(abs(a - b) for a, b in zip(merged, with_adapter)) / len(merged) < 0.05


def test_four_bit_merges_are_refused(trained: tuple[Path, Path, Path], tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base, _, _ = trained
    with pytest.raises(ggufio.GGUFExportError, match="4-bit"):
        ggufio.write_model_gguf(tmp_path / "m.gguf", AutoModelForCausalLM.from_pretrained(base), AutoTokenizer.from_pretrained(base), dtype="q4_k")


def test_a_llama_adapter_is_refused_with_the_reason(tmp_path: Path) -> None:
    zeros = np.zeros((4, 64), np.float32)
    tensor = ggufio.LoraTensor("model.layers.0.self_attn.q_proj", zeros, zeros.T.copy())
    with pytest.raises(ggufio.GGUFExportError, match="permutes the rows of a llama model's q and k"):
        ggufio.write_lora_adapter(tmp_path / "a.gguf", [tensor], model_type="llama", n_blocks=2, alpha=8.0)
    assert not (tmp_path / "a.gguf").exists()


def test_reward_model_adapters_are_not_exported(tmp_path: Path) -> None:
    folder = tmp_path / "rm"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "task_type": "SEQ_CLS", "r": 4}))
    (folder / "adapter_model.safetensors").write_bytes(b"")
    with pytest.raises(export.ExportError, match="reward model"):
        export.main(ExportConfig(adapter_dir=str(folder)))


def test_a_registered_adapter_carries_its_evaluation_and_decision(tmp_path: Path) -> None:
    from perfalign.server import registry

    adapter = tmp_path / "adapter.gguf"
    adapter.write_bytes(b"GGUF" + bytes(60))
    evaluation = tmp_path / "eval-run"
    evaluation.mkdir()
    (evaluation / "metrics.json").write_text(json.dumps({
        "trained": {"pass@1": 0.5, "suggestions": 80},
        "paired": [
            {"group": "all", "metric": "fast@1", "base": 0.16, "trained": 0.24, "difference": 0.08, "low": 0.01,
             "high": 0.16},
            {"group": "all", "metric": "gain", "base": 0.67, "trained": 0.93, "difference": 0.26, "low": 0.0,
             "high": 0.52, "base_geomean": 1.95, "trained_geomean": 2.53, "ratio": 1.3, "ratio_low": 1.0,
             "ratio_high": 1.68},
            {"group": "idiom-seen", "metric": "fast@1", "base": 0.1, "trained": 0.2, "difference": 0.1},
        ],
        "decision": {"rule": "fast@1's paired 95% interval above 0", "trained_wins": True},
    }))
    card = {"lineage": {"data_snapshot_id": "pairs-test"}, "training_config": {"lora_r": 4}, "check": {}}
    export.register("tiny-perf", "qwen2.5-coder-0.5b", adapter, card, eval_dir=evaluation)
    scores = registry.get_manifest("tiny-perf").eval
    assert (scores["fast@1_base"], scores["fast@1_trained"], scores["fast@1_low"]) == (0.16, 0.24, 0.01)
    assert (scores["gain_base"], scores["gain_ratio"], scores["gain_ratio_low"]) == (1.95, 1.3, 1.0)
    assert "gain_difference" not in scores and not any(k.startswith("idiom") for k in scores)
    assert scores["pass@1"] == 0.5 and scores["decision"].startswith("wins: ")
    assert scores["evaluation"] == str(evaluation)
    with pytest.raises(export.ExportError, match="metrics.json is missing"):
        export.register("tiny-perf-2", "qwen2.5-coder-0.5b", adapter, card, eval_dir=tmp_path / "no-eval")
    with pytest.raises(registry.RegistryError):
        registry.get_manifest("tiny-perf-2")  # nothing registered
    with pytest.raises(export.ExportError, match="metrics.json is missing"):  # said before any work is done
        export.main(ExportConfig(adapter_dir=str(tmp_path / "no-adapter"), register_as="tiny-perf-3",
                                 eval_dir=str(tmp_path / "no-eval")))


def test_an_adapter_registered_in_the_repository_names_its_base_gguf_by_file_name(tmp_path: Path) -> None:
    import tomllib

    models = tmp_path / "models"
    models.mkdir()
    adapter = models / "tiny-perf.gguf"
    adapter.write_bytes(b"GGUF" + bytes(60))
    card = {"lineage": {"base_gguf": "/home/someone/.cache/perfalign/models/base-q4_k_m.gguf",
                        "checkpoint": "checkpoints/tiny", "init_adapter": "checkpoints/tiny-sft"}}
    path = export.register("tiny-perf-repo", "qwen2.5-coder-0.5b", adapter, card, in_repo=True, repo_models_dir=models)
    manifest = tomllib.loads(path.read_text())
    assert path.parent == models and manifest["adapter"] == "tiny-perf.gguf"
    assert manifest["lineage"]["base_gguf"] == "base-q4_k_m.gguf"  # not a path on the machine that exported it
    assert (manifest["lineage"]["checkpoint"], manifest["lineage"]["init_adapter"]) == ("checkpoints/tiny",
                                                                                          "checkpoints/tiny-sft")

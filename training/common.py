"""What every trainer shares: the TRL arguments, the result, and the files saved beside an adapter.

A trained adapter folder holds the PEFT adapter, the tokenizer,
``perfalign-run.json`` (the full training config, the base, the data
snapshot id, how many of its rows a reviewer decided on, loss curve, time per
step and peak memory) — so any checkpoint can be traced to the data, the
decisions and the settings that made it.
"""
from __future__ import annotations

import json
import platform
import resource
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError
from perfalign.training import config as cfg
from perfalign.training.data import Splits, excluded_keys, load_splits

RUN_FILE = "perfalign-run.json"


class TrainingError(PerfalignError, RuntimeError):
    """A training run that cannot start or finish; the message says what to change."""


@dataclass
class TrainResult:
    command: str
    adapter_dir: Path
    base: str
    snapshot_id: str
    steps: int
    train_rows: int
    eval_rows: int
    seconds: float
    seconds_per_step: float
    peak_memory_gb: float
    losses: list[float] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    reviewed_rows: int = 0  # rows whose use a reviewer decided (prefs review / prefs label)

    def summary(self) -> str:
        loss = f"loss {self.losses[0]:.4f} -> {self.losses[-1]:.4f}" if self.losses else "no loss logged"
        extra = "".join(f", {k} {v:.4g}" if isinstance(v, float) else f", {k} {v}" for k, v in self.metrics.items())
        return (
            f"{self.command}: {self.steps} steps on {self.train_rows} rows"
            + (f" ({self.reviewed_rows} reviewed rows in the data)" if self.reviewed_rows else "")
            + f", {loss}, "
            f"{self.seconds_per_step:.2f} s/step, peak memory {self.peak_memory_gb:.2f} GB{extra}; "
            f"adapter in {self.adapter_dir}"
        )


def load_data(config: cfg.BaseConfig, kind: str, *, eval_fraction: float = 0.0, min_margin: float = 0.0) -> Splits:
    if not config.data:
        raise TrainingError("no training data given; pass --data FILE.jsonl (from `perfalign prefs export` or `perfalign train selfplay`)")
    splits = load_splits(
        config.data,
        kind,
        exclude=excluded_keys(config.exclude_functions),
        eval_fraction=eval_fraction,
        min_margin=min_margin,
        max_pairs_per_prompt=int(getattr(config, "max_pairs_per_prompt", 0)),
    )
    if not splits.train:
        raise TrainingError(f"every function in the data is held out for evaluation ({splits.summary()})")
    return splits


def trl_kwargs(config: cfg.BaseConfig, output_dir: Path) -> dict[str, Any]:
    """The TrainingArguments every TRL config shares, from our base config."""
    from perfalign.training.modeling import trainer_precision

    return {
        "output_dir": str(output_dir / "checkpoints"),
        "max_steps": config.max_steps,
        "learning_rate": config.learning_rate,
        "per_device_train_batch_size": config.per_device_batch_size,
        "gradient_accumulation_steps": config.gradient_accumulation_steps,
        "logging_steps": config.logging_steps,
        "save_strategy": "steps" if config.save_steps > 0 else "no",
        "save_steps": config.save_steps or 500,
        "seed": config.seed,
        "data_seed": config.seed,
        "report_to": [] if config.report_to == "none" else [config.report_to],
        **_checkpointing(config.gradient_checkpointing),
        "dataloader_pin_memory": _has_cuda(),
        "lr_scheduler_type": "constant_with_warmup",
        "warmup_steps": 0,
        "dataloader_num_workers": 0,
        "disable_tqdm": True,
        **trainer_precision(config.precision),
    }


def _has_cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _checkpointing(enabled: bool) -> dict[str, bool]:
    """Activation checkpointing under whichever name this transformers version uses."""
    if not enabled:
        return {}
    import dataclasses

    from transformers import TrainingArguments

    names = {f.name for f in dataclasses.fields(TrainingArguments)}
    return {"activation_checkpointing" if "activation_checkpointing" in names else "gradient_checkpointing": True}


def with_adapter(config: cfg.BaseConfig, model: Any, task_type: str = "CAUSAL_LM") -> tuple[Any, Any]:
    """(model, peft_config) for a TRL trainer: a fresh LoRA, or ``init_adapter`` made trainable again."""
    from perfalign.training.modeling import lora_config

    if not config.init_adapter:
        return model, lora_config(config, task_type=task_type)
    from peft import PeftModel

    if not (Path(config.init_adapter) / "adapter_config.json").is_file():
        raise TrainingError(f"--init-adapter {config.init_adapter} is not a PEFT adapter folder")
    return PeftModel.from_pretrained(model, config.init_adapter, is_trainable=True), None


def peak_memory_gb() -> float:
    """Peak resident memory of this process (and the GPU's peak allocation, if larger)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    try:
        import torch

        if torch.cuda.is_available():
            return max(rss, torch.cuda.max_memory_allocated() / 1024**3)
    except ImportError:
        pass
    return rss


def losses_of(trainer: Any) -> list[float]:
    return [float(e["loss"]) for e in trainer.state.log_history if "loss" in e]


def run_trainer(trainer: Any) -> float:
    start = time.monotonic()
    trainer.train()
    return time.monotonic() - start


def save(
    command: str,
    trainer: Any,
    config: Any,
    splits: Splits,
    seconds: float,
    *,
    metrics: dict[str, Any] | None = None,
) -> TrainResult:
    """Save the adapter, tokenizer and run record in ``<output_dir>/adapter``; return the result."""
    output = Path(config.output_dir)
    adapter_dir = output / "adapter"
    trainer.save_model(str(adapter_dir))  # written by the main process only
    main_process = bool(getattr(trainer.args, "should_save", True))
    if main_process and getattr(trainer, "processing_class", None) is not None:
        trainer.processing_class.save_pretrained(str(adapter_dir))
    steps = int(trainer.state.global_step)
    result = TrainResult(
        command=command,
        adapter_dir=adapter_dir,
        base=config.base,
        snapshot_id=splits.snapshot_id,
        steps=steps,
        train_rows=len(splits.train),
        eval_rows=len(splits.eval),
        seconds=seconds,
        seconds_per_step=seconds / max(steps, 1),
        peak_memory_gb=peak_memory_gb(),
        losses=losses_of(trainer),
        metrics=dict(metrics or {}),
        reviewed_rows=splits.reviewed_rows,
    )
    record = {
        "command": command,
        "config": {"kind": type(config).__name__, **asdict(config)},
        "base": config.base,
        "data_snapshot_id": splits.snapshot_id,
        "data_sources": splits.sources,
        "data_reviewed_rows": splits.reviewed_rows,
        "data_reviews": dict(splits.reviews),
        "data_capped_pairs": splits.capped_pairs,
        "eval_function_keys": sorted({r["function_key"] for r in splits.eval}),
        "result": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(result).items()},
        "host": platform.node(),
        "processes": int(getattr(trainer.args, "world_size", 1)),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if main_process:
        (adapter_dir / RUN_FILE).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    accelerator = getattr(trainer, "accelerator", None)
    if accelerator is not None:
        accelerator.wait_for_everyone()  # no process reads the adapter before it is complete
    return result


def read_run(adapter_dir: Path) -> dict[str, Any]:
    """The run record saved beside an adapter ({} when there is none)."""
    path = Path(adapter_dir) / RUN_FILE
    if not path.is_file():
        return {}
    return json.loads(path.read_text())

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
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError
from perfalign.server.files import write_atomic

from ..data import Splits, excluded_keys, load_splits
from ._base_config import BaseConfig

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
    resumed_from: int = 0  # the checkpoint's step this call went on from (0: a fresh start)
    complete: bool = True  # False: the time limit stopped it before max_steps; a rerun resumes

    def summary(self) -> str:
        loss = f"loss {self.losses[0]:.4f} -> {self.losses[-1]:.4f}" if self.losses else "no loss logged"
        extra = "".join(f", {k} {v:.4g}" if isinstance(v, float) else f", {k} {v}" for k, v in self.metrics.items())
        resumed = f" (resumed at step {self.resumed_from})" if self.resumed_from else ""
        stopped = ("; stopped at the time limit, checkpoint saved: run the same command again to go on"
                   if not self.complete else "")
        return (
            f"{self.command}: {self.steps} steps{resumed} on {self.train_rows} rows"
            + (f" ({self.reviewed_rows} reviewed rows in the data)" if self.reviewed_rows else "")
            + f", {loss}, "
            f"{self.seconds_per_step:.2f} s/step, peak memory {self.peak_memory_gb:.2f} GB{extra}; "
            f"adapter in {self.adapter_dir}{stopped}"
        )


def load_data(config: BaseConfig, kind: str, *, eval_fraction: float = 0.0, min_margin: float = 0.0) -> Splits:
    if not config.data:
        raise TrainingError("no training data given; pass --data FILE.jsonl (from `perfalign prefs export` or `perfalign train selfplay`)")
    splits = load_splits(
        config.data,
        kind,
        exclude=excluded_keys(config.exclude_functions),
        eval_fraction=eval_fraction,
        min_margin=min_margin,
        max_pairs_per_prompt=int(getattr(config, "max_pairs_per_prompt", 0)),
        exclude_rejected=list(getattr(config, "exclude_rejected", [])),
    )
    if not splits.train:
        raise TrainingError(f"every function in the data is held out for evaluation ({splits.summary()})")
    return splits


def trl_kwargs(config: BaseConfig, output_dir: Path) -> dict[str, Any]:
    """The TrainingArguments every TRL config shares, from our base config."""
    from ..modeling import trainer_precision

    return {
        "output_dir": str(output_dir / "checkpoints"),
        "max_steps": config.max_steps,
        "learning_rate": config.learning_rate,
        "per_device_train_batch_size": config.per_device_batch_size,
        "gradient_accumulation_steps": config.gradient_accumulation_steps,
        "logging_steps": config.logging_steps,
        "save_strategy": "steps" if config.save_steps > 0 else "no",
        "save_steps": config.save_steps or 500,
        "save_total_limit": 2,  # a resume needs the newest; one more in case the newest was cut short
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


def with_adapter(config: BaseConfig, model: Any, task_type: str = "CAUSAL_LM") -> tuple[Any, Any]:
    """(model, peft_config) for a TRL trainer: a fresh LoRA, or ``init_adapter`` made trainable again."""
    from ..modeling import lora_config

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


RESUME_FILE = "perfalign-resume.json"
# Settings that say how long a run goes on or how it reports, not what it learns: a rerun may change them and resume.
_RUN_LENGTH = {"max_steps", "time_limit_s", "save_steps", "logging_steps", "report_to", "resume", "output_dir"}


@dataclass
class Run:
    """How one call of a trainer went: its seconds, the step it resumed from, whether the time limit stopped it."""

    seconds: float
    resumed_from: int = 0
    stopped_at_limit: bool = False


def run_identity(config: BaseConfig, splits: Splits) -> dict[str, Any]:
    """What a checkpoint must share with a rerun to be resumed: the base, the data and every setting that shapes training."""
    settings = {k: v for k, v in asdict(config).items() if k not in _RUN_LENGTH}
    return json.loads(json.dumps({"kind": type(config).__name__, "base": config.base,
                                  "data_snapshot_id": splits.snapshot_id, "config": settings}, sort_keys=True))


def _with_settings_added_since(earlier: dict[str, Any], config: BaseConfig) -> dict[str, Any]:
    """``earlier`` (a checkpoint's identity) with each setting perfalign added since it was written at its default.

    A setting that did not exist when the checkpoint was saved shaped that run as its default does now, so a
    rerun that leaves it at the default is the same run; one that sets it is another run."""
    if not earlier.get("config"):
        return earlier
    defaults = json.loads(json.dumps(asdict(type(config)())))
    return {**earlier, "config": {**{k: defaults[k] for k in defaults if k not in _RUN_LENGTH}, **earlier["config"]}}


def _checkpoints(folder: Path) -> list[Path]:
    """Whole checkpoints in ``folder``, oldest first (one cut short while being written has no trainer state)."""
    found = [p for p in folder.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()
             and (p / "trainer_state.json").is_file() and (p / "optimizer.pt").is_file()]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]))


def checkpoint_to_resume(config: BaseConfig, splits: Splits) -> Path | None:
    """The newest checkpoint of this same run in ``OUTPUT_DIR/checkpoints``, or None to start afresh.

    Checkpoints of another run (other base, data or settings) are an error unless ``resume`` is off, which
    removes them; the run's identity is written beside the checkpoints for the next rerun to compare."""
    folder = Path(config.output_dir) / "checkpoints"
    identity = run_identity(config, splits)
    marker = folder / RESUME_FILE
    found = _checkpoints(folder)
    if found and config.resume:
        earlier = _with_settings_added_since(json.loads(marker.read_text()) if marker.is_file() else {}, config)
        if earlier != identity:
            differ = sorted(k for k in ("kind", "base", "data_snapshot_id") if earlier.get(k) != identity[k])
            differ += sorted(k for k in identity["config"] if earlier.get("config", {}).get(k) != identity["config"][k])
            raise TrainingError(
                f"{folder} holds checkpoints of another run ({', '.join(differ[:6]) or 'no record of its settings'} "
                "differ); pass another --output-dir, or --no-resume to discard them and start afresh")
        return found[-1]
    if not config.resume:
        for stale in folder.glob("checkpoint-*"):
            shutil.rmtree(stale, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(marker, json.dumps(identity, indent=2, sort_keys=True) + "\n")
    return None


def _limit_callback(limit_s: float) -> Any:
    """Saves a checkpoint at the last step, and stops the run (with a checkpoint) once ``limit_s`` have passed."""
    from transformers import TrainerCallback

    class Limit(TrainerCallback):  # type: ignore[misc]
        stopped = False
        start = 0.0

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.start = time.monotonic()

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            over = limit_s > 0 and time.monotonic() - self.start >= limit_s
            if over or state.global_step >= state.max_steps:
                control.should_save = True  # so that a rerun, or a rerun with more steps, resumes here
            if over and state.global_step < state.max_steps:
                control.should_training_stop = True
                self.stopped = True

    return Limit()


def run_trainer(trainer: Any, config: BaseConfig, splits: Splits) -> Run:
    """Train, resuming this run's newest checkpoint when there is one; stop at ``config.time_limit_s``."""
    checkpoint = checkpoint_to_resume(config, splits)
    limit = _limit_callback(float(config.time_limit_s))
    trainer.add_callback(limit)
    start = time.monotonic()
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    resumed_from = int(checkpoint.name.split("-")[-1]) if checkpoint else 0
    return Run(time.monotonic() - start, resumed_from, limit.stopped)


def save(
    command: str,
    trainer: Any,
    config: Any,
    splits: Splits,
    run: Run,
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
        seconds=run.seconds,
        seconds_per_step=run.seconds / max(steps - run.resumed_from, 1),
        peak_memory_gb=peak_memory_gb(),
        losses=losses_of(trainer),
        metrics=dict(metrics or {}),
        reviewed_rows=splits.reviewed_rows,
        resumed_from=run.resumed_from,
        complete=not run.stopped_at_limit,
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
        "data_excluded_by_rejected": splits.excluded_by_rejected,
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

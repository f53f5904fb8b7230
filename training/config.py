"""Configurations for every trainer and tool: one dataclass each, on a shared base.

Every field carries a help string; it becomes a CLI flag (``--learning-rate``)
and a key in a TOML or YAML file (``learning_rate``). A file may hold shared
keys at the top level and per-command tables (``[dpo]``, ``[grpo]``…);
the command's table wins over the top level and flags win over the file.
Unknown keys are errors, never ignored.
"""
from __future__ import annotations

import dataclasses
import json
import tomllib
import types
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class ConfigError(PerfalignError, ValueError):
    """A configuration file or value that cannot be used; the message names the key."""


def opt(default: Any, help: str, **kw: Any) -> Any:  # noqa: A002
    if isinstance(default, list):
        return field(default_factory=lambda d=default: list(d), metadata={"help": help, **kw})
    return field(default=default, metadata={"help": help, **kw})


@dataclass
class BaseConfig:
    """Shared by every trainer."""

    base: str = opt("qwen2.5-coder-0.5b", "Base model: a registered model name, a .gguf file, or a Hugging Face folder.")
    output_dir: str = opt("runs/latest", "Folder for checkpoints, the adapter, its config and card.")
    data: list[str] = opt([], "JSONL files from `perfalign prefs export` or `perfalign train selfplay`.")
    exclude_functions: list[str] = opt([], "JSONL files whose functions are never trained on (the evaluation set).")
    seed: int = opt(0, "Random seed for data order, LoRA init and sampling.")
    max_steps: int = opt(100, "Optimizer steps to run.")
    learning_rate: float = opt(5e-5, "Peak learning rate.")
    per_device_batch_size: int = opt(1, "Examples per device per step.")
    gradient_accumulation_steps: int = opt(4, "Micro-batches accumulated per optimizer step.")
    max_length: int = opt(1024, "Longest tokenised example; longer ones are truncated.")
    init_adapter: str = opt("", "Continue training this PEFT adapter folder instead of starting a fresh LoRA.")
    lora_r: int = opt(16, "LoRA rank.")
    lora_alpha: float = opt(32.0, "LoRA alpha (scale = alpha / rank).")
    lora_dropout: float = opt(0.0, "LoRA dropout.")
    lora_targets: list[str] = opt(LORA_TARGETS, "Modules that get LoRA weights.")
    precision: str = opt("auto", "auto (bf16 on a GPU that has it, else fp32), bf16, fp16 or fp32.")
    gradient_checkpointing: bool = opt(False, "Recompute activations to save memory.")
    logging_steps: int = opt(1, "Log every N steps.")
    save_steps: int = opt(0, "Save a checkpoint every N steps (0: only at the end).")
    time_limit_s: float = opt(0.0, "Stop after this many seconds of training with a checkpoint saved; rerun the same "
                                   "command to go on (0: no limit).")
    resume: bool = opt(True, "Go on from the newest checkpoint in OUTPUT_DIR/checkpoints when it is of this same "
                             "run (base, data, settings); --no-resume discards them.")
    cache_dequantized: bool = opt(True, "Keep a dequantized copy of a GGUF base so later runs load it fast.")
    report_to: str = opt("none", "Where trainer logs go: none, tensorboard, wandb …")


@dataclass
class SFTConfig(BaseConfig):
    """Supervised fine-tuning on the fastest verified rewrite of each function."""

    learning_rate: float = opt(1e-4, "Peak learning rate.")
    completion_only_loss: bool = opt(True, "Train on the answer only, not the prompt.")


@dataclass
class DPOConfig(BaseConfig):
    """Direct preference optimisation on (faster, slower-or-incorrect) pairs."""

    beta: float = opt(0.1, "DPO temperature: how far the policy may move from the base.")
    loss_type: str = opt("sigmoid", "DPO loss: sigmoid, ipo, hinge, robust …")
    sft_weight: float = opt(0.0, "Weight of a log-likelihood term on the chosen answer (as in RPO) that keeps DPO "
                                 "from lowering the chosen answers with the rejected (0 disables it).")
    min_margin: float = opt(0.0, "Skip pairs whose speedup margin is smaller.")
    max_pairs_per_prompt: int = opt(4, "Most pairs kept per prompt, spread over distinct answers (0: all).")
    exclude_rejected: list[str] = opt([], "Leave out the pairs whose rejected answer has this status: original (the "
                                          "function as written), or a verdict (incorrect, compile_error, ...).")


@dataclass
class RewardConfig(BaseConfig):
    """A reward model that predicts which of two versions is faster."""

    learning_rate: float = opt(1e-4, "Peak learning rate.")
    center_rewards_coefficient: float = opt(0.01, "Pull mean reward toward 0 (0 disables).")
    eval_fraction: float = opt(0.1, "Share of functions held out for pairwise accuracy when the data has no eval split.")
    use_margin: bool = opt(True, "Subtract each pair's margin from the reward difference (needs one on every row).")
    max_pairs_per_prompt: int = opt(4, "Most pairs kept per prompt, spread over distinct answers (0: all).")


@dataclass
class GRPOConfig(BaseConfig):
    """Online RL whose reward is the verifier's verdict on each sampled completion."""

    max_steps: int = opt(20, "Optimizer steps to run.")
    learning_rate: float = opt(1e-5, "Peak learning rate.")
    num_generations: int = opt(4, "Completions sampled per prompt (the group).")
    max_completion_length: int = opt(384, "Longest completion in tokens.")
    temperature: float = opt(0.8, "Sampling temperature.")
    beta: float = opt(0.0, "KL penalty toward the base model (0 disables it).")
    speedup_weight: float = opt(1.0, "Reward per unit of log2 of the interval's low end, for a faster candidate.")
    correct_bonus: float = opt(0.5, "Reward for a correct candidate that is not verified faster.")
    incorrect_reward: float = opt(0.1, "Reward for a candidate that built but is wrong, crashed or timed out.")
    faster_bonus: float = opt(0.5, "Added to correct_bonus for a verified-faster candidate, before its speed term.")
    max_reward: float = opt(4.0, "Upper clip of the execution reward.")
    length_penalty_weight: float = opt(0.0, "Weight of the penalty for completions longer than length_limit_chars (0 disables).")
    length_limit_chars: int = opt(2000, "Completions longer than this many characters are penalised.")
    reward_model: str = opt("", "Optional reward-model folder whose score is added to the execution reward.")
    reward_model_weight: float = opt(0.1, "Weight of the reward-model score.")
    verify_workers: int = opt(2, "Processes that verify completions in parallel.")
    verify_timeout_s: float = opt(60.0, "Wall-clock limit per verification.")
    threads: int = opt(2, "OpenMP threads when timing parallel candidates.")
    repetitions: int = opt(7, "Timed runs per candidate during RL (fewer than for suggestions).")
    use_vllm: bool = opt(False, "Generate with vLLM when it is installed.")


@dataclass
class SelfPlayConfig:
    """Generate preference pairs by sampling the current model and verifying every candidate."""

    base: str = opt("qwen2.5-coder-0.5b", "Model that samples: a registered name, a .gguf file, or a Hugging Face folder.")
    adapter: str = opt("", "Optional adapter: a GGUF LoRA (llama.cpp) or a PEFT folder (transformers).")
    engine: str = opt("auto", "Sampler: llama-cpp (GGUF), transformers (GPU or HF folder) or auto.")
    corpus: list[str] = opt([], "C/C++ files or folders of functions (default: the training corpus shipped with perfalign).")
    manifest: str = opt("", "A corpus manifest (JSONL): its train rows are played in their modes, with references.")
    output: str = opt("selfplay/pairs.jsonl", "Where the pairs go (RL prompts and per-candidate verdicts go beside it).")
    modes: list[str] = opt(["serial"], "serial and/or openmp.")
    samples: int = opt(4, "Candidates sampled per function and mode.")
    temperature: float = opt(0.8, "Sampling temperature.")
    max_tokens: int = opt(512, "Longest completion in tokens.")
    max_functions: int = opt(0, "Stop after this many functions (0: all).")
    threads: int = opt(2, "OpenMP threads when timing parallel candidates.")
    repetitions: int = opt(11, "Timed runs per candidate.")
    verify_workers: int = opt(2, "Processes that verify candidates in parallel.")
    eval_percent: int = opt(10, "Share of functions marked as eval split (by function hash).")
    seed: int = opt(0, "Sampling seed (each round and function derives a fresh one from it).")
    rounds: int = opt(1, "Rounds over the corpus, each with fresh seeds; a rerun resumes an interrupted one.")
    repairs: int = opt(0, "Feedback turns per function and round: this many failed samples (compile error, wrong "
                          "result, crash, no whole function) are each shown what went wrong, as the server's feedback "
                          "rounds do, and answer once; an answer that fixes one is a repair pair (0: none).")
    time_limit_s: float = opt(0.0, "Start no function after this many seconds (0: no limit); the same command "
                                   "goes on where it stopped.")


@dataclass
class CorpusConfig:
    """Generate the training corpus from the families of slow code; with --verify keep only what is faster."""

    out: str = opt("", "Folder for the corpus and its manifest (default: the corpus shipped with perfalign).")
    seed: int = opt(0, "Seed of the draw (the same seed gives the same functions).")
    count: int = opt(350, "Functions to draw, spread evenly over the families.")
    families: list[str] = opt([], "Only these families (default: all).")
    eval_sets: list[str] = opt([], "More folders of evaluation functions to deduplicate against (examples/ always).")
    threshold: float = opt(0.6, "Token 5-gram Jaccard similarity at or above which a draw is a near-duplicate.")
    verify: bool = opt(False, "Verify each reference against its original; keep only those found faster.")
    jobs: int = opt(1, "Functions verified in parallel.")
    max_verify: int = opt(0, "Verify at most this many functions in this run (0: all pending).")
    reverify: list[str] = opt([], "Verify again the functions whose recorded status is this (e.g. not_significant).")
    verbose: bool = opt(False, "Print each verdict as it arrives.")
    write_data: str = opt("", "Also write the train split's verified-faster references as training data (sft.jsonl, "
                              "pairs.jsonl, ...) to this folder.")
    threads: int = opt(2, "OpenMP threads named in the prompts of the written data (as in self-play).")


@dataclass
class ExportConfig:
    """Write the trained LoRA as a GGUF adapter, check it in llama.cpp and register it."""

    adapter_dir: str = opt("runs/latest/adapter", "PEFT adapter folder written by a trainer.")
    base: str = opt("", "Base model (default: the one recorded with the adapter).")
    base_gguf: str = opt("", "The base GGUF the server serves (default: resolved from the base name).")
    output: str = opt("", "Adapter GGUF path (default: <adapter_dir>/../adapter.gguf).")
    dtype: str = opt("f16", "Adapter tensor type: f16 or f32.")
    check_sequences: int = opt(3, "Sequences on which llama.cpp and PEFT log-probabilities are compared (0 skips).")
    tolerance: float = opt(0.15, "Largest mean |log-prob difference| per token accepted (quantized base vs dequantized weights).")
    merged_q8: bool = opt(False, "Also write base+adapter merged into one Q8_0 GGUF.")
    register_as: str = opt("", "Register the adapter under this model name (empty: do not register).")
    in_repo: bool = opt(False, "Register into the repository's models/ folder instead of the user's.")
    eval_dir: str = opt("", "The adapter's paired evaluation (a `perfalign train eval` folder); its scores go into "
                            "the registered manifest (default: <output>/../eval).")


@dataclass
class EvalConfig:
    """Both models sample the same held-out functions with the same prompts and seeds; one verifier per function."""

    base: str = opt("qwen2.5-coder-0.5b", "Base model: a registered name, a .gguf file, or a Hugging Face folder.")
    adapter: str = opt("", "Trained adapter (GGUF LoRA or PEFT folder); evaluated beside the base.")
    engine: str = opt("llama-cpp", "Sampler: llama-cpp (the served GGUF, with the adapter), transformers or auto.")
    functions: list[str] = opt([], "Held-out C/C++ files or folders; each file's last function (default: examples/).")
    manifest: str = opt("", "A corpus manifest: its eval rows are evaluated beside the functions, each in its mode.")
    max_functions: int = opt(0, "Evaluate the first N functions only (0: all); both models get the same ones.")
    per_family: int = opt(0, "At most N of the manifest's eval functions per family, chosen by a hash of each "
                             "function (0: all).")
    modes: list[str] = opt(["own"], "own (each function in its mode), or serial and/or openmp for every function.")
    samples: int = opt(8, "Candidates per function and model.")
    ks: list[int] = opt([1, 4, 8], "The k values of build@k, pass@k and speedup_n@k in the table.")
    gain_samples: int = opt(4, "Samples a user is shown the best of, for the gain metric and its speedup_n@k.")
    gain_cap: float = opt(10.0, "Largest speedup a function counts in the gain metric.")
    bootstrap_resamples: int = opt(10000, "Bootstrap resamples for the paired 95% intervals.")
    temperature: float = opt(0.8, "Sampling temperature.")
    max_tokens: int = opt(512, "Longest completion in tokens.")
    threads: int = opt(2, "OpenMP threads when timing parallel candidates.")
    repetitions: int = opt(11, "Timed runs per candidate.")
    verify_workers: int = opt(2, "Processes that verify candidates in parallel.")
    output_dir: str = opt("runs/eval", "Where the table, plots and verdicts go (a rerun resumes there).")
    seed: int = opt(0, "Sampling seed (each function's seed derives from it and the function).")
    base_samples: str = opt("", "An earlier evaluation's folder: the base's candidates there (same base GGUF, "
                                "llama.cpp build, prompt version, seed, temperature, token limit and samples) are "
                                "verified again instead of sampled anew (their replies extracted again, or, where "
                                "the replies were not kept, only if extracted by today's extractor); functions it "
                                "lacks are sampled.")


CONFIGS: dict[str, type] = {
    "sft": SFTConfig,
    "dpo": DPOConfig,
    "reward": RewardConfig,
    "grpo": GRPOConfig,
    "selfplay": SelfPlayConfig,
    "export": ExportConfig,
    "eval": EvalConfig,
    "corpus": CorpusConfig,
}


def _hint(cls: type, name: str) -> Any:
    return typing.get_type_hints(cls)[name]


def _coerce(cls: type, name: str, value: Any) -> Any:
    hint = _hint(cls, name)
    origin = typing.get_origin(hint)
    if origin is list:
        (item,) = typing.get_args(hint)
        if isinstance(value, str):
            value = [v for v in value.replace(",", " ").split() if v]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{name} must be a list, got {value!r}")
        try:
            return [item(v) for v in value]
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be a list of {item.__name__}, got {value!r}") from None
    if origin in (types.UnionType, typing.Union):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
        if value is None:
            return None
    if hint is bool:
        if isinstance(value, str) and value.lower() in {"true", "false", "1", "0", "yes", "no"}:
            return value.lower() in {"true", "1", "yes"}
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool):
            raise ConfigError(f"{name} must be a whole number, got {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be a whole number, got {value!r}") from None
    if hint is float:
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be a number, got {value!r}") from None
    return str(value)


def read_file(path: Path) -> dict[str, Any]:
    """Parse a TOML (``.toml``) or YAML (``.yaml``/``.yml``) config file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    if path.suffix in {".yaml", ".yml"}:
        import yaml

        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a table of settings")
    return data


def build(cls: type, command: str, file_data: dict[str, Any] | None = None, overrides: dict[str, Any] | None = None) -> Any:
    """``cls`` from defaults, then the file's top level and ``[command]`` table, then ``overrides``."""
    names = {f.name for f in fields(cls)}
    values: dict[str, Any] = {}
    file_data = file_data or {}
    top = {k: v for k, v in file_data.items() if not isinstance(v, dict)}
    table = file_data.get(command, {})
    other_tables = {k for k, v in file_data.items() if isinstance(v, dict)} - {command} - set(CONFIGS)
    if other_tables:
        raise ConfigError(f"unknown table(s) {', '.join(sorted(other_tables))}; known: {', '.join(CONFIGS)}")
    for source in (top, table):
        for key, value in source.items():
            name = key.replace("-", "_")
            if name not in names:
                if source is top:
                    continue  # a shared key another command uses
                raise ConfigError(f"unknown key {key!r} for '{command}'; known: {', '.join(sorted(names))}")
            values[name] = _coerce(cls, name, value)
    unknown_top = {k for k in top if k.replace("-", "_") not in set().union(*(_names(c) for c in CONFIGS.values()))}
    if unknown_top:
        raise ConfigError(f"unknown key(s) {', '.join(sorted(unknown_top))}")
    for key, value in (overrides or {}).items():
        if value is None or value == ():
            continue
        if key not in names:
            raise ConfigError(f"unknown option {key!r} for '{command}'")
        values[key] = _coerce(cls, key, list(value) if isinstance(value, tuple) else value)
    return cls(**values)


def _names(cls: type) -> set[str]:
    return {f.name for f in fields(cls)}


def to_dict(config: Any) -> dict[str, Any]:
    return dataclasses.asdict(config)


def save(config: Any, path: Path) -> Path:
    """Store a config as JSON beside what it produced, so the run can be repeated."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"kind": type(config).__name__, **to_dict(config)}, indent=2, sort_keys=True) + "\n")
    return path


def help_of(cls: type, name: str) -> str:
    for f in fields(cls):
        if f.name == name:
            return str(f.metadata.get("help", ""))
    raise KeyError(name)

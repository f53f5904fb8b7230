"""``perfalign train``: sft | dpo | reward | grpo | selfplay | export | eval | corpus.

Every option comes from the command's config dataclass (:data:`CONFIGS`, each in its stage package),
so a flag, a TOML/YAML key and the dataclass field are the same thing. Heavy
libraries (torch, transformers, TRL, PEFT) load only when a command runs.
"""
from __future__ import annotations

import errno
import importlib
import json
import os
import typing
from dataclasses import MISSING, asdict, fields
from pathlib import Path
from typing import Any

import click

from perfalign.server.errors import describe, one_line

from . import config as cfg
from .corpus_gen import CorpusConfig
from .evaluate import EvalConfig
from .export import ExportConfig
from .selfplay import SelfPlayConfig
from .trainers import DPOConfig, GRPOConfig, RewardConfig, SFTConfig

# command -> its settings (every option of the command is a field)
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
# command -> (stage package, its function that takes the config, one-line help)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "sft": ("trainers", "train_sft", "Supervised fine-tuning on the fastest verified rewrites."),
    "dpo": ("trainers", "train_dpo", "DPO on performance pairs (faster over not faster, slower or incorrect)."),
    "reward": ("trainers", "train_reward", "Train a reward model that ranks the faster version higher."),
    "grpo": ("trainers", "train_grpo", "Online RL (GRPO) whose reward runs the verifier on each sample."),
    "selfplay": ("selfplay", "main", "Sample the model on a corpus, verify everything, write pairs."),
    "export": ("export", "main", "Write the adapter as GGUF, check it in llama.cpp, register it."),
    "eval": ("evaluate", "main", "Paired evaluation of base and trained model: fast@1, pass@1, gain."),
    "corpus": ("corpus_gen", "main", "Generate the training corpus of slow functions with faster references."),
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _options(cls: type) -> list[click.Option]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        hint = hints[f.name]
        help_text = str(f.metadata.get("help", ""))
        default = f.default if f.default is not MISSING else (f.default_factory() if f.default_factory is not MISSING else None)  # type: ignore[misc]
        show = f"(default: {default})" if default not in (None, "", []) else ""
        help_text = f"{help_text} {show}".strip()
        if typing.get_origin(hint) is list:
            (item,) = typing.get_args(hint)
            out.append(click.Option([_flag(f.name)], type=item, multiple=True, default=None, help=help_text + " Repeat for several."))
        elif hint is bool:
            out.append(click.Option([f"{_flag(f.name)}/--no-{f.name.replace('_', '-')}"], default=None, help=help_text))
        else:
            kind = {int: int, float: float}.get(hint, str)
            out.append(click.Option([_flag(f.name)], type=kind, default=None, help=help_text))
    return out


def _as_jsonable(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {k: _as_jsonable(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {k: _as_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def _run(command: str, config_file: Path | None, as_json: bool, overrides: dict[str, Any]) -> None:
    package, function, _ = COMMANDS[command]
    try:
        file_data = cfg.read_file(config_file) if config_file else {}
        config = cfg.build(CONFIGS, command, file_data, overrides)
    except cfg.ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        module = importlib.import_module(f".{package}", __package__)
    except ModuleNotFoundError as exc:
        raise click.ClickException(
            f"'perfalign train {command}' needs the package {exc.name!r}; install it with: pip install 'perfalign[train]'"
        ) from None
    try:
        result = getattr(module, function)(config)
    except KeyboardInterrupt:
        raise click.ClickException("interrupted; nothing was registered (a trainer goes on from its last checkpoint "
                                   "when the same command is run again)") from None
    except Exception as exc:  # every failure reaches the user as one actionable line
        raise click.ClickException(_explain(exc)) from None
    if os.environ.get("RANK", "0") != "0":
        return  # under `accelerate launch`, the main process reports
    if as_json:
        click.echo(json.dumps(_as_jsonable(result), default=str))
    else:
        click.echo(result.summary() if hasattr(result, "summary") else str(result))


def _explain(exc: BaseException) -> str:
    """What the user is told: perfalign's own errors as they are, memory trouble with what to lower, anything else
    as a bug with its traceback in the error log."""
    text = one_line(exc)
    if (isinstance(exc, OSError) and exc.errno == errno.ENOSPC) or "no space left on device" in text.lower():
        where = f" writing {exc.filename}" if isinstance(exc, OSError) and exc.filename else ""
        return (f"the disk is full{where}; free some space and run the same command again: training goes on "
                "from its last whole checkpoint, and nothing half-written is registered")
    if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in text.lower():
        return f"out of memory: {text[:200]}; lower --per-device-batch-size or --max-length, or use --gradient-checkpointing"
    return describe(exc, "perfalign train")


def _make(command: str) -> click.Command:
    cls = CONFIGS[command]
    _, _, help_text = COMMANDS[command]

    def callback(config_file: Path | None, as_json: bool, **overrides: Any) -> None:
        _run(command, config_file, as_json, overrides)

    params: list[click.Parameter] = [
        click.Option(["--config", "config_file"], type=click.Path(path_type=Path, dir_okay=False), help="TOML or YAML file with these options (flags win)."),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the result as one JSON document."),
        *_options(cls),
    ]
    return click.Command(command, callback=callback, params=params, help=help_text + "\n\n" + (cls.__doc__ or "").strip(), short_help=help_text)


@click.group()
def train() -> None:
    """Train, export and evaluate performance-aligned models (needs pip install 'perfalign[train]')."""


for _name in COMMANDS:
    train.add_command(_make(_name))

"""``perfalign train eval``: the paper's metrics for the base and the trained model, side by side.

For each held-out function and mode, each model samples ``samples`` candidates
with the server's prompt; every candidate is verified (compile, check, time).
The estimators of :mod:`perfalign.training.metrics` then give build@k, pass@k
and speedup_n@k, plus the geometric-mean speedup of the verified suggestions.

Written to ``output_dir``: ``metrics.json``, ``table.md``, ``plot.svg``,
``verdicts.jsonl`` (every candidate) and ``functions.jsonl`` (the function
keys, to pass to trainers as ``--exclude-functions``).
"""
from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError
from perfalign.server.verdict import CORRECT, Status, Verdict
from perfalign.training import metrics
from perfalign.training.config import EvalConfig
from perfalign.training.data import write_jsonl

REPO_EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BUILT = CORRECT | {Status.INCORRECT, Status.TIMEOUT, Status.CRASH}


class EvalError(PerfalignError, RuntimeError):
    """An evaluation that cannot run; the message says what to change."""


@dataclass
class EvalResult:
    output_dir: Path
    reports: dict[str, metrics.Report] = field(default_factory=dict)
    table: str = ""
    seconds: float = 0.0
    card: Path | None = None  # MODEL_CARD.md, when the adapter is an exported GGUF

    def summary(self) -> str:
        card = f"; model card {self.card}" if self.card else ""
        return f"{self.table}\nwritten to {self.output_dir} in {self.seconds:.0f} s{card}"


def sample_of(verdict: Verdict) -> metrics.Sample:
    return metrics.Sample(
        built=verdict.status in BUILT,
        correct=verdict.status in CORRECT,
        speedup=verdict.speedup,
        suggested=verdict.status is Status.FASTER,
    )


def table(reports: dict[str, metrics.Report]) -> str:
    """A Markdown table: one row per metric, one column per model."""
    names = list(reports)
    first = next(iter(reports.values()))
    rows = [("problems", lambda r: str(r.problems)), ("samples per problem", lambda r: str(r.samples_per_problem))]
    for k in first.build:
        rows.append((f"build@{k}", lambda r, k=k: f"{r.build[k]:.3f}"))
    for k in first.passed:
        rows.append((f"pass@{k}", lambda r, k=k: f"{r.passed[k]:.3f}"))
    for k in first.speedup:
        rows.append((f"speedup_n@{k}", lambda r, k=k: f"{r.speedup[k]:.3f}"))
    rows.append(("geomean speedup of suggestions", lambda r: f"{r.suggestion_geomean:.2f}x" if r.suggestion_geomean else "-"))
    rows.append(("suggestions (verified faster)", lambda r: str(r.suggestions)))
    lines = ["| metric | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for label, fn in rows:
        lines.append(f"| {label} | " + " | ".join(fn(reports[n]) for n in names) + " |")
    return "\n".join(lines)


def plot_svg(reports: dict[str, metrics.Report], title: str = "base vs trained") -> str:
    """Grouped bars of pass@k and speedup_n@k per model, as a standalone SVG."""
    colours = ["#8c8c8c", "#1f77b4", "#ff7f0e", "#2ca02c"]
    first = next(iter(reports.values()))
    groups = [(f"pass@{k}", lambda r, k=k: r.passed[k]) for k in first.passed]
    groups += [(f"speedup_n@{k}", lambda r, k=k: r.speedup[k]) for k in first.speedup]
    values = [[fn(r) for r in reports.values()] for _, fn in groups]
    top = max([1.0] + [v for vs in values for v in vs]) * 1.15
    width, height, left, bottom = 80 + 90 * len(groups), 300, 50, 40
    plot_h = height - bottom - 40
    bar = 70 / max(len(reports), 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
        f'<text x="{left}" y="18" font-size="13">{title}</text>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="black"/>',
    ]
    one = height - bottom - plot_h * 1.0 / top
    parts.append(f'<line x1="{left}" y1="{one:.1f}" x2="{width - 10}" y2="{one:.1f}" stroke="#bbb" stroke-dasharray="4"/>')
    parts.append(f'<text x="{left - 28}" y="{one + 4:.1f}">1.0</text>')
    for gi, ((label, _), vs) in enumerate(zip(groups, values, strict=True)):
        x0 = left + 10 + gi * 90
        for mi, v in enumerate(vs):
            h = plot_h * v / top
            x = x0 + mi * bar
            parts.append(f'<rect x="{x:.1f}" y="{height - bottom - h:.1f}" width="{bar - 2:.1f}" height="{h:.1f}" fill="{colours[mi % len(colours)]}"/>')
            parts.append(f'<text x="{x:.1f}" y="{height - bottom - h - 3:.1f}" font-size="9">{v:.2f}</text>')
        parts.append(f'<text x="{x0}" y="{height - bottom + 15}">{label}</text>')
    for mi, name in enumerate(reports):
        y = height - 8
        x = left + mi * 160
        parts.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colours[mi % len(colours)]}"/>')
        parts.append(f'<text x="{x + 14}" y="{y}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def default_functions(paths: list[str]) -> list[str]:
    if paths:
        return paths
    if REPO_EXAMPLES.is_dir():
        return [str(REPO_EXAMPLES)]
    raise EvalError("no held-out functions given; pass --functions FILE_OR_FOLDER (the project's examples/ are not installed)")


def evaluate_model(
    sampler: Any, config: EvalConfig, settings: Any, progress: Callable[[str], None] = lambda m: None
) -> tuple[list[list[metrics.Sample]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Samples per problem, the per-candidate rows, and the function rows, for one model."""
    from perfalign.training.rewards import extract_code
    from perfalign.training.selfplay import build_messages, function_key_for, tasks, verify_all

    per_problem: list[list[metrics.Sample]] = []
    rows: list[dict[str, Any]] = []
    functions: list[dict[str, Any]] = []
    considered = 0
    for index, task in enumerate(tasks(default_functions(config.functions))):
        if isinstance(task, str):
            continue
        if config.max_functions and considered >= config.max_functions:
            break
        considered += 1
        for mode in config.modes:
            progress(f"{sampler.name}: {task.info.name} ({mode})")
            messages, _ = build_messages(task, mode, settings)
            raws = sampler.generate(messages, config.samples, max_tokens=config.max_tokens, temperature=config.temperature, seed=config.seed + index)
            codes = [extract_code(r, task.info, task.source) for r in raws]
            verdicts = verify_all(task, mode, codes, settings, config.verify_workers)
            if verdicts and all(v.status is Status.UNSUPPORTED and "original" in v.detail for v in verdicts):
                continue  # the function itself cannot be harnessed: not a problem for the model
            key = function_key_for(task)
            per_problem.append([sample_of(v) for v in verdicts])
            functions.append({"function_key": key, "function": task.info.name, "file": task.path.name, "mode": mode})
            rows += [
                {"model": sampler.name, "function": task.info.name, "function_key": key, "mode": mode, "code": c, **v.to_dict()}
                for c, v in zip(codes, verdicts, strict=True)
            ]
    if not per_problem:
        raise EvalError("none of the held-out functions could be harnessed; check them with `perfalign verify`")
    return per_problem, rows, functions


def run(config: EvalConfig, samplers: dict[str, Any] | None = None, progress: Callable[[str], None] = lambda m: None) -> EvalResult:
    """Evaluate ``samplers`` (default: the base and, if given, base + adapter) on the same problems."""
    from perfalign.server.settings import Settings
    from perfalign.training.sampling import open_sampler

    settings = Settings().with_values(threads=config.threads, repetitions=config.repetitions, log_to_store=False)
    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    result = EvalResult(output_dir=out)
    all_rows: list[dict[str, Any]] = []
    functions: list[dict[str, Any]] = []
    names = ["base"] + (["trained"] if config.adapter else [])
    if samplers is None:
        from perfalign.training.sampling import check_adapter

        check_adapter(config.base, config.adapter, config.engine)  # before the base's long run
    for name in names:
        own = samplers is None
        sampler = samplers[name] if samplers else open_sampler(config.base, config.adapter if name == "trained" else "", config.engine)
        try:
            per_problem, rows, functions = evaluate_model(sampler, config, settings, progress)
        finally:
            if own:
                sampler.close()
        result.reports[name] = metrics.report(per_problem, config.ks)
        all_rows += [dict(r, model=name) for r in rows]
    result.table = table(result.reports)
    result.seconds = time.monotonic() - start
    (out / "metrics.json").write_text(
        json.dumps(
            {
                **{name: r.to_dict() for name, r in result.reports.items()},
                "config": dataclasses.asdict(config),
                "seconds": result.seconds,
            },
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )
    (out / "table.md").write_text(result.table + "\n")
    (out / "plot.svg").write_text(plot_svg(result.reports))
    write_jsonl(out / "verdicts.jsonl", all_rows)
    write_jsonl(out / "functions.jsonl", functions)
    if config.adapter:
        result.card = write_card(config.adapter, config.base, out)
    return result


def write_card(adapter: str, base: str, out: Path) -> Path | None:
    """MODEL_CARD.md and card.json beside the evaluation, for an adapter exported by ``perfalign train export``.

    The export's record (``<adapter>.json``) names the training run, whose
    record gives the stage; the card carries this evaluation's table and plot.
    """
    from perfalign.training import card as cardlib
    from perfalign.training.common import RUN_FILE
    from perfalign.training.sampling import gguf_adapter

    gguf = gguf_adapter(adapter)
    if gguf is None or not gguf.with_suffix(".json").is_file():
        return None
    exported = json.loads(gguf.with_suffix(".json").read_text())
    run_dir = Path(exported.get("training_config", {}).get("output_dir", "")) / "adapter"
    stages = [run_dir] if (run_dir / RUN_FILE).is_file() else []
    lineage = exported.get("lineage", {})
    name = adapter if gguf != Path(adapter) else gguf.stem
    export = {"adapter_gguf": str(gguf), "base_gguf": lineage.get("base_gguf", ""), "check": exported.get("check", {})}
    notes = [] if stages else [f"the training run's record ({run_dir}) was not found"]
    card = cardlib.build(name=name, base=lineage.get("base_model", base), stages=stages, export=export,
                         evaluation_dir=out, notes=notes)
    return cardlib.write(out, card, plot="plot.svg")


def main(config: EvalConfig) -> EvalResult:
    return run(config, progress=lambda message: print(message, file=sys.stderr, flush=True))

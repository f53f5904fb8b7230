"""The model card: what a trained adapter is, how it was made, and how it scores.

``MODEL_CARD.md`` and ``card.json`` are written next to the adapter GGUF. They
name the base, each training stage with its config and data snapshot, the
export check, and the base-vs-trained evaluation table and plot.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ..trainers import read_run


def build(
    *,
    name: str,
    base: str,
    stages: list[Path],
    export: dict[str, Any] | None = None,
    evaluation_dir: Path | None = None,
    timings: dict[str, float] | None = None,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """The card as data, from the adapter folders of each stage (in order) and the eval folder."""
    runs = []
    for folder in stages:
        run = read_run(folder)
        if run:
            runs.append(
                {
                    "command": run.get("command"),
                    "adapter": str(folder),
                    "data_snapshot_id": run.get("data_snapshot_id"),
                    "data_sources": run.get("data_sources", []),
                    "config": run.get("config", {}),
                    "result": {k: v for k, v in run.get("result", {}).items() if k != "losses"},
                    "losses": run.get("result", {}).get("losses", []),
                }
            )
    evaluation: dict[str, Any] = {}
    table = ""
    if evaluation_dir is not None and (evaluation_dir / "metrics.json").is_file():
        evaluation = json.loads((evaluation_dir / "metrics.json").read_text())
        table = (evaluation_dir / "table.md").read_text() if (evaluation_dir / "table.md").is_file() else ""
    return {
        "name": name,
        "base": base,
        "stages": runs,
        "export": export or {},
        "evaluation": evaluation,
        "evaluation_table": table,
        "timings_s": timings or {},
        "notes": notes or [],
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def markdown(card: dict[str, Any], plot: str | None = None) -> str:
    lines = [f"# {card['name']}", "", f"A LoRA adapter on `{card['base']}`, trained by perfalign to prefer code that is verified faster.", ""]
    lines += ["## How it was made", ""]
    for i, stage in enumerate(card["stages"], 1):
        result = stage["result"]
        losses = stage["losses"]
        loss = f"loss {losses[0]:.4f} → {losses[-1]:.4f}" if losses else "no loss logged"
        lines.append(
            f"{i}. `perfalign train {stage['command']}` on data snapshot `{stage['data_snapshot_id']}` "
            f"({result.get('train_rows', '?')} rows): {result.get('steps', '?')} steps, {loss}, "
            f"{result.get('seconds_per_step', 0):.2f} s/step, peak memory {result.get('peak_memory_gb', 0):.1f} GB"
        )
    lines.append("")
    if card["export"]:
        check = card["export"].get("check") or {}
        lines += ["## Export", ""]
        lines.append(f"GGUF adapter `{card['export'].get('adapter_gguf', '')}` on `{card['export'].get('base_gguf', '')}`.")
        if check:
            lines.append(
                f"llama.cpp vs PEFT on {check.get('sequences')} sequences: mean |Δ log p| {check.get('mean_abs_diff', 0):.4f} "
                f"(base alone {check.get('base_mean_abs_diff', 0):.4f}); adapter effect {check.get('adapter_effect', 0):.4f}, "
                f"reproduced within {check.get('effect_mean_abs_diff', 0):.4f}; {'passed' if check.get('passed') else 'FAILED'}."
            )
        else:
            lines.append("The llama.cpp check did not run here (llama-cpp-python absent); run `perfalign train export` where it is.")
        lines.append("")
    if card["evaluation_table"]:
        lines += ["## Evaluation (held-out functions)", "", card["evaluation_table"].strip(), ""]
        if plot:
            lines += [f"![base vs trained]({plot})", ""]
        lines.append(
            "speedup_n@k is the expected best speedup over k samples, with incorrect samples counted as 0; "
            "pass@k and build@k use the unbiased estimator over n samples."
        )
        lines.append("")
    if card["timings_s"]:
        lines += ["## Time", "", "| stage | seconds |", "|---|---|"]
        lines += [f"| {k} | {v:.0f} |" for k, v in card["timings_s"].items()]
        lines.append("")
    if card["notes"]:
        lines += ["## Notes", ""] + [f"- {n}" for n in card["notes"]] + [""]
    lines += ["## Configs", "", "```json", json.dumps([s["config"] for s in card["stages"]], indent=1, sort_keys=True), "```", ""]
    return "\n".join(lines)


def write(folder: Path, card: dict[str, Any], plot: str | None = None) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "card.json").write_text(json.dumps(card, indent=2, sort_keys=True, default=str) + "\n")
    path = folder / "MODEL_CARD.md"
    path.write_text(markdown(card, plot))
    return path

"""``perfalign train eval``: a paired evaluation of the base and the trained model on held-out functions.

Each held-out function is evaluated in its own mode: the project's
``examples/`` (the OpenMP ones in ``openmp``, as the benchmarks run them,
reported as *idiom-seen*: the training corpus has the same idioms) and the
``eval`` rows of a corpus manifest (whole held-out families: *idiom-disjoint*).
For each function both models get the same prompt and seed and sample
``samples`` candidates each; one prepared verifier per function judges all of
them, the two models' candidates interleaved, so the problem size and the
machine's load are the same for both. The metrics are fixed before the run
(:mod:`._paired`): fast@1 (primary), pass@1, the user's gain
and speedup_n@k, with per-function paired differences and 95% bootstrap
intervals over functions; the paper's build@k, pass@k and speedup_n@k are in
the table too.

Written to ``output_dir``: ``eval-run.json`` (what is evaluated: the GGUF and
adapter hashes, the prompt version, the llama.cpp build, the settings),
``verdicts.jsonl`` (every candidate with the model's reply, appended function
by function, so an interrupted run resumes where it stopped), ``metrics.json``, ``table.md``,
``plot.svg``, ``paired.svg`` and ``functions.jsonl`` (per-function metrics and
keys, to pass to trainers as ``--exclude-functions``).

``base_samples`` names an earlier evaluation whose base candidates were sampled
the same way (the same GGUF, llama.cpp build, prompt version, seeds, temperature
and token limit): those are verified again beside the adapter's instead of
sampled anew, which halves the sampling of each later adapter's evaluation.
Both models' replies go through the same extractor: the earlier replies are
extracted again, and an evaluation that did not keep its replies is used only
if its extractor version (``EXTRACT_VERSION``) is today's.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError
from perfalign.server.verdict import CORRECT, Status, Verdict
from ..data import read_jsonl, write_jsonl
from . import _metrics as metrics
from . import _paired as paired
from ._config import EvalConfig

REPO_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUILT = CORRECT | {Status.INCORRECT, Status.TIMEOUT, Status.CRASH}
# The examples the benchmarks run in OpenMP mode (benchmarks/optimize_bench.py); the others run serially.
OPENMP_EXAMPLES = frozenset(
    {"saxpy", "mandelbrot", "count_in_range", "pair_energy", "vector_norm", "dot_checked", "blur_1d", "heat_3d"}
)
RUN_FILE = "eval-run.json"
MODELS = ("base", "trained")


class EvalError(PerfalignError, RuntimeError):
    """An evaluation that cannot run; the message says what to change."""


@dataclass
class EvalResult:
    output_dir: Path
    reports: dict[str, metrics.Report] = field(default_factory=dict)
    comparisons: list[paired.Comparison] = field(default_factory=list)
    decision: dict[str, Any] = field(default_factory=dict)
    table: str = ""
    seconds: float = 0.0
    functions: int = 0
    resumed: int = 0  # functions whose verdicts an earlier run had written
    skipped: list[str] = field(default_factory=list)
    card: Path | None = None  # MODEL_CARD.md, when the adapter is an exported GGUF

    def summary(self) -> str:
        card = f"; model card {self.card}" if self.card else ""
        resumed = f" ({self.resumed} from an earlier run)" if self.resumed else ""
        skipped = f"; {len(self.skipped)} skipped" if self.skipped else ""
        return (f"{self.table}\n{self.functions} functions{resumed}{skipped}; written to {self.output_dir} "
                f"in {self.seconds:.0f} s{card}")


@dataclass
class Problem:
    task: Any  # selfplay.Task
    mode: str
    idiom: str  # seen or disjoint
    key: str  # function_key

    @property
    def id(self) -> str:
        return f"{self.key}:{self.mode}"


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


def _last_function_tasks(paths: list[str]) -> tuple[list[Any], list[str]]:
    """Each file's last function (earlier ones are its helpers), as self-play tasks."""
    from perfalign.server import cparse
    from ..selfplay import Task, corpus_files

    out, skipped = [], []
    for path in corpus_files(paths):
        text = path.read_text(encoding="utf-8", errors="replace")
        language = cparse.language_for(path)
        try:
            infos = cparse.list_functions(text, language)
        except Exception as exc:  # a file the parser rejects is reported, not fatal
            skipped.append(f"{path.name}: {exc}")
            continue
        if infos:
            out.append(Task(path, text, language, infos[-1]))
    return out, skipped


def per_family(items: list[Any], limit: int) -> list[Any]:
    """At most ``limit`` functions of each family (0: all), chosen by a hash of the function, not by hand or order."""
    if limit <= 0:
        return items
    from ..selfplay import function_key_for

    by_family: dict[str, list[Any]] = {}
    for item in items:
        by_family.setdefault(item.family, []).append(item)
    chosen = {id(item) for members in by_family.values()
              for item in sorted(members, key=lambda t: hashlib.sha256(function_key_for(t).encode()).hexdigest())[:limit]}
    return [item for item in items if id(item) in chosen]


def problems_for(config: EvalConfig) -> tuple[list[Problem], list[str]]:
    """The held-out functions, each with its mode and idiom group, and why any was skipped."""
    from ..selfplay import function_key_for, manifest_tasks

    for mode in config.modes:
        if mode not in {"own", "serial", "openmp"}:
            raise EvalError(f"unknown mode {mode!r}; own, serial or openmp")
    own = config.modes == ["own"] or not config.modes
    entries: list[tuple[Any, str]] = []
    skipped: list[str] = []
    tasks, skipped = _last_function_tasks(default_functions(config.functions))  # examples/ unless named
    entries += [(t, "seen") for t in tasks]
    if config.manifest:
        held_out: list[Any] = []
        for item in manifest_tasks(config.manifest, "eval"):
            if isinstance(item, str):
                skipped.append(item)
            else:
                held_out.append(item)
        entries += [(item, item.idiom or "disjoint") for item in per_family(held_out, config.per_family)]
    out: list[Problem] = []
    for task, idiom in entries:
        if own:
            modes = [task.mode or ("openmp" if task.info.name in OPENMP_EXAMPLES else "serial")]
        else:
            modes = list(config.modes)
        key = function_key_for(task)
        out += [Problem(task, mode, idiom, key) for mode in modes]
    if config.max_functions:
        out = out[: config.max_functions]
    if not out:
        raise EvalError("no held-out functions; pass --functions FILE_OR_FOLDER or --manifest")
    return out, skipped


def sha256_of(path: Path | None) -> str:
    """The file's sha256 ("" when there is no file); a file unchanged since the last call is not read again."""
    if path is None or not Path(path).is_file():
        return ""
    stat = Path(path).stat()
    return _sha256(str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def llama_cpp_build() -> str:
    try:
        import llama_cpp
    except ImportError:
        return ""
    return f"llama-cpp-python {getattr(llama_cpp, '__version__', '?')}"


def run_header(config: EvalConfig, names: list[str]) -> dict[str, Any]:
    """What is evaluated, recorded before the first sample: a resumed run must match it."""
    from perfalign.server.optimize import EXTRACT_VERSION, PROMPT_VERSION
    from perfalign.server.verify import verifier_digest
    from ..modeling import gguf_adapter

    base_gguf: Path | None = None
    try:
        from ..modeling import resolve_base

        base_gguf = resolve_base(config.base).gguf
    except Exception:  # a base that is not a GGUF (a Hugging Face folder) has no served file to hash
        base_gguf = None
    adapter_gguf = gguf_adapter(config.adapter) if config.adapter else None
    return {
        "models": names,
        "base": config.base,
        "base_gguf": str(base_gguf or ""),
        "base_gguf_sha256": sha256_of(base_gguf),
        "adapter": config.adapter,
        "adapter_gguf": str(adapter_gguf or ""),
        "adapter_sha256": sha256_of(adapter_gguf),
        "engine": config.engine,
        "llama_cpp": llama_cpp_build(),
        "prompt_version": PROMPT_VERSION,
        "extract_version": EXTRACT_VERSION,
        "verifier": verifier_digest(),
        "samples": config.samples,
        "seed": config.seed,
        "base_samples": config.base_samples,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "per_family": config.per_family,
        "threads": config.threads,
        "repetitions": config.repetitions,
        "min_time_ms": config.min_time_ms,
        "metrics": {
            "primary": paired.PRIMARY,
            "fast@1": "chance that one sample is verified faster",
            "pass@1": "chance that one sample is correct",
            "gain": f"geometric mean over functions of the expected best verified speedup among {config.gain_samples} "
                    f"samples, 1.0 where none is verified faster, each function capped at {config.gain_cap}x",
            "speedup_n@k": f"expected best speedup among k={config.gain_samples} samples, incorrect ones counting 0",
            "interval": f"95% percentile bootstrap over functions, {config.bootstrap_resamples} resamples",
        },
    }


_RESUME_KEYS = ("models", "base_gguf_sha256", "adapter_sha256", "prompt_version", "extract_version", "verifier",
                "samples", "seed", "temperature", "max_tokens")


def verdict_rows(verdicts: Path) -> dict[str, list[dict[str, Any]]]:
    """An evaluation's verdict rows, by problem id (``function_key:mode``)."""
    by_problem: dict[str, list[dict[str, Any]]] = {}
    for row in read_jsonl(verdicts):
        by_problem.setdefault(f"{row['function_key']}:{row['mode']}", []).append(row)
    return by_problem


def resume(out: Path, header: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The complete functions of an earlier run of the same evaluation in ``out`` (its verdict rows by problem)."""
    run_file, verdicts = out / RUN_FILE, out / "verdicts.jsonl"
    if not run_file.is_file() or not verdicts.is_file():
        return {}
    earlier = json.loads(run_file.read_text())
    changed = [k for k in _RESUME_KEYS if earlier.get(k) != header.get(k)]
    if changed:
        judged = "; its verdicts were judged by another build of the verifier, and two are not mixed" \
            if "verifier" in changed else ""
        raise EvalError(
            f"{out} holds an evaluation of another configuration ({', '.join(changed)} differ{judged}); "
            "use another --output-dir, or delete it to start again"
        )
    need = header["samples"] * len(header["models"])
    return {k: rows for k, rows in verdict_rows(verdicts).items() if len(rows) == need}


# What decides the base's samples: an earlier evaluation's must match for them to be used again.
_SAMPLING_KEYS = ("base_gguf_sha256", "engine", "llama_cpp", "prompt_version", "samples", "seed", "temperature",
                  "max_tokens")


@dataclass(frozen=True)
class EarlierSamples:
    """One model's candidates of a function from an earlier evaluation: its replies when kept (extracted again with
    today's extractor), else the codes and why a code is empty, as extracted then."""

    codes: list[str]
    reasons: list[str]
    raws: list[str] | None


def earlier_base_samples(folder: str, header: dict[str, Any]) -> dict[str, EarlierSamples]:
    """The base's candidates of an earlier evaluation sampled the same way, by problem.

    Sampling is most of an evaluation's time, and the base does not change between the evaluations of successive
    adapters: its candidates are verified again, interleaved with the adapter's, by the function's one verifier.
    Both models' replies must go through the same extractor: an evaluation that kept its replies has them extracted
    again; one that did not is usable only if its extractor was today's."""
    from ..rewards import no_code_verdict

    if not folder:
        return {}
    run_file, verdicts = Path(folder) / RUN_FILE, Path(folder) / "verdicts.jsonl"
    if not run_file.is_file() or not verdicts.is_file():
        raise EvalError(f"--base-samples {folder}: no evaluation there ({RUN_FILE} and verdicts.jsonl)")
    earlier = json.loads(run_file.read_text())
    changed = [k for k in _SAMPLING_KEYS if earlier.get(k) != header.get(k)]
    if changed:
        raise EvalError(f"--base-samples {folder}: its base candidates were sampled another way ({', '.join(changed)} "
                        "differ); leave the option out to sample them anew")
    prefix = no_code_verdict().detail
    found: dict[str, EarlierSamples] = {}
    for problem_id, rows in verdict_rows(verdicts).items():
        by_sample = {int(r["sample"]): r for r in rows if r.get("model") == "base"}
        if sorted(by_sample) != list(range(header["samples"])):
            continue
        ordered = [by_sample[i] for i in range(header["samples"])]
        codes = [str(r.get("code") or "") for r in ordered]
        reasons = ["" if code else str(r.get("detail") or "").removeprefix(prefix).removeprefix(": ")
                   for code, r in zip(codes, ordered, strict=True)]
        raws = [str(r["raw"]) for r in ordered] if all("raw" in r for r in ordered) else None
        found[problem_id] = EarlierSamples(codes, reasons, raws)
    if any(f.raws is None for f in found.values()) and earlier.get("extract_version") != header["extract_version"]:
        raise EvalError(f"--base-samples {folder}: its base candidates were extracted by another version of the "
                        "extractor and its replies were not kept; leave the option out to sample them anew")
    return found


def seed_for(problem: Problem, seed: int) -> int:
    """The same seed for both models on a function, whatever the order or a resume."""
    return seed + int(problem.key[:8], 16) % 1_000_000


@dataclass
class Sampled:
    """One function's candidates from every model, before verification."""

    problem: Problem
    seed: int
    codes: dict[str, list[str]]
    reasons: dict[str, list[str]]  # why a completion gave no code ("" where it gave some)
    raws: dict[str, list[str] | None]  # the replies (None: reused candidates whose replies were not kept)


def sample_problem(problem: Problem, samplers: dict[str, Any], config: EvalConfig, settings: Any,
                   earlier: dict[str, EarlierSamples] | None = None) -> Sampled:
    """Every model's candidates for one function: the same prompt and seed for each (``earlier``: a model's candidates
    already sampled with them, by model name; ``samplers`` need not hold that model)."""
    from perfalign.server.optimize import extract_candidate
    from ..selfplay import build_messages

    task = problem.task
    messages, _ = build_messages(task, problem.mode, settings)
    seed = seed_for(problem, config.seed)
    codes: dict[str, list[str]] = {}
    reasons: dict[str, list[str]] = {}
    raws: dict[str, list[str] | None] = {}
    earlier = earlier or {}
    for name in [*earlier, *(n for n in samplers if n not in earlier)]:
        if name in earlier and earlier[name].raws is None:
            codes[name], reasons[name], raws[name] = earlier[name].codes, earlier[name].reasons, None
            continue
        if name in earlier:
            replies = list(earlier[name].raws or [])
        else:
            replies = samplers[name].generate(messages, config.samples, max_tokens=config.max_tokens,
                                              temperature=config.temperature, seed=seed)
        extracted = [extract_candidate(r, task.info, task.source) for r in replies]
        codes[name] = [code for code, _ in extracted]
        reasons[name] = [reason for _, reason in extracted]
        raws[name] = list(replies)
    return Sampled(problem, seed, codes, reasons, raws)


def verify_sampled(sampled: Sampled, config: EvalConfig, settings: Any, verifying: Any) -> Any:
    """Queue both models' candidates of one function for the verifying thread (``verifying``, the pipeline's
    ``Verifying``), interleaved (base 0, trained 0, base 1, …), to be judged by one prepared verifier; the future
    holds their verdicts, or the failure that stops the original being harnessed (see :func:`verdict_rows_of`)."""
    from ..selfplay import function_verdicts

    problem, codes = sampled.problem, sampled.codes
    order = _order(sampled, config.samples)
    verifier = function_verdicts(problem.task, problem.mode, settings, config.verify_workers)
    return verifying.submit(verifier, [codes[n][i] for n, i in order], [sampled.reasons[n][i] for n, i in order],
                            last=True)


def _order(sampled: Sampled, samples: int) -> list[tuple[str, int]]:
    """The candidates in the order they are verified: the models interleaved, sample by sample."""
    return [(name, i) for i in range(samples) for name in sampled.codes]


def verdict_rows_of(sampled: Sampled, config: EvalConfig, verdicts: list[Verdict] | Verdict
                    ) -> list[dict[str, Any]] | str:
    """Both models' verdict rows for one function, or why it was skipped."""
    problem, codes = sampled.problem, sampled.codes
    task = problem.task
    if isinstance(verdicts, Verdict):
        return f"{task.path.name}:{task.info.name} ({problem.mode}): {verdicts.detail or verdicts.status.value}"
    rows = []
    for (name, i), verdict in zip(_order(sampled, config.samples), verdicts, strict=True):
        row = {"model": name, "sample": i, "seed": sampled.seed, "function": task.info.name, "file": task.path.name,
               "function_key": problem.key, "mode": problem.mode, "idiom": problem.idiom, "code": codes[name][i],
               **verdict.to_dict()}
        replies = sampled.raws.get(name)
        if replies is not None:
            row["raw"] = replies[i]  # so that a later evaluation can extract it again
        rows.append(row)
    return rows


def _draws(rows: list[dict[str, Any]], model: str) -> list[paired.Draw]:
    mine = sorted((r for r in rows if r["model"] == model), key=lambda r: r["sample"])
    return [paired.Draw(str(r["status"]), r.get("speedup")) for r in mine]


def _samples(draws: list[paired.Draw]) -> list[metrics.Sample]:
    return [sample_of(Verdict(Status(d.status), speedup=d.speedup)) for d in draws]


def paired_table(comparisons: list[paired.Comparison]) -> str:
    lines = ["| group | metric | functions | base | trained | difference (95% CI) |", "|---|---|---|---|---|---|"]
    for c in comparisons:
        if c.metric == "gain":
            d = c.to_dict()
            cells = (f"{d['base_geomean']:.3f}x", f"{d['trained_geomean']:.3f}x",
                     f"×{d['ratio']:.3f} [{d['ratio_low']:.3f}, {d['ratio_high']:.3f}]")
        else:
            cells = (f"{c.base:.3f}", f"{c.trained:.3f}", f"{c.difference:+.3f} [{c.low:+.3f}, {c.high:+.3f}]")
        star = " *" if c.excludes_zero else ""
        lines.append(f"| {c.group} | {c.metric} | {c.functions} | {cells[0]} | {cells[1]} | {cells[2]}{star} |")
    return "\n".join(lines)


def paired_svg(comparisons: list[paired.Comparison]) -> str:
    """Each metric's mean paired difference (trained − base) with its 95% interval, per group, as an SVG."""
    rows = [c for c in comparisons if c.functions]
    width, row_h, left, right = 640, 22, 210, 30
    height = 60 + row_h * len(rows)
    span = max([0.05] + [max(abs(c.low), abs(c.high)) for c in rows]) * 1.1
    zero = left + (width - left - right) / 2

    def x(v: float) -> float:
        return zero + v / span * (width - left - right) / 2

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="11">',
        '<text x="10" y="18" font-size="13">paired difference, trained − base (95% bootstrap interval over '
        'functions; gain as log ratio)</text>',
        f'<line x1="{zero:.1f}" y1="30" x2="{zero:.1f}" y2="{height - 20}" stroke="#888" stroke-dasharray="4"/>',
    ]
    for i, c in enumerate(rows):
        y = 42 + i * row_h
        colour = "#2ca02c" if c.low > 0 else "#d62728" if c.high < 0 else "#1f77b4"
        parts.append(f'<text x="10" y="{y + 4}">{c.group}: {c.metric} (n={c.functions})</text>')
        parts.append(f'<line x1="{x(c.low):.1f}" y1="{y}" x2="{x(c.high):.1f}" y2="{y}" stroke="{colour}" '
                     'stroke-width="2"/>')
        parts.append(f'<circle cx="{x(c.difference):.1f}" cy="{y}" r="4" fill="{colour}"/>')
    parts.append(f'<text x="{x(-span):.1f}" y="{height - 6}">{-span:+.2f}</text>')
    parts.append(f'<text x="{x(span) - 30:.1f}" y="{height - 6}">{span:+.2f}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def run(config: EvalConfig, samplers: dict[str, Any] | None = None, progress: Callable[[str], None] = lambda m: None
        ) -> EvalResult:
    """Evaluate the base and, with an adapter, base + adapter on the same functions, prompts and seeds."""
    from perfalign.server.settings import Settings
    from ..modeling import open_sampler

    if config.samples < 1:
        raise EvalError("--samples must be at least 1")
    settings = Settings().with_values(threads=config.threads, repetitions=config.repetitions,
                                     min_time_ms=config.min_time_ms, log_to_store=False,
                                     timing_priority="background")
    out = Path(config.output_dir)
    start = time.monotonic()
    names = ["base"] + (["trained"] if config.adapter else [])
    problems, skipped = problems_for(config)
    own: dict[str, Any] = {}
    if samplers is None:
        from ..modeling import check_adapter

        check_adapter(config.base, config.adapter, config.engine)  # before any long work
    header = run_header(config, names)
    reused = earlier_base_samples(config.base_samples, header)
    done = resume(out, header)
    out.mkdir(parents=True, exist_ok=True)
    (out / RUN_FILE).write_text(json.dumps(header, indent=2, sort_keys=True) + "\n")
    kept = [row for p in problems for row in done.get(p.id, [])]
    write_jsonl(out / "verdicts.jsonl", kept)  # drops a function an interrupted run left half-written
    result = EvalResult(output_dir=out, skipped=skipped, resumed=sum(p.id in done for p in problems))
    rows_by_problem: dict[str, list[dict[str, Any]]] = {p.id: done[p.id] for p in problems if p.id in done}
    try:
        to_sample = [p for p in problems if p.id not in rows_by_problem]
        needed = [n for n in names if n != "base" or any(p.id not in reused for p in to_sample)]
        if samplers is None:
            own = {name: open_sampler(config.base, config.adapter if name == "trained" else "", config.engine)
                   for name in needed}
        active = {name: (samplers or own)[name] for name in needed}
        with (out / "verdicts.jsonl").open("a") as fh:
            _Judging(config, settings, fh, result, rows_by_problem).run(problems, active, reused, names, progress)
    finally:
        for sampler in own.values():
            sampler.close()
    scored = [p for p in problems if p.id in rows_by_problem]
    if not scored:
        raise EvalError("none of the held-out functions could be harnessed; check them with `perfalign verify`")
    result.functions = len(scored)
    function_rows = _compare(scored, rows_by_problem, names, config, result)
    result.seconds = time.monotonic() - start
    _write_outputs(out, result, header, config, len(scored), function_rows)
    if config.adapter:
        result.card = write_card(config.adapter, config.base, out)
    return result


class _Judging:
    """The evaluation's functions composed of the pipeline's stages (``perfalign.server.optimize``): each is sampled
    from every model, its replies extracted and queued for the verifying thread, and its verdict rows recorded.

    Sampling the next function overlaps with verifying the last one (not an OpenMP function's: the pipeline's
    timing guard, ``exclusive_timing``); both models' candidates of a function are verified together, interleaved,
    by one verifier."""

    def __init__(self, config: EvalConfig, settings: Any, fh: Any, result: EvalResult,
                 rows_by_problem: dict[str, list[dict[str, Any]]]) -> None:
        self.config, self.settings, self.fh, self.result = config, settings, fh, result
        self.rows_by_problem = rows_by_problem

    def run(self, problems: list[Problem], active: dict[str, Any], reused: dict[str, EarlierSamples],
            names: list[str], progress: Callable[[str], None]) -> None:
        """Every function not judged yet, each sampled while the one before it is verified."""
        from perfalign.server.optimize import Verifying, exclusive_timing

        verifying = Verifying("perfalign-eval-verify")
        pending: tuple[Sampled, Any] | None = None
        try:
            for problem in problems:
                if problem.id in self.rows_by_problem:
                    continue
                earlier = {"base": reused[problem.id]} if problem.id in reused else None
                sampled_from = [f"{n} (sampled earlier)" if earlier and n in earlier else n for n in names]
                progress(f"{problem.task.info.name} ({problem.mode}, idiom-{problem.idiom}): "
                         f"{self.config.samples} samples from {', '.join(sampled_from)}")
                sampled = sample_problem(problem, active, self.config, self.settings, earlier)
                job = (sampled, verify_sampled(sampled, self.config, self.settings, verifying))
                if pending is not None:
                    self.finish(pending)
                pending = job
                if exclusive_timing(problem.mode):
                    self.finish(job)
                    pending = None
            if pending is not None:
                self.finish(pending)
                pending = None
        finally:
            if pending is not None:  # sampling stopped with an error: what was sampled before is still kept
                try:
                    self.finish(pending)
                except Exception as exc:  # noqa: BLE001 - its verification failed too: a rerun redoes it
                    self.result.skipped.append(f"{pending[0].problem.task.info.name}: not verified ({exc}); "
                                               "a rerun redoes it")
            verifying.close()

    def finish(self, job: tuple[Sampled, Any]) -> None:
        """The function's verdicts are in: record its rows (or why it was skipped)."""
        from perfalign.server.optimize import record_rows

        sampled, future = job
        rows = verdict_rows_of(sampled, self.config, future.result())
        if isinstance(rows, str):
            self.result.skipped.append(rows)
            return
        record_rows(self.fh, rows)
        self.rows_by_problem[sampled.problem.id] = rows


def _compare(scored: list[Problem], rows_by_problem: dict[str, list[dict[str, Any]]], names: list[str],
             config: EvalConfig, result: EvalResult) -> list[dict[str, Any]]:
    """Each model's report, the paired comparisons and the decision, on ``result``; the per-function metrics."""
    per_model: dict[str, list[dict[str, float]]] = {}
    function_rows = []
    for problem in scored:
        rows = rows_by_problem[problem.id]
        entry: dict[str, Any] = {"function_key": problem.key, "function": problem.task.info.name,
                                 "file": problem.task.path.name, "mode": problem.mode, "idiom": problem.idiom}
        for name in names:
            values = paired.function_metrics(_draws(rows, name), gain_samples=config.gain_samples,
                                             gain_cap=config.gain_cap)
            per_model.setdefault(name, []).append(values)
            entry[name] = values
        function_rows.append(entry)
    for name in names:
        per_problem = [_samples(_draws(rows_by_problem[p.id], name)) for p in scored]
        result.reports[name] = metrics.report(per_problem, config.ks)
    if "trained" in names:
        groups = [("all", list(range(len(scored))))]
        for idiom in ("seen", "disjoint"):
            groups.append((f"idiom-{idiom}", [i for i, p in enumerate(scored) if p.idiom == idiom]))
        for group, members in groups:
            if members:
                result.comparisons += paired.compare([per_model["base"][i] for i in members],
                                                     [per_model["trained"][i] for i in members], group,
                                                     resamples=config.bootstrap_resamples, seed=config.seed)
        result.decision = paired.verdict_rule(result.comparisons)
    result.table = table(result.reports)
    if result.comparisons:
        result.table += "\n\n" + paired_table(result.comparisons)
        result.table += f"\n\n{result.decision['rule']}: {'yes' if result.decision['trained_wins'] else 'no'}"
    return function_rows


def _write_outputs(out: Path, result: EvalResult, header: dict[str, Any], config: EvalConfig, functions: int,
                   function_rows: list[dict[str, Any]]) -> None:
    """metrics.json, table.md, the plots and functions.jsonl."""
    (out / "metrics.json").write_text(
        json.dumps(
            {
                **{name: r.to_dict() for name, r in result.reports.items()},
                "paired": [c.to_dict() for c in result.comparisons],
                "decision": result.decision,
                "run": header,
                "functions": functions,
                "skipped": result.skipped,
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
    if result.comparisons:
        (out / "paired.svg").write_text(paired_svg(result.comparisons))
    write_jsonl(out / "functions.jsonl", function_rows)


def write_card(adapter: str, base: str, out: Path) -> Path | None:
    """MODEL_CARD.md and card.json beside the evaluation, for an adapter exported by ``perfalign train export``.

    The export's record (``<adapter>.json``) names the training run, whose
    record gives the stage; the card carries this evaluation's table and plot.
    """
    from ..modeling import gguf_adapter
    from ..trainers import RUN_FILE
    from . import _card as cardlib

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

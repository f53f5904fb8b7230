"""The settings of the paired evaluation."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt


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
    min_time_ms: float = opt(20.0, "Shortest timed call in ms: the problem size grows until the original takes this "
                                   "long (the server's min_time_ms).")
    verify_workers: int = opt(2, "Processes that verify candidates in parallel.")
    output_dir: str = opt("runs/eval", "Where the table, plots and verdicts go (a rerun resumes there).")
    seed: int = opt(0, "Sampling seed (each function's seed derives from it and the function).")
    base_samples: str = opt("", "An earlier evaluation's folder: the base's candidates there (same base GGUF, "
                                "llama.cpp build, prompt version, seed, temperature, token limit and samples) are "
                                "verified again instead of sampled anew (their replies extracted again, or, where "
                                "the replies were not kept, only if extracted by today's extractor); functions it "
                                "lacks are sampled.")

"""The settings of self-play."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt


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
    min_time_ms: float = opt(20.0, "Shortest timed call in ms: the problem size grows until the original takes this "
                                   "long (the server's min_time_ms).")
    verify_workers: int = opt(2, "Processes that verify candidates in parallel.")
    eval_percent: int = opt(10, "Share of functions marked as eval split (by function hash).")
    seed: int = opt(0, "Sampling seed (each round and function derives a fresh one from it).")
    rounds: int = opt(1, "Rounds over the corpus, each with fresh seeds; a rerun resumes an interrupted one.")
    repairs: int = opt(0, "Feedback turns per function and round: this many failed samples (compile error, wrong "
                          "result, crash, no whole function) are each shown what went wrong, as the server's feedback "
                          "rounds do, and answer once; an answer that fixes one is a repair pair (0: none).")
    time_limit_s: float = opt(0.0, "Start no function after this many seconds (0: no limit); the same command "
                                   "goes on where it stopped.")

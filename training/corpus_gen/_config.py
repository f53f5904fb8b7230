"""The settings of the corpus's generation and verification."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt


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

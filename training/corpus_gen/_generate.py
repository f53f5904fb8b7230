"""Draw functions from the families, drop near-duplicates, write the files and the manifest rows."""
from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _dedup as dedup
from ._types import Variant
from ._families import EVAL_FAMILIES, FAMILIES, Family
from ._manifest import Manifest, write_text

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
ATTEMPTS_PER_FUNCTION = 30


@dataclass
class Drawn:
    family: Family
    variant: Variant
    seed: int
    nearest: str
    similarity: float

    @property
    def id(self) -> str:
        return f"{self.family.name}/{self.variant.name}"

    def paths(self) -> tuple[str, str]:
        ext = ".c" if self.variant.language == "c" else ".cpp"
        return (f"{self.family.split}/{self.family.name}/{self.variant.name}{ext}",
                f"reference/{self.family.name}/{self.variant.name}{ext}")


@dataclass
class Drawing:
    drawn: list[Drawn] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)  # reason -> count


def parses(variant: Variant) -> str:
    """"" when both texts define the function; else why not."""
    from perfalign.server import cparse

    for what, text in (("original", variant.original), ("reference", variant.reference)):
        try:
            names = [f.name for f in cparse.list_functions(text, variant.language)]
        except Exception as exc:  # a parser failure is a template bug, reported with the function
            return f"{what} does not parse: {exc}"
        if variant.name not in names:
            return f"{what} does not define {variant.name} (found {', '.join(names) or 'nothing'})"
    return ""


def draw(seed: int, count: int, families: list[str] | None = None, against: dedup.Index | None = None,
         threshold: float = dedup.THRESHOLD, check: Callable[[Variant], str] = parses) -> Drawing:
    """``count`` functions spread evenly over ``families`` (all by default), deterministic for ``seed``.

    A draw is rejected when it is a near-duplicate of an indexed function (``against``: examples/ and any
    evaluation set), when it normalises to the same tokens as one already drawn (a renamed copy), or when
    ``check`` finds fault with it."""
    chosen = [f for f in FAMILIES if not families or f.name in families]
    unknown = sorted(set(families or []) - {f.name for f in FAMILIES})
    if unknown:
        raise ValueError(f"unknown families: {', '.join(unknown)}; known: {', '.join(f.name for f in FAMILIES)}")
    per_family = math.ceil(count / len(chosen)) if chosen else 0
    against = against if against is not None else examples_index()
    result = Drawing()
    seen_tokens: set[tuple[str, ...]] = set()
    names: set[str] = set()
    for fi, family in enumerate(chosen):
        got = 0
        for attempt in range(per_family * ATTEMPTS_PER_FUNCTION):
            if got == per_family:
                break
            s = seed * 1_000_003 + fi * 10_007 + attempt
            variant = with_noalias(family.make(random.Random(s)))
            norm = tuple(dedup.tokens(variant.original))
            if norm in seen_tokens:
                result.rejected["renamed copy of a drawn function"] = result.rejected.get(
                    "renamed copy of a drawn function", 0) + 1
                continue
            label, sim = against.nearest(variant.original)
            if sim >= threshold:
                result.rejected[f"near-duplicate of {label}"] = result.rejected.get(f"near-duplicate of {label}", 0) + 1
                continue
            problem = check(variant)
            if problem:
                key = f"{family.name}: {problem[:120]}"
                result.rejected[key] = result.rejected.get(key, 0) + 1
                continue
            variant = _unique_name(variant, names)
            names.add(variant.name)
            seen_tokens.add(norm)
            result.drawn.append(Drawn(family, variant, s, label, round(sim, 3)))
            got += 1
    return result


def with_noalias(variant: Variant) -> Variant:
    """The original with ``noalias`` among its ``perfalign:`` items when it has a writable array: the
    references assume that no caller passes one array for two parameters, as the functions' callers do."""
    import re

    sig = variant.original[variant.original.find(variant.name + "("):]
    params = sig[:sig.find(")")]
    writable = any(("*" in p or "&" in p) and "const" not in p for p in params.split(","))
    if not writable or "noalias" in variant.original:
        return variant
    if "perfalign:" in variant.original:
        text = re.sub(r"(perfalign:[^\n]*?)(\s*\*/)?$", r"\1, noalias\2", variant.original, count=1, flags=re.M)
    else:
        line = "/* perfalign: noalias */\n" if variant.language == "c" else "// perfalign: noalias\n"
        start = variant.original.rfind("\n", 0, variant.original.find(variant.name + "(")) + 1
        text = variant.original[:start] + line + variant.original[start:]
    return Variant(variant.name, variant.language, text, variant.reference, variant.knobs)


def _unique_name(variant: Variant, names: set[str]) -> Variant:
    if variant.name not in names:
        return variant
    k = 2
    while f"{variant.name}_{k}" in names:
        k += 1
    new = f"{variant.name}_{k}"
    return Variant(new, variant.language, _rename(variant.original, variant.name, new),
                   _rename(variant.reference, variant.name, new), variant.knobs)


def _rename(text: str, old: str, new: str) -> str:
    import re

    return re.sub(rf"\b{re.escape(old)}\(", f"{new}(", text)


def examples_index(extra: list[Path] | None = None) -> dedup.Index:
    index = dedup.Index()
    if EXAMPLES_DIR.is_dir():
        index.add_folder(EXAMPLES_DIR)
    for folder in extra or []:
        index.add_folder(folder, prefix=f"{folder.name}/")
    return index


def header(seed: int, count: int, threshold: float) -> dict[str, Any]:
    return {
        "seed": seed,
        "count": count,
        "dedup": {"method": f"Jaccard of identifier-normalised token {dedup.NGRAM}-grams", "threshold": threshold,
                  "against": "examples/"},
        "eval_families": list(EVAL_FAMILIES),
        "families": {f.name: {"mode": f.mode, "split": f.split, "idiom": f.idiom, "seen_in": list(f.seen_in)}
                     for f in FAMILIES},
    }


def row(d: Drawn) -> dict[str, Any]:
    original, reference = d.paths()
    return {
        "kind": "function",
        "id": d.id,
        "family": d.family.name,
        "function": d.variant.name,
        "language": d.variant.language,
        "mode": d.family.mode,
        "split": d.family.split,
        "idiom": d.family.idiom,
        "file": original,
        "reference": reference,
        "seed": d.seed,
        "knobs": d.variant.knobs,
        "nearest_example": d.nearest,
        "similarity": d.similarity,
        "verdict": None,
        "kept": True,
    }


def write_files(folder: Path, drawn: list[Drawn], manifest: Manifest) -> int:
    """Write each drawn function and its reference (unless the manifest already dropped it); add new rows.

    Returns how many rows were new."""
    new = 0
    for d in drawn:
        existing = manifest.entries.get(d.id)
        if existing is not None and (not existing.get("kept", True) or existing.get("verdict") is not None):
            continue  # dropped, or verified as it stands: its files are what the verdict is about
        original, reference = d.paths()
        write_text(folder / original, d.variant.original)
        write_text(folder / reference, d.variant.reference)
        if existing is None:
            manifest.entries[d.id] = row(d)
            new += 1
    return new


def seed_rows(folder: Path, manifest: Manifest, index: dedup.Index) -> int:
    """Rows for the hand-written functions at the corpus's top level (no reference: training prompts only)."""
    from perfalign.server import cparse

    new = 0
    for path in sorted(folder.glob("*.c")):
        text = path.read_text(encoding="utf-8")
        language = cparse.language_for(path)
        for info in cparse.list_functions(text, language):
            key = f"seed/{info.name}"
            if key in manifest.entries:
                continue
            label, sim = index.nearest(text)
            manifest.entries[key] = {
                "kind": "function", "id": key, "family": "seed", "function": info.name, "language": language,
                "mode": "serial", "split": "train", "idiom": "idiom-seen" if sim >= 0.3 else "idiom-disjoint",
                "file": str(path.relative_to(folder)), "reference": None, "seed": None, "knobs": {},
                "nearest_example": label, "similarity": round(sim, 3), "verdict": None, "kept": True,
            }
            new += 1
    return new

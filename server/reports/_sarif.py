"""The SARIF 2.1.0 log of a batch run: each verified suggestion a result on its function, the rewrite a fix.

Code-scanning services limit what they take (GitHub: 25,000 results a run, a 10 MB compressed file, long
messages cut). The log stays well inside: at most :data:`MAX_RESULTS` results (the largest speedups kept),
messages cut at :data:`MAX_MESSAGE` characters, and a fix only while it is at most :data:`MAX_FIX`
characters and the fixes together stay under :data:`MAX_FIXES_TOTAL`; a result whose fix was left out
says so and names its patch file. Every cut is listed in the run's ``properties.limits``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..optimize import Item
from ._patches import Patch

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
RULE_ID = "perfalign/verified-faster"
MAX_RESULTS = 5_000
MAX_MESSAGE = 1_000
MAX_FIX = 100_000
MAX_FIXES_TOTAL = 5_000_000


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message(patch: Patch, mode: str, fix_note: str) -> str:
    """What was found and where the patch is first, so that a cut message still says it; the details last."""
    s = patch.suggestion
    by = f" by {s.strategy}" if s.strategy else ""
    text = (f"{patch.function}: a rewrite{by} verified {s.speedup:.2f}× faster "
            f"(95% interval {s.ci95[0]:.2f}–{s.ci95[1]:.2f}×, {mode}"
            f"{f', {s.threads} threads' if mode == 'openmp' else ''}).{fix_note} Patch: patches/{patch.name}. "
            f"Measured at {' '.join(s.flags) or 'the default flags'}")
    if s.compiler_alone is not None:
        text += f"; the compiler alone (-O3 -march=native) gives {s.compiler_alone:.2f}×"
    return _cut(text + ".", MAX_MESSAGE)


def _location(item: Item) -> dict[str, Any]:
    info = item.target.info
    return {"physicalLocation": {
        "artifactLocation": {"uri": item.target.relpath, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": info.start_line + 1, "startColumn": info.start_col + 1,
                   "endLine": info.end_line + 1, "endColumn": info.end_col + 1},
    }, "logicalLocations": [{"fullyQualifiedName": item.target.function, "kind": "function"}]}


def _fix(item: Item, patch: Patch) -> dict[str, Any]:
    info = item.target.info
    source = item.target.source
    replacements: list[dict[str, Any]] = []
    missing = [inc for inc in patch.suggestion.includes if inc not in source]
    if missing:
        lines = source.split("\n")
        last = max((i for i, line in enumerate(lines) if line.lstrip().startswith("#include")), default=-1)
        at = last + 2  # the line after the last include (1-based), where the includes go
        replacements.append({"deletedRegion": {"startLine": at, "startColumn": 1, "endLine": at, "endColumn": 1},
                             "insertedContent": {"text": "".join(inc + "\n" for inc in missing)}})
    replacements.append({
        "deletedRegion": {"startLine": info.start_line + 1, "startColumn": info.start_col + 1,
                          "endLine": info.end_line + 1, "endColumn": info.end_col + 1},
        "insertedContent": {"text": patch.suggestion.replacement},
    })
    return {"description": {"text": f"Replace {item.target.function} with the verified rewrite"},
            "artifactChanges": [{"artifactLocation": {"uri": item.target.relpath, "uriBaseId": "%SRCROOT%"},
                                 "replacements": replacements}]}


def build_sarif(items: list[Item], patches: list[Patch], root: Path, version: str) -> dict[str, Any]:
    """The SARIF log (a JSON-ready dict) for ``patches``, which :func:`build_patches` made from ``items``."""
    by_function = {(i.target.relpath, i.target.function): i for i in items}
    usable = [p for p in patches if p.text]
    usable.sort(key=lambda p: -p.suggestion.speedup)
    limits: list[str] = []
    if len(usable) > MAX_RESULTS:
        limits.append(f"{len(usable) - MAX_RESULTS} suggestions with the smallest speedups left out "
                      f"(at most {MAX_RESULTS} results)")
        usable = usable[:MAX_RESULTS]
    results = []
    fixes_total = 0
    for patch in usable:
        item = by_function[(patch.relpath, patch.function)]
        s = patch.suggestion
        size = len(s.replacement) + sum(len(inc) + 1 for inc in s.includes)
        fix_note = ""
        if size > MAX_FIX:
            fix_note = f" The rewrite ({size:,} characters) is too large for a fix here; apply the patch."
        elif fixes_total + size > MAX_FIXES_TOTAL:
            fix_note = " The fixes of this log reached their size limit; apply the patch."
        result: dict[str, Any] = {
            "ruleId": RULE_ID, "ruleIndex": 0, "level": "note", "kind": "review",
            "message": {"text": _message(patch, item.mode, fix_note)},
            "locations": [_location(item)],
            "partialFingerprints": {"perfalignFunction/v1": f"{patch.relpath}::{patch.function}::{item.mode}"},
            "properties": {"speedup": round(s.speedup, 4), "ci95": [round(s.ci95[0], 4), round(s.ci95[1], 4)],
                           "mode": item.mode, "threads": s.threads, "flags": s.flags, "patch": f"patches/{patch.name}",
                           **({"compilerAlone": round(s.compiler_alone, 4)} if s.compiler_alone is not None else {}),
                           **({"candidateId": s.candidate_id} if s.candidate_id else {}),
                           **({"strategy": s.strategy} if s.strategy else {})},
        }
        if not fix_note:
            result["fixes"] = [_fix(item, patch)]
            fixes_total += size
        else:
            limits.append(f"{patch.function} in {patch.relpath}: fix left out ({size:,} characters)")
        results.append(result)
    root_uri = root.resolve().as_uri() + "/"
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "perfalign", "version": version, "semanticVersion": version,
                "rules": [{
                    "id": RULE_ID, "name": "VerifiedFasterRewrite",
                    "shortDescription": {"text": "A rewrite of this function was verified faster on the build machine"},
                    "fullDescription": {"text": "perfalign compiled the rewrite, checked that it computes what the "
                                                "original computes on generated inputs, and timed both in a sandbox; "
                                                "the lower end of the 95% interval of the speedup is above the "
                                                "threshold."},
                    "defaultConfiguration": {"level": "note"},
                    "properties": {"tags": ["performance"]},
                }],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": {"limits": limits},
        }],
    }

"""The ``perfalign:`` annotation comment above a function."""
from __future__ import annotations

import re
from typing import Any

_ANNOTATION = re.compile(r"perfalign\s*:(.*)", re.DOTALL)
_ITEM = re.compile(r"\s*(\w+)\s*(?:\(\s*([\w:]+)\s*\))?\s*=\s*")


def comment_above(source: bytes, start: int) -> str:
    """The comment block directly above ``start`` (blank lines allowed in between, nothing else)."""
    before = source[:start].decode("utf-8", errors="replace")
    text = before.rstrip()
    comments: list[str] = []
    while True:
        if text.endswith("*/"):
            open_at = text.rfind("/*")
            if open_at < 0:
                break
            comments.insert(0, text[open_at + 2 : -2])
            text = text[:open_at].rstrip()
            continue
        last_nl = text.rfind("\n")
        last_line = text[last_nl + 1 :]
        if last_line.lstrip().startswith("//"):
            comments.insert(0, last_line.lstrip()[2:])
            text = text[: max(last_nl, 0)].rstrip()
            if last_nl < 0:
                break
            continue
        break
    return "\n".join(comments)


def _split_items(text: str) -> list[str]:
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if (ch == "," or ch == ";" or ch == "\n") and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    return [i.strip().strip("*").strip() for i in items if i.strip().strip("*").strip()]


def parse_annotations(comment: str) -> dict[str, Any]:
    """Parse ``perfalign: size(a)=n*n, range(idx)=0..n-1, value(k)=3, min(n)=1, type(T)=float, tolerance=1e-6, noalias``
    (and ``target_size=32768``, the problem size whose speedup the user cares about).

    Returns ``{"size": {"a": "n*n"}, "range": {...}, "value": {...}, "min": {...}, "type": {...}, "tolerance": 1e-6}``;
    an item perfalign does not understand is kept under ``"unknown"`` so the verifier can say so.
    """
    out: dict[str, Any] = {}
    for m in _ANNOTATION.finditer(comment):
        body = m.group(1)
        for item in _split_items(body):
            if item.strip() == "noalias":
                out["noalias"] = True  # the callers never pass one buffer for two parameters
                continue
            im = _ITEM.match(item)
            if not im:
                out.setdefault("unknown", []).append(item)
                continue
            key, arg, value = im.group(1), im.group(2), item[im.end():].strip().rstrip("*/").strip()
            if key in {"size", "range", "value", "min", "type"} and arg:
                out.setdefault(key, {})[arg] = value
            elif key == "tolerance" and not arg:
                try:
                    out["tolerance"] = float(value)
                except ValueError:
                    out.setdefault("unknown", []).append(item)
            elif key == "target_size" and not arg:
                out["target_size"] = value  # the problem size the user cares about (checked by the plan)
            else:
                out.setdefault("unknown", []).append(item)
    return out

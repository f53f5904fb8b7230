"""Near-duplicate detection by identifier-normalised token similarity.

Source is lexed with a small C/C++ lexer; comments and preprocessor lines are dropped, every identifier becomes
``ID``, every number ``NUM`` and every string or character literal ``STR`` (keywords, including the built-in
types, and operators stay). Two functions are compared by the Jaccard similarity of their sets of token
5-grams. A renamed copy scores 1.0; the threshold (``THRESHOLD``) is the one docs/training.md justifies.
"""
from __future__ import annotations

import re
from pathlib import Path

THRESHOLD = 0.6
NGRAM = 5

KEYWORDS = frozenset("""
auto bool break case char const constexpr continue default do double else enum extern float for goto if inline int
long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
class namespace template typename using new delete operator true false nullptr static_cast reinterpret_cast
const_cast public private protected virtual
""".split())

_TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)
      | (?P<pre>^[ \t]*\#[^\n]*(?:\\\n[^\n]*)*)
      | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
      | (?P<num>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[uUlLfF]*)
      | (?P<id>[A-Za-z_]\w*)
      | (?P<op>::|->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[^\s\w])
      | (?P<space>\s+)""",
    re.S | re.M | re.X,
)


def tokens(source: str) -> list[str]:
    """The normalised token stream of ``source``."""
    out: list[str] = []
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup
        text = m.group()
        if kind in ("comment", "pre", "space"):
            continue
        if kind == "str":
            out.append("STR")
        elif kind == "num":
            out.append("NUM")
        elif kind == "id":
            out.append(text if text in KEYWORDS else "ID")
        else:
            out.append(text)
    return out


def shingles(source: str, n: int = NGRAM) -> frozenset[tuple[str, ...]]:
    toks = tokens(source)
    if len(toks) < n:
        return frozenset([tuple(toks)])
    return frozenset(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))


def similarity(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


class Index:
    """Reference functions (``examples/``, an evaluation set) to compare candidates against."""

    def __init__(self) -> None:
        self.items: list[tuple[str, frozenset[tuple[str, ...]]]] = []

    def add(self, label: str, source: str) -> None:
        self.items.append((label, shingles(source)))

    def add_folder(self, folder: Path, prefix: str = "") -> None:
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".c", ".cc", ".cpp", ".cxx") and path.is_file():
                self.add(prefix + path.stem, path.read_text(encoding="utf-8", errors="replace"))

    def nearest(self, source: str) -> tuple[str, float]:
        """The most similar indexed function and its similarity ("" and 0.0 when the index is empty)."""
        grams = shingles(source)
        best = ("", 0.0)
        for label, other in self.items:
            s = similarity(grams, other)
            if s > best[1]:
                best = (label, s)
        return best

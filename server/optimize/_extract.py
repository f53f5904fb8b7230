"""Candidate code out of what a model really writes.

Models wrap code in prose, write several code blocks (the original, then the
rewrite), repeat the function, put ``#pragma omp`` above the function instead
of above its loop, forget includes, rename the function, and redefine helpers
the file already has. :func:`extract` repairs what can be repaired, says what
it did in ``notes``, and returns no candidate (with a reason) when nothing
usable is there or the rewrite is the original again.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from .. import cparse
from ..cparse import CParseError

# Changed whenever extraction gives another candidate for some reply: an evaluation records it, and candidates
# extracted by another version are not compared with new ones.
EXTRACT_VERSION = "2026-12-05.1"

FENCE = re.compile(r"```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)
DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\b.*$", re.MULTILINE)
INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"]+[>\"].*$", re.MULTILINE)
PRAGMA_LINE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp\b.*$")
LOOP_PRAGMA = re.compile(r"#\s*pragma\s+omp\s+(parallel\s+for|for|simd|parallel\s+for\s+simd|taskloop)\b")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
LINE_COMMENT = re.compile(r"//[^\n]*")
WORD = re.compile(r"[A-Za-z_]\w*")

# Identifiers whose header a rewrite often forgets, per language.
NEEDS = {
    "c": [
        (re.compile(r"\bomp_\w+\s*\("), "#include <omp.h>"),
        (re.compile(r"\b(sqrt|exp|log|pow|fabs|floor|ceil|sin|cos|tan|fmax|fmin|fma|hypot|cbrt|round|log2|exp2)f?\s*\("), "#include <math.h>"),
        (re.compile(r"\b(memset|memcpy|memmove|memcmp|strlen|strcmp)\s*\("), "#include <string.h>"),
        (re.compile(r"\b(malloc|calloc|realloc|free|qsort|abs|aligned_alloc)\s*\("), "#include <stdlib.h>"),
        (re.compile(r"\b(INT_MAX|INT_MIN|LONG_MAX|UINT_MAX)\b"), "#include <limits.h>"),
        (re.compile(r"\b(DBL_MAX|DBL_MIN|FLT_MAX|DBL_EPSILON)\b"), "#include <float.h>"),
        (re.compile(r"\b(u?int(8|16|32|64)_t)\b"), "#include <stdint.h>"),
        (re.compile(r"\bbool\b"), "#include <stdbool.h>"),
    ],
    "cpp": [
        (re.compile(r"\bomp_\w+\s*\("), "#include <omp.h>"),
        (re.compile(r"\bstd::(sqrt|exp|log|pow|fabs|abs|floor|ceil|sin|cos|fma|hypot)\s*\("), "#include <cmath>"),
        (re.compile(r"\bstd::(vector)\b"), "#include <vector>"),
        (re.compile(r"\bstd::(sort|min|max|fill|copy|swap|reverse|min_element|max_element|minmax_element|transform|lower_bound|upper_bound|binary_search|stable_sort|nth_element|fill_n|copy_n|find|find_if|count|count_if|unique|any_of|all_of|none_of|for_each|remove|remove_if)\b"), "#include <algorithm>"),
        (re.compile(r"\bstd::(accumulate|inner_product|partial_sum|iota|exclusive_scan|inclusive_scan|reduce|transform_reduce)\b"), "#include <numeric>"),
        (re.compile(r"\bstd::(unordered_map)\b"), "#include <unordered_map>"),
        (re.compile(r"\bstd::(unordered_set)\b"), "#include <unordered_set>"),
        (re.compile(r"\bstd::(memcpy|memset|memmove)\b"), "#include <cstring>"),
        (re.compile(r"\bstd::(size_t|ptrdiff_t)\b"), "#include <cstddef>"),
        (re.compile(r"\bstd::(numeric_limits)\b"), "#include <limits>"),
        (re.compile(r"\bstd::(string)\b"), "#include <string>"),
        (re.compile(r"\bstd::(array)\b"), "#include <array>"),
        (re.compile(r"\bstd::(pair|move)\b"), "#include <utility>"),
        (re.compile(r"\bstd::(set|multiset)\b"), "#include <set>"),
        (re.compile(r"\bstd::(map|multimap)\b"), "#include <map>"),
        (re.compile(r"\bstd::(deque)\b"), "#include <deque>"),
        (re.compile(r"\bstd::(queue|priority_queue)\b"), "#include <queue>"),
        (re.compile(r"\bstd::(stack)\b"), "#include <stack>"),
        (re.compile(r"\bstd::(list)\b"), "#include <list>"),
        (re.compile(r"\bstd::(bitset)\b"), "#include <bitset>"),
        (re.compile(r"\bstd::(tuple|make_tuple|tie)\b"), "#include <tuple>"),
    ],
}


# Headers a reply includes for its own test code (a main that prints): kept only when
# the rewrite itself uses them.
PRINTING = {
    "stdio.h": re.compile(r"\b(f?printf|puts|putchar|fputs|sprintf|snprintf)\s*\("),
    "cstdio": re.compile(r"\b(std::)?(f?printf|puts|putchar|snprintf)\s*\("),
    "iostream": re.compile(r"\bstd::(cout|cerr|clog|endl)\b"),
    "time.h": re.compile(r"\b(clock|time)\s*\("),
    "chrono": re.compile(r"\bstd::chrono\b"),
}


def _needed(include: str, code: str, language: str) -> bool:
    """Whether a header the reply includes is needed by the code that is kept."""
    header = re.sub(r"^#\s*include\s*[<\"]|[>\"].*$", "", include.strip())
    if header in PRINTING:
        return bool(PRINTING[header].search(strip_comments(code)))
    for pattern, known in NEEDS.get(language, []):
        if re.sub(r"\s", "", known) == re.sub(r"\s", "", include):
            return bool(pattern.search(strip_comments(code)))
    return True


class FunctionLike(Protocol):
    name: str
    language: str
    text: str
    context: str
    signature: str
    params: list[cparse.Param]


@dataclass
class Candidate:
    """One extracted rewrite.

    ``code`` is what the verifier builds: added includes, new helpers, the
    function. ``function_code`` is the function alone and ``helpers`` the new
    helper definitions (both go where the original function was);
    ``includes`` go at the top of the file.
    """

    code: str
    function_code: str
    includes: list[str] = field(default_factory=list)
    helpers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def replacement(self) -> str:
        """The text that replaces the original function in the file."""
        return "\n\n".join([*self.helpers, self.function_code])


@dataclass
class Extraction:
    candidate: Candidate | None
    reason: str = ""  # why there is no candidate

    @property
    def ok(self) -> bool:
        return self.candidate is not None


def strip_comments(code: str) -> str:
    return LINE_COMMENT.sub("", BLOCK_COMMENT.sub(" ", code))


def normalize(code: str) -> str:
    """The code without comments and with whitespace only where tokens need it (for comparing)."""
    text = " ".join(strip_comments(code).split())
    return re.sub(r"\s*([^\w\s])\s*", r"\1", text)


def code_blocks(raw: str) -> list[str]:
    """The fenced code blocks of ``raw``; the whole text when it has none."""
    blocks = [m.group(2) for m in FENCE.finditer(raw)]
    if blocks:
        return blocks
    return [raw]


def _functions(block: str, language: str) -> list[cparse.FunctionInfo]:
    try:
        return cparse.list_functions(block, language)
    except CParseError:
        return []
    except Exception:  # a tree-sitter failure on garbage is "no function here"
        return []


def _defined_names(text: str, language: str) -> set[str]:
    return {f.name for f in _functions(text, language)}


def _pragmas_above(block: str, start_byte: int) -> list[str]:
    """``#pragma omp`` lines directly above the definition starting at ``start_byte``."""
    before = block.encode()[:start_byte].decode("utf-8", errors="replace").rstrip("\n")
    lines = before.split("\n")
    found: list[str] = []
    while lines:
        line = lines[-1]
        if PRAGMA_LINE.match(line):
            found.insert(0, line.strip())
            lines.pop()
        elif not line.strip():
            lines.pop()
        else:
            break
    return found


def _first_loop_line(function_code: str, language: str) -> int | None:
    """0-based line of the first loop statement in the function's body."""
    tree = cparse.parse(function_code, language)
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in {"for_statement", "for_range_loop"}:
            return int(node.start_point[0])
        stack.extend(reversed(node.children))
    return None


def _move_pragmas_inside(function_code: str, pragmas: list[str], language: str) -> tuple[str, bool]:
    loop_pragmas = [p for p in pragmas if LOOP_PRAGMA.search(p)]
    if not loop_pragmas:
        return function_code, False
    line = _first_loop_line(function_code, language)
    if line is None:
        return function_code, False
    lines = function_code.split("\n")
    previous = lines[line - 1].strip() if line > 0 else ""
    if previous.startswith("#") and "pragma" in previous and "omp" in previous:
        return function_code, False  # the loop has its own pragma already
    indent = re.match(r"[ \t]*", lines[line]).group(0)  # type: ignore[union-attr]
    lines[line:line] = [indent + p for p in loop_pragmas]
    return "\n".join(lines), True


def _arity(signature: str) -> int:
    """Number of parameters in a signature ``ret name(a, b, c)``."""
    start = signature.find("(")
    if start < 0:
        return -1
    depth, count, seen = 0, 0, False
    for ch in signature[start + 1 :]:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
        elif not ch.isspace():
            seen = True
    inner = signature[start + 1 :].split(")")[0].strip()
    if not seen or inner == "void":
        return 0
    return count + 1


def _rename(function_code: str, old: str, new: str) -> str:
    return re.sub(rf"\b{re.escape(old)}\b", new, function_code)


def _missing_includes(code: str, language: str, have: str) -> list[str]:
    present = {" ".join(m.group(0).split()) for m in INCLUDE.finditer(have)}
    present_headers = {re.sub(r"\s", "", p) for p in present}
    out = []
    for pattern, include in NEEDS.get(language, []):
        header = re.sub(r"\s", "", include)
        if header in present_headers or include in out:
            continue
        if pattern.search(strip_comments(code)):
            out.append(include)
    return out


def _as_body(block: str, function: FunctionLike) -> str | None:
    """The function with ``block`` as its body, when a reply wrote only the body's statements; else None.

    Only a whole body is taken: it names every parameter the original's body uses and, when the original
    returns a value, returns one; a loop or the changed lines alone are not a body.
    """
    split = cparse.body_span(function.text, function.language)
    body = INCLUDE.sub("", block).strip("\n")
    if split is None or ";" not in strip_comments(body):
        return None
    original, words = strip_comments(split[1]), set(WORD.findall(strip_comments(body)))
    if any(p.name not in words for p in function.params if re.search(rf"\b{re.escape(p.name)}\b", original)):
        return None
    if re.search(r"\breturn\s*[^;\s]", original) and "return" not in words:
        return None
    header = split[0].rstrip()
    lines = body.split("\n")
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    code = header + " {\n" + "\n".join(("    " + line[indent:]) if line.strip() else "" for line in lines) + "\n}"
    try:
        if cparse.parse(code, function.language).root_node.has_error:
            return None
    except Exception:  # a tree-sitter failure on garbage is "not a body"
        return None
    defined = _functions(code, function.language)
    if len(defined) != 1 or defined[0].name != function.name:
        return None
    return code


def _file_scope_declarations(text: str, language: str) -> list[cparse.FileScopeDeclaration]:
    try:
        return cparse.file_scope_declarations(text, language)
    except Exception:  # a tree-sitter failure on garbage declares nothing
        return []


def _declarations_used(block: str, code: str, language: str, have: str) -> tuple[list[str], bool]:
    """The block's file-scope variables and types that ``code`` uses (directly or through each other)
    and the file does not declare, in the block's order; and whether any used one was the file's own."""
    declarations = _file_scope_declarations(block, language)
    theirs = {name for d in _file_scope_declarations(have, language) for name in d.names}
    theirs |= {m.group(1) for m in DEFINE.finditer(have)}
    words = set(WORD.findall(strip_comments(code)))
    kept: list[cparse.FileScopeDeclaration] = []
    while True:
        more = [d for d in declarations if d not in kept and set(d.names) & words and not set(d.names) & theirs]
        if not more:
            break
        kept += more
        for d in more:
            words |= set(WORD.findall(strip_comments(d.text)))
    own = any(set(d.names) & words and set(d.names) & theirs for d in declarations)
    kept.sort(key=lambda d: d.start_byte)
    return [d.text.strip() for d in kept], own


def extract(raw: str, function: FunctionLike, *, original_source: str = "") -> Extraction:
    """The candidate rewrite of ``function`` in the model output ``raw``.

    ``original_source`` is the whole file (its includes and helpers count as
    present); the function's ``context`` is used when it is not given.
    """
    if not raw or not raw.strip():
        return Extraction(None, "the model returned nothing")
    language = function.language
    name = function.name
    have = original_source or function.context
    known = _defined_names(have, language) | _defined_names(function.context, language)
    original_norm = normalize(function.text)

    blocks = code_blocks(raw)
    exact: list[tuple[int, cparse.FunctionInfo]] = []
    others: list[tuple[int, cparse.FunctionInfo]] = []
    parsed: list[list[cparse.FunctionInfo]] = []
    for b, block in enumerate(blocks):
        functions = _functions(block, language)
        parsed.append(functions)
        for f in functions:
            if f.name == name or f.qualified_name == getattr(function, "qualified_name", name):
                exact.append((b, f))
            elif f.name != "main" and f.name not in known:
                others.append((b, f))

    notes: list[str] = []

    def repaired(b: int, f: cparse.FunctionInfo, rename_from: str | None) -> tuple[str, bool]:
        code = f.text.strip("\n")
        if rename_from:
            code = _rename(code, rename_from, name)
        moved = False
        pragmas = _pragmas_above(blocks[b], f.start_byte)
        if pragmas:
            code, moved = _move_pragmas_inside(code, pragmas, language)
        return code, moved

    renamed_from: str | None = None
    info: cparse.FunctionInfo | None = None  # the rewrite's definition in the reply (None: a body alone)
    if exact:
        versions = [(b, f, *repaired(b, f, None)) for b, f in exact]
        differing = [v for v in versions if normalize(v[2]) != original_norm]
        if not differing:
            return Extraction(None, "the rewrite is identical to the original")
        b, info, function_code, moved = differing[-1]  # "original, then optimized": the last differing one
        if len(exact) > 1:
            notes.append(f"the reply defines {name} {len(exact)} times; took the last rewrite")
    else:
        arity = _arity(function.signature)
        same_arity = [(b, f) for b, f in others if _arity(f.signature) == arity]
        if same_arity:
            b, info = same_arity[-1]
            renamed_from = info.name
            function_code, moved = repaired(b, info, renamed_from)
            notes.append(f"renamed {renamed_from} back to {name}")
            if normalize(function_code) == original_norm:
                return Extraction(None, "the rewrite is identical to the original")
        elif not any(parsed):
            bodies = [(b, code) for b, code in ((b, _as_body(block, function)) for b, block in enumerate(blocks))
                      if code is not None]
            if not bodies:
                return Extraction(None, "the reply holds no C or C++ function definition")
            b, function_code = bodies[-1]
            if normalize(function_code) == original_norm:
                return Extraction(None, "the rewrite is identical to the original")
            moved = False
            notes.append(f"the reply wrote only the body of {name}; put it under the original's signature")
        else:
            return Extraction(None, f"the reply does not define {name} (or a function with its parameters)")
    if moved:
        notes.append("moved #pragma omp from above the function onto its first loop")
    block = blocks[b]

    # New helpers from the same block: not the function, not main, not already in the file.
    helpers: list[str] = []
    for f in parsed[b]:
        if f is info or f.name in {name, "main"} or f.name in known or f.name == renamed_from:
            continue
        if info is not None and f.start_byte > info.start_byte and f.name not in function_code:
            continue  # defined after the function and not used by it: an example or a test
        helpers.append(f.text.strip("\n"))
    if any(f.name in known for f in parsed[b] if f.name not in {name, "main"}):
        notes.append("dropped helpers the file already defines")
    # a body alone has no file scope: its declarations are its own statements
    declarations, theirs = _declarations_used(block, "\n".join([*helpers, function_code]), language, have) \
        if info is not None else ([], False)
    if declarations:
        helpers = [*declarations, *helpers]
        notes.append(f"kept {len(declarations)} file-scope declaration(s) the rewrite uses")
    if theirs:
        notes.append("dropped declarations the file already has")

    definitions = "\n\n".join([*helpers, function_code])
    written = [" ".join(m.group(0).split()) for m in INCLUDE.finditer(block)]
    present = {re.sub(r"\s", "", m.group(0)) for m in INCLUDE.finditer(have)}
    includes = [inc for inc in dict.fromkeys(written) if re.sub(r"\s", "", inc) not in present]
    unneeded = [inc for inc in includes if not _needed(inc, definitions, language)]
    if unneeded:
        includes = [inc for inc in includes if inc not in unneeded]
        notes.append(f"dropped {', '.join(unneeded)} (not used by the rewrite)")
    for inc in _missing_includes(definitions, language, have + "\n" + "\n".join(includes)):
        includes.append(inc)
        notes.append(f"added {inc}")
    # Macros the reply defines and the rewrite uses (and the file does not define) go with it.
    defined = {m.group(1) for m in DEFINE.finditer(have)}
    macros = [m.group(0).strip() for m in DEFINE.finditer(block)
              if m.group(1) not in defined and re.search(rf"\b{m.group(1)}\b", strip_comments(definitions))
              and m.group(0) not in definitions]
    if macros:
        definitions = "\n".join(dict.fromkeys(macros)) + "\n\n" + definitions
        helpers = ["\n".join(dict.fromkeys(macros)), *helpers]
        notes.append(f"kept {len(macros)} macro definition(s) the rewrite uses")
    code = "\n".join(includes) + ("\n\n" if includes else "") + definitions + "\n"
    return Extraction(
        Candidate(code=code, function_code=function_code, includes=includes, helpers=helpers, notes=notes)
    )


def dedupe_key(candidate: Candidate) -> str:
    """Candidates with the same key are the same code (comments and whitespace aside)."""
    return normalize(candidate.code)

"""The translation units of a worker: one side (the original or a candidate) and the type glue.

A worker (``worker.c``) is linked with two generated units:

* the **side unit**: the function's file-scope context, the function itself
  (the original, or the candidate with its helpers and includes) and the
  "side glue" (``_side_glue``) that stores the arguments, calls the function
  and shows what lives outside the shared buffers (``std::vector`` contents, a
  ``T&`` output, the return value);
* the **glue unit**, generated from the original's context alone, with the
  "type glue" (``_type_glue``): what each parameter's element type is, how
  many elements each size hypothesis gives, and how to generate inputs (a
  seeded generator with input *profiles*: random, wide-ranging, special
  values, sorted, reversed, constant, few distinct values, zero). A
  candidate's code is never compiled into it.

Every function and global defined in a unit is renamed with a macro
(``#define f perfalign_w_f`` in the side unit, ``perfalign_g_f`` in the glue),
so the context's helpers appear once in each unit without clashing.
"""
from __future__ import annotations

import re
from enum import IntEnum
from typing import Any

from ... import cparse
from ...cparse import FunctionInfo
from ._plan import HarnessPlan
from ._side_glue import SIDE, external_declaration, side_glue
from ._type_glue import type_glue

_IDENT = re.compile(r"[A-Za-z_]\w*")


class ArrayProfile(IntEnum):
    """How an array's elements are drawn (the numbers are the glue's)."""

    RANDOM = 0  # small values: [-1, 1) for floating point, -100..100 signed, 0..199 unsigned
    # Floating point over many magnitudes (1e-30..1e30; 1e-15..1e15 for 4-byte types), integers over the type's range
    # (or, where the original overflows there, over every magnitude below the bound it takes: ``Case.bound``).
    WIDE = 1
    SPECIAL = 2  # a third of the elements special: NaN, ±Inf, -0, denormals; 0, ±1, the type's limits
    SORTED = 3
    REVERSED = 4
    CONSTANT = 5  # one value repeated
    FEW = 6  # three distinct values
    ZERO = 7  # all zero (the low end of a stated range)
    ILL_CONDITIONED = 8  # floating point whose sums cancel (see ``judging/_accuracy``); otherwise as RANDOM


class ScalarProfile(IntEnum):
    """How a scalar parameter's value is drawn (the numbers are the glue's)."""

    RANDOM = 0  # 1..8, or 0.5..1.5 for floating point
    ZERO = 1
    NEGATIVE = 2  # -8..-1, or -1.5..-0.5
    LARGE = 3  # 1000..100999, or 1e3..1e6


_INCLUDE = re.compile(r"^\s*#\s*include\b.*$", re.MULTILINE)


def split_includes(text: str) -> tuple[list[str], str]:
    """Top-level #include lines (outside conditional blocks) and the remaining text."""
    includes: list[str] = []
    depth = 0
    rest: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#") and re.match(r"#\s*(if|ifdef|ifndef)\b", s):
            depth += 1
        elif s.startswith("#") and re.match(r"#\s*endif\b", s):
            depth -= 1
        if depth == 0 and _INCLUDE.match(line):
            includes.append(s)
            rest.append("")  # keep line numbers of the rest
        else:
            rest.append(line)
    return includes, "\n".join(rest)


_Q = "['\u2018\u2019`]"  # the compiler quotes with ' or with typographic quotes, by locale
_NAMED_HEADER = re.compile(rf"did you forget to {_Q}#include <([\w./]+)>{_Q}|include {_Q}<([\w./]+)>{_Q} or provide a "
                           "declaration")
_NOT_IN_STD = re.compile(rf"{_Q}(?:std::)?(\w+){_Q} is not a member of {_Q}std{_Q}")
_STD_HEADERS = {
    "algorithm": "all_of any_of none_of for_each count count_if find find_if mismatch equal copy copy_if copy_n "
                 "fill fill_n transform generate remove remove_if replace replace_if reverse rotate unique sort "
                 "stable_sort partial_sort nth_element lower_bound upper_bound binary_search merge min max minmax "
                 "min_element max_element minmax_element clamp swap_ranges is_sorted next_permutation",
    "numeric": "accumulate inner_product partial_sum adjacent_difference iota reduce transform_reduce "
               "inclusive_scan exclusive_scan gcd lcm",
    "cmath": "abs fabs sqrt cbrt exp exp2 log log2 log10 pow sin cos tan asin acos atan atan2 sinh cosh tanh floor "
             "ceil round trunc fmod hypot fma fmin fmax isnan isinf isfinite signbit copysign",
    "limits": "numeric_limits",
    "utility": "pair make_pair move",
    "tuple": "tuple make_tuple get tie",
    "complex": "complex conj norm arg polar",
    "functional": "function plus minus multiplies greater less",
    "cstring": "memcpy memset memmove memcmp strlen strcmp",
    "cstdlib": "malloc calloc free qsort",
    "array": "array",
    "string": "string to_string",
}
_STD_HEADER_OF = {name: header for header, names in _STD_HEADERS.items() for name in names.split()}


def missing_std_headers(compiler_output: str) -> list[str]:
    """Standard headers a unit failed for want of: those the compiler names, and the homes of ``std::`` names."""
    named = [m.group(1) or m.group(2) for m in _NAMED_HEADER.finditer(compiler_output)]
    named += [_STD_HEADER_OF[m.group(1)] for m in _NOT_IN_STD.finditer(compiler_output) if m.group(1) in _STD_HEADER_OF]
    return list(dict.fromkeys(h for h in named if re.fullmatch(r"[a-z_]+(\.h)?", h)))


def exported_names(text: str, language: str) -> list[str]:
    """Names of non-static functions and globals defined at file or namespace scope in ``text``."""
    tree = cparse.parse(text, language)
    names: list[str] = []
    for fn in cparse.list_functions(text, language):
        if not fn.is_static and not fn.is_method and fn.name != "main" and "operator" not in fn.name:
            names.append(fn.name)
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        for child in node.children:
            if child.type in {"namespace_definition", "declaration_list", "linkage_specification"}:
                stack.append(child)
            elif child.type == "declaration":
                storage = {cparse.node_text(c) for c in child.children if c.type == "storage_class_specifier"}
                if storage & {"static", "extern", "typedef"}:
                    continue
                for d in child.children_by_field_name("declarator"):
                    while d is not None and d.type in {"init_declarator", "pointer_declarator", "array_declarator"}:
                        d = d.child_by_field_name("declarator")
                    if d is not None and d.type == "identifier":
                        names.append(cparse.node_text(d))
    return list(dict.fromkeys(n for n in names if _IDENT.fullmatch(n)))


def _wrap_namespaces(text: str, namespaces: list[str]) -> str:
    if not namespaces:
        return text
    head = " ".join(f"namespace {n} {{" for n in namespaces)
    return f"{head} {text}\n{'}' * len(namespaces)}"


def unit_source(plan: HarnessPlan, code: str, *, context: str, namespaces: list[str] | None = None) -> str:
    """The side unit: the context, ``code`` (the function, maybe with helpers) and the side glue."""
    info = plan.function
    lang = plan.language
    ctx_includes, ctx_rest = split_includes(context)
    code_includes, code_rest = split_includes(code)
    code_rest = _wrap_namespaces(code_rest, namespaces or [])
    code_rest = _drop_main(code_rest, lang)
    ctx_rest = _drop_redefined(ctx_rest, lang, top_level_names(code_rest, lang))
    renamed = list(dict.fromkeys([info.name] + exported_names(ctx_rest, lang) + exported_names(code_rest, lang)))
    defines = "\n".join(f"#define {n} perfalign_{SIDE}_{n}" for n in renamed)
    needs_realloc = any(pp.container in {"strings", "rows"} for pp in plan.params)
    includes = list(dict.fromkeys(["#include <stddef.h>", "#include <string.h>",
                                   *(["#include <stdlib.h>"] if needs_realloc else []), *ctx_includes, *code_includes]))
    if lang == "cpp":
        includes.append("#include <vector>")
    if any(pp.container in {"string", "strings"} for pp in plan.params) and lang == "cpp":
        includes.append("#include <string>")
    glue = [external_declaration(plan), side_glue(plan, SIDE)]
    parts = [
        "/* generated by perfalign */",
        "\n".join(includes),
        defines,
        "#line 1 \"context\"",
        ctx_rest,
        "#line 1 \"function\"",
        code_rest,
        "#line 1 \"glue\"",
        macro_guard(code, "\n".join(glue), keep=context),
        defines,
        *glue,
    ]
    return "\n".join(parts) + "\n"


_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NOT_MACROS = {"defined", "__has_include", "__has_include_next", "__VA_ARGS__", "__VA_OPT__"}  # never a macro's name
_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:|\?\?=)(?:[ \t]|/\*.*?\*/)*define(?:[ \t]|/\*.*?\*/)+"
                        r"([A-Za-z_$][A-Za-z0-9_$]*)", re.M)
_LEXEME = re.compile(r"""(?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
                     r"""|(?P<line>//[^\n]*)|(?P<block>/\*.*?(?:\*/|\Z))""", re.S)


def defined_macros(code: str) -> set[str]:
    """Every name a ``#define`` of ``code`` may define, read as the preprocessor reads it, and read plainly.

    Line splices are joined; then comments become one space (so a comment
    that spans lines joins them, as it does for the preprocessor) and
    string and character literals are skipped whole. The directives found
    in the text as written are added, so nothing this reading takes for a
    comment or a literal can hide one.
    """
    text = re.sub(r"(?:\\|\?\?/)[ \t]*\r?\n", "", code)
    out: list[str] = []
    pos = 0
    for match in _LEXEME.finditer(text):
        out.append(text[pos:match.start()])
        out.append('""' if match.group("string") is not None else " ")
        pos = match.end()
    out.append(text[pos:])
    return set(_DIRECTIVE.findall("".join(out))) | set(_DIRECTIVE.findall(text))


def macro_guard(code: str, glue: str, *, keep: str = "") -> str:
    """``#undef`` lines that end, before the side glue, every macro ``code`` defines of a name the glue uses.

    The side glue follows the function in its unit, so a macro the function's
    text defines (``#define memcpy(d, s, n) ...``) would otherwise rewrite
    the glue that builds the inputs and copies the results, outside the calls
    perfalign times. The names the file's own context defines as macros stay
    (the glue may need them, and they are the original's too); so do the
    system headers' macros (``bool``). Our own renaming defines follow.
    """
    trusted = defined_macros(keep)
    names = sorted((defined_macros(code) & set(_IDENTIFIER.findall(glue))) - trusted - _NOT_MACROS)
    return "\n".join(f"#undef {name}" for name in names)


def glue_source(plan: HarnessPlan) -> str:
    """The glue unit: the original's context (for its types) and the type glue; no function of either side."""
    lang = plan.language
    ctx_includes, ctx_rest = split_includes(plan.function.context)
    defines = "\n".join(f"#define {n} perfalign_g_{n}" for n in exported_names(ctx_rest, lang))
    includes = list(dict.fromkeys(["#include <stddef.h>", "#include <string.h>", "#include <stdlib.h>",
                                   "#include <math.h>", *ctx_includes]))
    return "\n".join([
        "/* generated by perfalign */",
        "\n".join(includes),
        defines,
        "#line 1 \"context\"",
        ctx_rest,
        "#line 1 \"glue\"",
        type_glue(plan),
    ]) + "\n"


def namespaces_to_add(plan: HarnessPlan, candidate_info: FunctionInfo) -> list[str]:
    """The original's namespaces, when the candidate was written without them."""
    info = plan.function
    prefix = "::".join(info.namespaces) + "::"
    if info.namespaces and not candidate_info.namespaces and not candidate_info.qualified_name.startswith(prefix):
        return list(info.namespaces)
    return []


def top_level_names(text: str, language: str) -> dict[str, list[tuple[int, int]]]:
    """Names defined at file scope (functions, globals, macros, typedefs, struct tags) and their byte ranges."""
    tree = cparse.parse(text, language)
    out: dict[str, list[tuple[int, int]]] = {}

    def add(name: str, node: Any) -> None:
        out.setdefault(name, []).append((node.start_byte, node.end_byte))

    for fn in cparse.list_functions(text, language):
        out.setdefault(fn.qualified_name, []).append((fn.start_byte, fn.end_byte))
    def walk(parent: Any, prefix: str) -> None:
        for node in parent.children:
            t = node.type
            if t == "namespace_definition":
                name = node.child_by_field_name("name")
                body = node.child_by_field_name("body")
                if body is not None:
                    walk(body, prefix + (cparse.node_text(name) + "::" if name is not None else ""))
            elif t in {"preproc_def", "preproc_function_def"}:
                name = node.child_by_field_name("name")
                if name is not None:
                    add(cparse.node_text(name), node)
            elif t == "type_definition":
                for d in node.children_by_field_name("declarator"):
                    while d is not None and d.type not in {"type_identifier", "identifier"}:
                        d = d.child_by_field_name("declarator")
                    if d is not None:
                        add(prefix + cparse.node_text(d), node)
            elif t in {"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}:
                name = node.child_by_field_name("name")
                if name is not None and node.child_by_field_name("body") is not None:
                    add(prefix + cparse.node_text(name), node)
            elif t == "declaration":
                spec = node.child_by_field_name("type")
                if spec is not None and spec.type in {"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}:
                    name = spec.child_by_field_name("name")
                    if name is not None and spec.child_by_field_name("body") is not None:
                        add(prefix + cparse.node_text(name), node)
                for d in node.children_by_field_name("declarator"):
                    while d is not None and d.type in {"init_declarator", "pointer_declarator", "array_declarator"}:
                        d = d.child_by_field_name("declarator")
                    if d is not None and d.type == "identifier":
                        add(prefix + cparse.node_text(d), node)

    walk(tree.root_node, "")
    return out


def _drop_redefined(context: str, language: str, names: dict[str, list[tuple[int, int]]]) -> str:
    """The context without what the candidate defines again (its own version wins)."""
    if not names:
        return context
    data = context.encode("utf-8")
    cuts = sorted(
        {r for name, ranges in top_level_names(context, language).items() if name in names for r in ranges},
        reverse=True,
    )
    last_start = None
    for start, end in cuts:
        if last_start is not None and end > last_start:
            continue
        blank = b"\n" * data[start:end].count(b"\n")
        data = data[:start] + blank + data[end:]
        last_start = start
    return data.decode("utf-8", errors="replace")


def _drop_main(code: str, language: str) -> str:
    data = code.encode("utf-8")
    for fn in sorted(cparse.list_functions(code, language), key=lambda f: -f.start_byte):
        if fn.name == "main" and not fn.namespaces:
            data = data[: fn.start_byte] + b"\n" * fn.text.count("\n") + data[fn.end_byte :]
    return data.decode("utf-8", errors="replace")

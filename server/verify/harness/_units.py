"""The translation units of a worker: one side (the original or a candidate) and the type glue.

A worker (``worker.c``) is linked with two generated units:

* the **side unit**: the function's file-scope context, the function itself
  (the original, or the candidate with its helpers and includes) and the
  "side glue" that stores the arguments, calls the function and shows what
  lives outside the shared buffers (``std::vector`` contents, a ``T&`` output,
  the return value);
* the **glue unit**, generated from the original's context alone: what each
  parameter's element type is, how many elements each size hypothesis gives,
  and how to generate inputs (a seeded generator with input *profiles*:
  random, wide-ranging, special values, sorted, reversed, constant, few
  distinct values, zero). A candidate's code is never compiled into it.

Every function and global defined in a unit is renamed with a macro
(``#define f perfalign_w_f`` in the side unit, ``perfalign_g_f`` in the glue),
so the context's helpers appear once in each unit without clashing.
"""
from __future__ import annotations

import re
from enum import IntEnum
from typing import Any

from ... import cparse
from ...cparse import FunctionInfo, Role
from ._plan import PROBLEM_SIZE, STRING_SLOT, HarnessPlan, Kind, ReturnKind

SIDE = "w"  # the side glue's names: perfalign_setup_w, perfalign_call_w, ...
_IDENT = re.compile(r"[A-Za-z_]\w*")


class ArrayProfile(IntEnum):
    """How an array's elements are drawn (the numbers are the glue's)."""

    RANDOM = 0  # small values: [-1, 1) for floating point, -100..100 signed, 0..199 unsigned
    WIDE = 1  # floating point over many magnitudes (1e-30..1e30; 1e-15..1e15 for 4-byte types), integers over the type's range
    SPECIAL = 2  # a third of the elements special: NaN, ±Inf, -0, denormals; 0, ±1, the type's limits
    SORTED = 3
    REVERSED = 4
    CONSTANT = 5  # one value repeated
    FEW = 6  # three distinct values
    ZERO = 7  # all zero (the low end of a stated range)


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
    glue = [_external_declaration(plan), _side_glue(plan, SIDE)]
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
        _type_glue(plan),
    ]) + "\n"


def _external_declaration(plan: HarnessPlan) -> str:
    """In C, an ``extern`` declaration makes a plain ``inline`` definition an external one the glue can call."""
    if plan.language != "c":
        return ""
    words = [w for w in plan.function.signature.split(" ") if w not in {"static", "inline", "__inline", "__inline__", "extern"}]
    return "extern " + " ".join(words) + ";"


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


def _callee(plan: HarnessPlan) -> str:
    info = plan.function
    name = info.qualified_name if plan.language == "cpp" else info.name
    if plan.template_args:
        name += "<" + ", ".join(plan.template_args) + " >"
    return name


def _side_glue(plan: HarnessPlan, side: str) -> str:
    cpp = plan.language == "cpp"
    ext = 'extern "C" ' if cpp else ""
    decls: list[str] = []
    setup: list[str] = []
    args: list[str] = []
    views: list[str] = []
    for pp in plan.params:
        v = f"perfalign_{side}_a{pp.index}"
        t = pp.ctype
        e, w, buf = pp.element, pp.width, f"bufs[{pp.index}]"
        if pp.container in {"rows", "nested"}:
            # Rows one after the other in the buffer: the row count from the lengths, or square.
            rows = _rows_expr(plan, pp.index, pp.rows)
            cnt = f"counts[{pp.index}]"
            setup.append(f"{{ size_t r = {rows}, c; if (r > {cnt}) r = 0; c = r ? {cnt} / r : 0; "
                         f"{v}_r = r; {v}_c = c; }}")
        if pp.container == "rows":
            decls.append(f"static {e} **{v}; static size_t {v}_cap, {v}_r, {v}_c;")
            setup.append(f"if ({v}_r > {v}_cap) {{ {v}_cap = {v}_r; "
                         f"{v} = ({e} **)realloc((void *){v}, {v}_cap * sizeof *{v}); }}")
            setup.append(f"for (size_t k = 0; k < {v}_r; k++) {v}[k] = ({e} *){buf} + k * {v}_c;")
            args.append(f"({pp.param.type}){v}")
        elif pp.container == "nested":
            decls.append(f"static std::vector<std::vector<{e} > > {v}; static std::vector<{e} > {v}_flat; "
                         f"static size_t {v}_r, {v}_c;")
            setup.append(f"{v}.assign({v}_r, std::vector<{e} >()); for (size_t k = 0; k < {v}_r; k++) "
                         f"{v}[k].assign(({e} *){buf} + k * {v}_c, ({e} *){buf} + (k + 1) * {v}_c);")
            args.append(v)
            # Shown as the rows one after the other, then each row's size: a row resized shows.
            views.append(f"case {pp.index}: {v}_flat.clear(); for (const std::vector<{e} > &row : {v}) "
                         f"{v}_flat.insert({v}_flat.end(), row.begin(), row.end()); "
                         f"for (const std::vector<{e} > &row : {v}) "
                         f"{v}_flat.push_back(({e})row.size()); *data = (void *){v}_flat.data(); "
                         f"*count = {v}_flat.size(); return;")
        elif pp.container == "strings" and pp.kind == Kind.IN:
            # const char **: a pointer to each string's slot.
            decls.append(f"static const char **{v}; static size_t {v}_cap;")
            setup.append(f"if (counts[{pp.index}] / {w} > {v}_cap) {{ {v}_cap = counts[{pp.index}] / {w}; "
                         f"{v} = (const char **)realloc((void *){v}, {v}_cap * sizeof *{v}); }}")
            setup.append(f"for (size_t k = 0; k < counts[{pp.index}] / {w}; k++) "
                         f"{v}[k] = (const char *){buf} + k * {w};")
            args.append(f"({pp.param.type}){v}")
        elif pp.kind in {Kind.IN, Kind.OUT}:
            # Records are runs of numbers in the buffer: a struct Point {double x, y;} is two doubles.
            decls.append(f"static {e} *{v};")
            setup.append(f"{v} = ({e} *){buf};")
            args.append(f"*{v}" if pp.single else v)
        elif pp.container == "strings":
            # std::vector<std::string>: built from the slots; shown as its strings, each followed by a NUL.
            decls.append(f"static std::vector<std::string> {v}; static std::string {v}_flat;")
            setup.append(f"{v}.clear(); for (size_t k = 0; k < counts[{pp.index}] / {w}; k++) "
                         f"{v}.emplace_back((const char *){buf} + k * {w});")
            args.append(v)
            views.append(f"case {pp.index}: {v}_flat.clear(); for (const std::string &s : {v}) "
                         f"{{ {v}_flat += s; {v}_flat += '\\0'; }} *data = (void *){v}_flat.data(); "
                         f"*count = {v}_flat.size(); return;")
        elif pp.container == "string":
            decls.append(f"static std::string {v};")
            setup.append(f"{v}.assign((const char *){buf}, counts[{pp.index}] ? counts[{pp.index}] - 1 : 0);")
            args.append(v)
            views.append(f"case {pp.index}: *data = (void *){v}.data(); *count = {v}.size(); return;")
        elif pp.container == "array":
            decls.append(f"static std::array<{e}, {pp.param.extent}> {v};")
            setup.append(f"for (size_t k = 0; k < {v}.size() && (k + 1) * {w} <= counts[{pp.index}]; k++) "
                         f"{v}[k] = (({e} *){buf})[k];")
            args.append(v)
            views.append(f"case {pp.index}: *data = (void *){v}.data(); *count = {v}.size() * {w}; return;")
        elif pp.kind in {Kind.VEC_IN, Kind.VEC_OUT}:
            decls.append(f"static std::vector<{e} > {v};")
            setup.append(f"{v}.assign(({e} *){buf}, ({e} *){buf} + counts[{pp.index}] / {w});")
            args.append(v)
            views.append(f"case {pp.index}: *data = (void *){v}.data(); *count = {v}.size() * {w}; return;")
        elif pp.kind == Kind.REF:
            decls.append(f"static {t} {v};")
            setup.append(f"{v} = *({t} *)bufs[{pp.index}];")
            args.append(v)
            views.append(f"case {pp.index}: *data = (void *)&{v}; *count = 1; return;")
        else:
            decls.append(f"static {t} {v};")
            if cparse.is_float_type(t) or (pp.value is None and not cparse.is_integer_type(t)
                                           and t in plan.template_args):
                setup.append(f"{v} = ({t})reals[{pp.index}];")
            else:
                setup.append(f"{v} = ({t})(perfalign_isfloat_{side}(({t})0.5) ? reals[{pp.index}] : (double)ints[{pp.index}]);")
            args.append(v)
    call = f"{_callee(plan)}({', '.join(args)})"
    ret_decl = ""
    if plan.return_kind is ReturnKind.VECTOR and plan.return_record:
        # A returned record (or std::array) of numbers: compared like a returned vector of its numbers.
        ret = f"perfalign_{side}_ret"
        ret_decl = f"static {plan.return_record} {ret};"
        call_stmt = f"{ret} = {call};"
        ret_raw = "(void)out; return 0;"
        views.append(f"case -1: *data = (void *)&{ret}; *count = sizeof {ret} / sizeof({plan.return_element}); return;")
    elif plan.return_kind is ReturnKind.VECTOR:
        ret_decl = f"static std::vector<{plan.return_element} > perfalign_{side}_ret;"
        call_stmt = f"perfalign_{side}_ret = {call};"
        ret_raw = "(void)out; return 0;"
        views.append(f"case -1: *data = (void *)perfalign_{side}_ret.data(); *count = perfalign_{side}_ret.size(); return;")
    elif plan.return_kind is not ReturnKind.VOID:
        ret_decl = f"static {plan.return_type} perfalign_{side}_ret;"
        call_stmt = f"perfalign_{side}_ret = {call};"
        ret_raw = f"memcpy(out, &perfalign_{side}_ret, sizeof perfalign_{side}_ret); return sizeof perfalign_{side}_ret;"
    else:
        call_stmt = f"{call};"
        ret_raw = "(void)out; return 0;"
    helpers = []
    if any(pp.container in {"rows", "nested"} for pp in plan.params):
        helpers = [
            f"static long long perfalign_max_{side}(long long a, long long b) {{ return a > b ? a : b; }}",
            f"static size_t perfalign_isqrt_{side}(size_t n) {{ size_t r = 0; while ((r + 1) * (r + 1) <= n) r++; "
            "return r; }",
        ]
    return "\n".join([
        f"static int perfalign_isfloat_{side}(double half) {{ return half != 0; }}",
        *helpers,
        *decls,
        ret_decl,
        f"{ext}void perfalign_setup_{side}(void **bufs, const size_t *counts, const long long *ints, const double *reals) {{",
        "    (void)bufs; (void)counts; (void)ints; (void)reals;",
        *["    " + s for s in setup],
        "}",
        f"{ext}void perfalign_call_{side}(void) {{ {call_stmt} }}",
        f"{ext}void perfalign_view_{side}(int i, void **data, size_t *count) {{",
        "    switch (i) {",
        *["    " + s for s in views],
        "    default: *data = 0; *count = (size_t)-1; return;",
        "    }",
        "}",
        f"{ext}size_t perfalign_ret_raw_{side}(void *out) {{ {ret_raw} }}",
    ])


def _rows_expr(plan: HarnessPlan, index: int, rows: str) -> str:
    """The row count in the side glue: ``rows`` with each length read from the call's integers; or square."""
    if not rows:
        return f"perfalign_isqrt_{SIDE}(counts[{index}])"
    out = rows.replace("perfalign_max(", f"perfalign_max_{SIDE}(")
    for pp in plan.lengths:
        out = re.sub(rf"\b{re.escape(pp.param.name)}\b", f"((long long)ints[{pp.index}])", out)
    return f"(size_t)perfalign_max_{SIDE}(0, (long long)({out}))"


def _length_locals(plan: HarnessPlan) -> str:
    out = [f"long long {pp.param.name} = lens[{pp.index}]; (void){pp.param.name};" for pp in plan.lengths]
    out.append(f"long long {PROBLEM_SIZE} = lens[{len(plan.params)}]; (void){PROBLEM_SIZE};")
    return " ".join(out)


def _slug(t: str) -> str:
    return re.sub(r"\W+", "_", t).strip("_") or "t"




_PRELUDE = r"""
#define PF_ISF(t) ((((t)0.5) != 0) && (((t)1.5) != ((t)1)))
#define PF_SGN(t) (((t)-1) < 0)
static long long perfalign_max(long long a, long long b) { return a > b ? a : b; }
static unsigned long long perfalign_next(unsigned long long *s) {
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL; z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double perfalign_unit(unsigned long long *s) { return (double)(perfalign_next(s) >> 11) * (1.0 / 9007199254740992.0); }
static double perfalign_wide(unsigned long long *s, int small) {
    double v = pow(10.0, (2.0 * perfalign_unit(s) - 1.0) * (small ? 15.0 : 30.0));
    return (perfalign_next(s) & 1) ? -v : v;
}
static void perfalign_fill_string(char *p, size_t count, unsigned long long *rng, int variant) {
    static const char letters[] = "abcdefghij klmnopqrstuvwxyz,.ABC";
    int profile = variant & 0xff;
    size_t j;
    for (j = 0; j + 1 < count; j++) {
        if (profile == 7) p[j] = 0;
        else if (profile == 5) p[j] = 'a';
        else if (profile == 6) p[j] = "ab "[perfalign_next(rng) % 3];
        else p[j] = letters[perfalign_next(rng) % 32];
    }
    if (count) p[count - 1] = 0;
}
static void perfalign_fill_slots(char *p, size_t count, unsigned long long *rng, int variant) {
    /* A list of strings: a slot of @SLOT@ bytes each, up to @SLOT@ - 1 characters and NULs after them. */
    int profile = variant & 0xff;
    size_t same = (size_t)(perfalign_next(rng) % @SLOT@), j, k;
    for (j = 0; j + @SLOT@ <= count; j += @SLOT@) {
        size_t len = profile == 7 ? 0 : profile == 5 ? same : (size_t)(perfalign_next(rng) % @SLOT@);
        perfalign_fill_string(p + j, len + 1, rng, variant);
        for (k = j + len + 1; k < j + @SLOT@; k++) p[k] = 0;
    }
    for (; j < count; j++) p[j] = 0;
}
"""

_TYPED = r"""
static @T@ perfalign_draw_@SLUG@(unsigned long long *rng, int profile, int ranged, double lo, double hi, int kind) {
    if (ranged) {
        if (PF_ISF(@T@)) return (@T@)(lo + (hi - lo) * perfalign_unit(rng));
        return (@T@)((long long)lo + (long long)(perfalign_next(rng) % (unsigned long long)((long long)hi - (long long)lo + 1)));
    }
    if (profile == 1) {
        if (PF_ISF(@T@)) return (@T@)perfalign_wide(rng, sizeof(@T@) <= 4);
        return (@T@)perfalign_next(rng);
    }
    if (profile == 2 && perfalign_next(rng) % 3 == 0) {
        /* One kind of special value per array (NaN alone, +Inf alone, ...), or all kinds mixed. */
        unsigned long long k = kind < 6 ? (unsigned long long)kind : perfalign_next(rng) % 6, bits = 8 * sizeof(@T@);
        if (PF_ISF(@T@)) {
            double tiny = sizeof(@T@) <= 4 ? 1e-40 : 4.9e-324;
            switch (k) {
            case 0: return (@T@)NAN;
            case 1: return (@T@)INFINITY;
            case 2: return (@T@)-INFINITY;
            case 3: return (@T@)-0.0;
            case 4: return (@T@)tiny;
            default: return (@T@)-tiny;
            }
        }
        if (PF_SGN(@T@)) {
            @T@ top = (@T@)(((unsigned long long)1 << (bits - 1)) - 1);
            switch (k) {
            case 0: return (@T@)0;
            case 1: return (@T@)1;
            case 2: return (@T@)-1;
            case 3: return top;
            case 4: return (@T@)(-top - 1);
            default: return (@T@)0;
            }
        } else {
            @T@ top = (@T@)~0ULL;
            switch (k) {
            case 0: return (@T@)0;
            case 1: return (@T@)1;
            case 2: case 3: return top;
            default: return (@T@)(top - 1);
            }
        }
    }
    if (PF_ISF(@T@)) return (@T@)(2.0 * perfalign_unit(rng) - 1.0);
    if (PF_SGN(@T@)) return (@T@)((long long)(perfalign_next(rng) % 201) - 100);
    return (@T@)(perfalign_next(rng) % 200);
}
static void perfalign_sort_@SLUG@(@T@ *p, size_t n) {
    /* Quicksort on the typed elements (qsort calls a function per comparison, and sorting an input of the problem
       size dominated the inputs' cost): the median of three as the pivot, the smaller side first, insertion sort
       for short runs. The sorted profiles hold no NaN. */
    while (n > 16) {
        size_t m = n / 2, i, j;
        @T@ t, pivot;
        if (p[m] < p[0]) { t = p[m]; p[m] = p[0]; p[0] = t; }
        if (p[n - 1] < p[0]) { t = p[n - 1]; p[n - 1] = p[0]; p[0] = t; }
        if (p[n - 1] < p[m]) { t = p[n - 1]; p[n - 1] = p[m]; p[m] = t; }
        t = p[m]; p[m] = p[0]; p[0] = t;  /* the median first: Hoare's partition then splits in two non-empty parts */
        pivot = p[0];
        i = 0;
        j = n;
        for (;;) {
            while (p[i] < pivot) i++;
            do j--; while (pivot < p[j]);
            if (i >= j) break;
            t = p[i]; p[i] = p[j]; p[j] = t;
            i++;
        }
        /* p[0..j] <= pivot <= p[j+1..n-1], both non-empty */
        if (j + 1 < n - j - 1) {
            perfalign_sort_@SLUG@(p, j + 1);
            p += j + 1;
            n -= j + 1;
        } else {
            perfalign_sort_@SLUG@(p + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    {
        size_t i, k;
        for (i = 1; i < n; i++) {
            @T@ v = p[i];
            for (k = i; k > 0 && v < p[k - 1]; k--) p[k] = p[k - 1];
            p[k] = v;
        }
    }
}
static void perfalign_fill_@SLUG@(@T@ *p, size_t count, unsigned long long *rng, int variant, int ranged, double lo, double hi) {
    /* The low byte is the profile; above it, for special values, which kind (6: all kinds mixed). */
    int profile = variant & 0xff;
    size_t j;
    if (profile == 7) { @T@ z = ranged ? (@T@)lo : (@T@)0; for (j = 0; j < count; j++) p[j] = z; return; }
    if (profile == 5) { @T@ v = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6); for (j = 0; j < count; j++) p[j] = v; return; }
    if (profile == 6) {
        @T@ v[3];
        v[0] = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6);
        v[1] = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6);
        v[2] = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6);
        for (j = 0; j < count; j++) p[j] = v[perfalign_next(rng) % 3];
        return;
    }
    {
        int kind = profile == 2 ? (variant >> 8) % 7 : 6;
        for (j = 0; j < count; j++)
            p[j] = perfalign_draw_@SLUG@(rng, (profile == 1 || profile == 2) ? profile : 0, ranged, lo, hi, kind);
    }
    if (profile == 3 || profile == 4) {
        perfalign_sort_@SLUG@(p, count);
        if (profile == 4)
            for (j = 0; j < count / 2; j++) { @T@ x = p[j]; p[j] = p[count - 1 - j]; p[count - 1 - j] = x; }
    }
}
"""


def _leaf(obj: str, name: str, k: int) -> str:
    """Leaf ``k`` of the record ``obj``: ``obj.pos.x``, ``obj.c[1]``; a tuple's element by ``std::get``."""
    return f"{obj}.{name}" if name else f"std::get<{k}>({obj})"


def _record_glue(plan: HarnessPlan) -> str:
    """For records whose numbers differ in type: a generator field by field, and each field's place and type.

    The buffer holds the records themselves, zeroed first; each field is drawn as an array of its own type
    (with the case's profile) and stored into its place. ``perfalign_field`` tells the worker each field's
    offset, size and kind, so results are compared field by field and padding never is.
    """
    ext = 'extern "C" ' if plan.language == "cpp" else ""
    out: list[str] = []
    nfields: list[str] = []
    field_cases: list[str] = []
    records = [(pp.index, pp.record, pp.fields, pp.mixed, pp.field_ranges) for pp in plan.params if pp.mixed]
    if plan.return_mixed and plan.return_kind is ReturnKind.VECTOR:
        records.append((-1, plan.return_record, plan.return_fields, plan.return_mixed, {}))
    for i, record, names, types, ranges in records:
        tag = f"m{-i}" if i < 0 else str(i)
        probe = f"perfalign_probe_{tag}"
        out.append(f"static {record} {probe};")
        if i >= 0:
            stores = []
            for k, (name, t) in enumerate(zip(names, types)):
                lo, hi = ranges.get(k, ("0", "0"))
                stores.append(f"perfalign_fill_{_slug(t)}(({t} *)perfalign_tmp, perfalign_count, perfalign_rng, "
                              f"perfalign_variant, {int(k in ranges)}, (double)({lo}), (double)({hi})); "
                              "for (perfalign_j = 0; perfalign_j < perfalign_count; perfalign_j++) "
                              f"{_leaf('perfalign_p[perfalign_j]', name, k)} = (({t} *)perfalign_tmp)[perfalign_j];")
            # The lengths are locals named as the parameters (a range may use them): every other name is ours.
            out.append("\n".join([
                f"static void perfalign_fill_record_{i}(void *perfalign_data, size_t perfalign_count, "
                "unsigned long long *perfalign_rng, const long long *lens, int perfalign_variant) {",
                f"    {record} *perfalign_p = ({record} *)perfalign_data; size_t perfalign_j;",
                "    void *perfalign_tmp = malloc(perfalign_count * 16 + 16);",
                f"    memset(perfalign_data, 0, perfalign_count * sizeof({record}));",
                "    if (!perfalign_tmp) return;",
                "    {",
                f"    {_length_locals(plan)}",
                *[f"    {line}" for line in stores],
                "    }",
                "    free(perfalign_tmp);",
                "}",
            ]))
        nfields.append(f"case {i}: return {len(names)};")
        leaves = " ".join(
            f"case {k}: return perfalign_leaf((const char *)&{_leaf(probe, name, k)} - (const char *)&{probe}, "
            f"sizeof({t}), PF_ISF({t}), PF_SGN({t}), what);"
            for k, (name, t) in enumerate(zip(names, types)))
        field_cases.append(f"case {i}: switch (k) {{ {leaves} default: return 0; }}")
    return "\n".join([
        "static inline long long perfalign_leaf(long long offset, size_t size, int isf, int sgn, int what) {",
        "    return what == 0 ? offset : what == 1 ? (long long)size : what == 2 ? isf : sgn;",
        "}",
        *out,
        f"{ext}int perfalign_nfields(int i) {{ switch (i) {{ {' '.join(nfields)} default: return 0; }} }}",
        f"{ext}long long perfalign_field(int i, int k, int what) {{",
        f"    switch (i) {{ {' '.join(field_cases)} default: return 0; }}",
        "}",
    ])


def _type_glue(plan: HarnessPlan) -> str:
    ext = 'extern "C" ' if plan.language == "cpp" else ""
    n = len(plan.params)
    kinds = ", ".join(str(int(pp.kind)) for pp in plan.params) or "0"
    names = ", ".join(f'"{pp.param.name}"' for pp in plan.params) or '""'
    esize: list[str] = []
    isfloat: list[str] = []
    issigned: list[str] = []
    nhyp: list[str] = []
    count_cases: list[str] = []
    fill_cases: list[str] = []
    int_values: list[str] = []
    real_values: list[str] = []
    locals_ = _length_locals(plan)
    arrays = [pp for pp in plan.params if pp.kind != Kind.VALUE]
    for pp in plan.params:
        t, i = pp.ctype, pp.index
        if pp.kind != Kind.VALUE:
            esize.append(f"case {i}: return sizeof({t});")
            if not pp.mixed:
                isfloat.append(f"case {i}: return PF_ISF({t});")
                issigned.append(f"case {i}: return PF_SGN({t});")
            nhyp.append(f"case {i}: return {len(pp.hypotheses)};")
            width = f" * {pp.width}" if pp.width > 1 else ""
            hyps = " ".join(f"case {h}: v = (long long)({expr}){width}; break;" for h, expr in enumerate(pp.hypotheses))
            count_cases.append(f"case {i}: switch (hyp) {{ {hyps} default: v = 0; }} break;")
            if pp.mixed:
                fill_cases.append(f"case {i}: perfalign_fill_record_{i}(data, count, rng, lens, profile); break;")
            elif pp.container == "strings":
                fill_cases.append(f"case {i}: perfalign_fill_slots((char *)data, count, rng, profile); break;")
            elif pp.param.role is Role.STRING or pp.container == "string":
                fill_cases.append(f"case {i}: perfalign_fill_string((char *)data, count, rng, profile); break;")
            else:
                lo, hi = pp.range if pp.range is not None else ("0", "0")
                ranged = 1 if pp.range is not None else 0
                fill_cases.append(
                    f"case {i}: {{ {locals_} perfalign_fill_{_slug(t)}(({t} *)data, count, rng, profile, {ranged}, "
                    f"(double)({lo}), (double)({hi})); }} break;"
                )
        elif pp.value is not None:
            int_values.append(f"case {i}: return (long long)({pp.value});")
            real_values.append(f"case {i}: return (double)({pp.value});")
        elif pp.param.role is Role.LENGTH:
            int_values.append(f"case {i}: return lens[{i}];")
        elif pp.range is not None:
            lo, hi = pp.range
            int_values.append(
                f"case {i}: {{ long long lo = (long long)({lo}), hi = (long long)({hi}); "
                "if (profile == 1 || profile == 2) return lo; if (profile == 3) return hi; "
                "return lo + (long long)(perfalign_next(rng) % (unsigned long long)(hi - lo + 1)); }"
            )
            real_values.append(
                f"case {i}: {{ double lo = (double)({lo}), hi = (double)({hi}); "
                "if (profile == 1 || profile == 2) return lo; if (profile == 3) return hi; "
                "return lo + (hi - lo) * perfalign_unit(rng); }"
            )
    if plan.return_kind is ReturnKind.VECTOR:
        ret_type = plan.return_element
    elif plan.return_kind is ReturnKind.VOID:
        ret_type = ""
    else:
        ret_type = plan.return_type
    number_types = [t for pp in arrays if pp.param.role is not Role.STRING
                    and pp.container not in {"string", "strings"} for t in (pp.mixed or [pp.ctype])]
    typed = [_TYPED.replace("@T@", t).replace("@SLUG@", _slug(t)) for t in dict.fromkeys(number_types)]
    ret_number = bool(ret_type) and not (plan.return_mixed and plan.return_kind is ReturnKind.VECTOR)
    return "\n".join([
        _PRELUDE.replace("@SLOT@", str(STRING_SLOT)),
        *typed,
        _record_glue(plan),
        f"{ext}int perfalign_nparams = {n};",
        f"{ext}const int perfalign_kinds[] = {{{kinds}}};",
        f"{ext}const char *perfalign_names[] = {{{names}}};",
        f"{ext}int perfalign_ret_kind = {int(plan.return_kind)};",
        f"{ext}size_t perfalign_esize(int i) {{ switch (i) {{ {' '.join(esize)} default: return 1; }} }}",
        f"{ext}int perfalign_elem_float(int i) {{ switch (i) {{ {' '.join(isfloat)} default: return 0; }} }}",
        f"{ext}int perfalign_elem_signed(int i) {{ switch (i) {{ {' '.join(issigned)} default: return 0; }} }}",
        f"{ext}int perfalign_nhyp(int i) {{ switch (i) {{ {' '.join(nhyp)} default: return 1; }} }}",
        f"{ext}int perfalign_ret_esize(void) {{ return {f'(int)sizeof({ret_type})' if ret_type else '0'}; }}",
        f"{ext}int perfalign_ret_float(void) {{ return {f'PF_ISF({ret_type})' if ret_number else '0'}; }}",
        f"{ext}int perfalign_ret_signed(void) {{ return {f'PF_SGN({ret_type})' if ret_number else '0'}; }}",
        f"{ext}long long perfalign_count(int i, int hyp, const long long *lens) {{",
        f"    long long v = 0; {locals_}",
        f"    switch (i) {{ {' '.join(count_cases)} default: v = 0; }}",
        "    return v < 0 ? 0 : v;",
        "}",
        f"{ext}void perfalign_fill(int i, void *data, size_t count, unsigned long long *rng, const long long *lens, int profile) {{",
        "    (void)lens;",
        f"    switch (i) {{ {' '.join(fill_cases)} default: break; }}",
        "}",
        f"{ext}long long perfalign_int_value(int i, const long long *lens, unsigned long long *rng, int profile) {{",
        f"    {locals_}",
        f"    switch (i) {{ {' '.join(int_values)} default: break; }}",
        "    switch (profile) {",
        "    case 1: return 0;",
        "    case 2: return -(1 + (long long)(perfalign_next(rng) % 8));",
        "    case 3: return 1000 + (long long)(perfalign_next(rng) % 100000);",
        "    default: return 1 + (long long)(perfalign_next(rng) % 8);",
        "    }",
        "}",
        f"{ext}double perfalign_real_value(int i, const long long *lens, unsigned long long *rng, int profile) {{",
        f"    {locals_}",
        f"    switch (i) {{ {' '.join(real_values)} default: break; }}",
        "    switch (profile) {",
        "    case 1: return 0.0;",
        "    case 2: return -(0.5 + perfalign_unit(rng));",
        "    case 3: return pow(10.0, 3.0 + 3.0 * perfalign_unit(rng));",
        "    default: return 0.5 + perfalign_unit(rng);",
        "    }",
        "}",
    ])

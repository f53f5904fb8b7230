"""Generate the test-and-timing harness for one C or C++ function.

A harness is three translation units:

* the original unit: the function's file-scope context, the original function,
  the "side glue" that stores arguments and calls it, and the "type glue" that
  knows each parameter's element type (fill with random values, compare,
  element counts for each size hypothesis);
* the candidate unit: the same context, the candidate code and its side glue;
* the driver: plain C that also compiles as C++, with no knowledge of the
  types. It allocates buffers, calls the glue, compares results, times calls.

Every function and global defined in a unit is renamed with a macro
(``#define f perfalign_o_f`` / ``perfalign_c_f``), so the original and the
candidate link into one program without clashing and neither can be inlined
into the driver. The driver's mode is chosen on the command line (``probe``,
``check``, ``calibrate``, ``time``), so the same sources can be rebuilt with
another compiler or sanitizer and run in ``check`` mode.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from .. import cparse
from ..cparse import FunctionInfo, Param, Role
from ..errors import CParseError, HarnessError


class Kind(IntEnum):
    """A parameter's kind as the driver sees it (the numbers are the driver's)."""

    VALUE = 0  # length or scalar: passed by value, nothing to compare
    IN = 1  # const array or string: must be left unchanged
    OUT = 2  # writable array: compared after the call
    VEC_IN = 3  # const std::vector: must be left unchanged
    VEC_OUT = 4  # writable std::vector: size and elements compared
    REF = 5  # T& scalar output: compared


class ReturnKind(IntEnum):
    """What the function returns, as the driver sees it (the numbers are the driver's)."""

    VOID = 0
    INTEGER = 1
    FLOAT = 2
    TYPEDEF = 3  # integer or floating point: decided when compiled
    VECTOR = 4  # a std::vector of numbers

ARRAY_ROLES = {Role.IN_ARRAY, Role.OUT_ARRAY, Role.INOUT_ARRAY, Role.STRING}
PROBLEM_SIZE = "PF_N"  # the problem size, for sizes that no length parameter gives

_IDENT = re.compile(r"[A-Za-z_]\w*")
_C_WORDS = {"sizeof", "int", "long", "unsigned", "size_t", "double", "float", "char"}


@dataclass
class ParamPlan:
    param: Param
    index: int
    kind: Kind
    ctype: str  # the element (or value) type with template parameters replaced
    hypotheses: list[str] = field(default_factory=list)  # element-count expressions, most likely first
    stated: bool = False  # the size came from an annotation or perfalign.toml
    value: str | None = None  # a fixed value for a scalar (C expression of the lengths)
    range: tuple[str, str] | None = None  # element values LO..HI


@dataclass
class HarnessPlan:
    function: FunctionInfo
    language: str
    params: list[ParamPlan]
    return_type: str  # with template parameters replaced; "void" when none
    return_kind: ReturnKind
    template_args: list[str]
    tolerance: float | None
    min_lengths: dict[str, int]
    return_element: str = ""  # element type of a returned std::vector
    notes: list[str] = field(default_factory=list)

    @property
    def lengths(self) -> list[ParamPlan]:
        return [p for p in self.params if p.param.role is Role.LENGTH]

    @property
    def arrays(self) -> list[ParamPlan]:
        return [p for p in self.params if p.kind in {Kind.IN, Kind.OUT, Kind.VEC_IN, Kind.VEC_OUT, Kind.REF}]

    def describe_sizes(self, choice: list[int]) -> str:
        parts = [f"size({p.param.name})={p.hypotheses[choice[p.index]]}" for p in self.arrays if p.hypotheses]
        return ", ".join(parts).replace(PROBLEM_SIZE, "N")


def annotation_hint(info: FunctionInfo, example: str) -> str:
    return (
        f"in a comment above the function, /* perfalign: {example} */, "
        f'or in perfalign.toml under [functions."{info.qualified_name}"]'
    )


# --------------------------------------------------------------------------- planning


def make_plan(info: FunctionInfo, config: dict[str, Any] | None = None) -> HarnessPlan:
    """Decide how to drive ``info``: kinds, size hypotheses, values. Raises HarnessError."""
    notes: dict[str, Any] = _merge_annotations(info.annotations, config or {})
    unknown = notes.get("unknown") or []
    if unknown:
        raise HarnessError(
            f"cannot read the perfalign annotation {unknown[0]!r}; items look like size(a)=n*n, range(idx)=0..n-1, "
            "value(k)=3, min(n)=1, type(T)=float, tolerance=1e-6"
        )
    if info.is_method and not is_static_member(info):
        raise HarnessError(
            f"{info.qualified_name} is a class method; perfalign verifies free functions (move the loop into a "
            "free function taking arrays and sizes)"
        )
    bad = [p for p in info.params if p.role is Role.UNSUPPORTED]
    if bad:
        raise HarnessError(f"cannot generate inputs for {bad[0].reason}")
    for fn, written in [(info, cparse.global_writes(info)), *_helper_global_writes(info)]:
        if written:
            via = "" if fn is info else f" (through its helper {fn.name})"
            raise HarnessError(
                f"{info.name} writes the global '{written[0]}'{via}; perfalign compares only what a function returns "
                "or writes through its parameters (pass the array as a parameter)"
            )
    template_map = {}
    for t in info.template_params:
        template_map[t] = notes.get("type", {}).get(t, "double")
    names = {p.name for p in info.params}
    for key in ("size", "range", "value", "min"):
        for pname in notes.get(key, {}):
            if pname not in names:
                raise HarnessError(f"the perfalign annotation {key}({pname}) names no parameter of {info.name}")
    ret = _subst(info.return_type, template_map) or "void"
    ret_vec = cparse.vector_element(ret)
    ret_elem = ""
    if ret_vec is not None and _is_number(ret_vec, template_map):
        ret_elem = ret_vec
    if ret_elem:
        ret_kind = ReturnKind.VECTOR
    elif "*" in ret or "&" in ret:
        raise HarnessError(f"{info.name} returns {ret!r}; perfalign verifies functions that return a number, a std::vector of numbers, or nothing")
    if ret in {"void"} or ret.endswith(" void"):
        ret_kind = ReturnKind.VOID
    elif cparse.is_float_type(ret) or ret in template_map.values() and cparse.is_float_type(ret):
        ret_kind = ReturnKind.FLOAT
    elif cparse.is_integer_type(ret):
        ret_kind = ReturnKind.INTEGER
    elif re.fullmatch(r"(const\s+)?[A-Za-z_]\w*", ret) and not ret[0].isupper():
        ret_kind = ReturnKind.TYPEDEF
    elif not ret_elem:
        raise HarnessError(f"{info.name} returns {ret!r}; perfalign verifies functions that return a number, a std::vector of numbers, or nothing")
    plans: list[ParamPlan] = []
    for index, p in enumerate(info.params):
        ctype = _subst(p.element_type, template_map)
        kind = {
            Role.IN_ARRAY: Kind.IN, Role.STRING: Kind.IN, Role.OUT_ARRAY: Kind.OUT, Role.INOUT_ARRAY: Kind.OUT,
            Role.VECTOR_IN: Kind.VEC_IN, Role.VECTOR_OUT: Kind.VEC_OUT, Role.REF_OUT: Kind.REF,
        }.get(p.role, Kind.VALUE)
        plan = ParamPlan(param=p, index=index, kind=kind, ctype=ctype)
        if p.name in notes.get("value", {}):
            plan.value = str(notes["value"][p.name])
            if p.role is Role.LENGTH:
                p.role = Role.SCALAR
        if p.name in notes.get("range", {}):
            lo, sep, hi = str(notes["range"][p.name]).partition("..")
            if not sep:
                raise HarnessError(f"range({p.name}) must look like LO..HI, e.g. range({p.name})=0..n-1")
            plan.range = (lo.strip(), hi.strip())
        plans.append(plan)
    lengths = [p for p in plans if p.param.role is Role.LENGTH]
    loops = cparse.loop_ranges(info)
    for plan in plans:
        if plan.kind == Kind.VALUE:
            continue
        p = plan.param
        if p.name in notes.get("size", {}):
            plan.hypotheses = [str(notes["size"][p.name])]
            plan.stated = True
            if p.role is Role.STRING:
                plan.hypotheses = [f"({plan.hypotheses[0]}) + 1"]
            continue
        if plan.kind == Kind.REF:
            plan.hypotheses = ["1"]
            continue
        plan.hypotheses = _hypotheses(info, plan, plans, lengths, loops)
    min_lengths = {k: int(v) for k, v in (notes.get("min") or {}).items() if str(v).strip().lstrip("-").isdigit()}
    for k, v in (notes.get("min") or {}).items():
        if k not in min_lengths:
            raise HarnessError(f"min({k}) must be a whole number, got {v!r}")
    tolerance = notes.get("tolerance")
    return HarnessPlan(
        function=info,
        language=info.language,
        params=plans,
        return_type=ret,
        return_kind=ret_kind,
        return_element=ret_elem,
        template_args=[template_map[t] for t in info.template_params],
        tolerance=float(tolerance) if tolerance is not None else None,
        min_lengths=min_lengths,
    )


def _is_number(elem: str, template_map: dict[str, str]) -> bool:
    elem = template_map.get(elem, elem)
    return cparse.is_float_type(elem) or cparse.is_integer_type(elem)


def is_static_member(info: FunctionInfo) -> bool:
    """A method defined out of line whose declaration in the class says ``static`` (callable without an object)."""
    return bool(re.search(rf"\bstatic\b[^;{{}}()]*\b{re.escape(info.name)}\s*\(", info.context))


def _helper_global_writes(info: FunctionInfo) -> list[tuple[FunctionInfo, list[str]]]:
    """Global writes of the helper functions the context carries (only those the function needs)."""
    out = []
    for helper in cparse.list_functions(info.context, info.language):
        try:
            full = cparse.find_function(info.context, info.language, name=helper.qualified_name, line=helper.start_line)
        except CParseError:
            continue
        out.append((full, cparse.global_writes(full)))
    return out


def _merge_annotations(annotations: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in annotations.items()}
    for key, value in config.items():
        if key in {"size", "range", "value", "min", "type"}:
            if not isinstance(value, dict):
                raise HarnessError(f"perfalign.toml: '{key}' must be a table such as {key} = {{ a = \"n*n\" }}")
            out.setdefault(key, {}).update({str(k): str(v) for k, v in value.items()})
        elif key == "tolerance":
            out["tolerance"] = value
        else:
            out.setdefault("unknown", []).append(f"{key} (in perfalign.toml)")
    return out


def _subst(text: str, mapping: dict[str, str]) -> str:
    for k, v in mapping.items():
        text = re.sub(rf"\b{re.escape(k)}\b", v, text)
    return text


def _max_index(expr: str, loops: dict[str, cparse.LoopRange], allowed: set[str], depth: int = 0) -> list[str] | None:
    """The corners of ``expr`` over the loop ranges, or None when it uses something else."""
    if depth > 6:
        return None
    for ident in _IDENT.findall(expr):
        if ident in loops:
            r = loops[ident]
            out: list[str] = []
            for bound in (r.lo, r.hi):
                sub = re.sub(rf"\b{re.escape(ident)}\b", f"({bound})", expr)
                corners = _max_index(sub, loops, allowed, depth + 1)
                if corners is None:
                    return None
                out.extend(corners)
                if len(out) > 32:
                    return None
            return out
        if ident not in allowed and not ident.isupper() and ident not in _C_WORDS:
            return None
    return [expr]


def _hypotheses(info: FunctionInfo, plan: ParamPlan, plans: list[ParamPlan], lengths: list[ParamPlan], loops: dict[str, cparse.LoopRange]) -> list[str]:
    p = plan.param
    out: list[str] = []
    if p.size_expr:
        out.append(p.size_expr)
    allowed = {q.param.name for q in plans if q.param.role in {Role.LENGTH, Role.SCALAR} and cparse.is_integer_type(q.param.type)}
    corners: list[str] = []
    ok = True
    for index in cparse.index_expressions(info, p.name):
        found = _max_index(index, loops, allowed)
        if found is None:
            ok = False
            break
        corners.extend(found)
    extra = " + 1" if p.role is Role.STRING else ""
    if ok and corners and len(corners) <= 48:
        symbolic = [c for c in corners if _IDENT.search(c)]
        expr = _max_expr([_plus_one(c) for c in dict.fromkeys(symbolic or corners)])
        out.append(expr + extra)
    if plan.kind in {Kind.VEC_IN, Kind.VEC_OUT}:
        # A vector carries its own size: try it independent of the lengths first.
        out.append(PROBLEM_SIZE)
    # Generic guesses: each length (the next one after the array first), then products.
    ordered = sorted(lengths, key=lambda q: (q.index < plan.index, abs(q.index - plan.index)))
    for q in ordered:
        out.append(q.param.name + extra)
    for q in ordered:
        out.append(f"{q.param.name} + 1" + extra)
    for i, a in enumerate(ordered):
        for b in ordered[i:]:
            out.append(f"{a.param.name} * {b.param.name}" + extra)
    if not lengths:
        out.append(PROBLEM_SIZE + extra)
    return list(dict.fromkeys(out))


def _simplify(expr: str) -> str:
    prev = None
    while prev != expr:
        prev = expr
        expr = re.sub(r"\(\s*(\w+)\s*\)", r"\1", expr)
        expr = re.sub(r"^\((.*)\)$", lambda m: m.group(1) if _balanced(m.group(1)) else m.group(0), expr)
    return expr


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _plus_one(expr: str) -> str:
    expr = _simplify(expr)
    m = re.fullmatch(r"(.+?)\s*-\s*1", expr)
    if m and _balanced(m.group(1)):
        return _simplify(m.group(1))
    return f"{expr} + 1"


def _max_expr(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return f"perfalign_max({_max_expr(items[:mid])}, {_max_expr(items[mid:])})"


# --------------------------------------------------------------------------- source generation

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


def unit_source(
    plan: HarnessPlan, side: str, code: str, *, context: str, with_type_glue: bool, namespaces: list[str] | None = None
) -> str:
    """One translation unit: the context, ``code`` (the function, maybe with helpers) and glue.

    ``side`` is "o" (original) or "c" (candidate); names defined here are renamed
    to ``perfalign_<side>_<name>``.
    """
    info = plan.function
    lang = plan.language
    ctx_includes, ctx_rest = split_includes(context)
    code_includes, code_rest = split_includes(code)
    code_rest = _wrap_namespaces(code_rest, namespaces or [])
    code_rest = _drop_main(code_rest, lang)
    ctx_rest = _drop_redefined(ctx_rest, lang, top_level_names(code_rest, lang))
    renamed = list(dict.fromkeys([info.name] + exported_names(ctx_rest, lang) + exported_names(code_rest, lang)))
    defines = "\n".join(f"#define {n} perfalign_{side}_{n}" for n in renamed)
    includes = list(dict.fromkeys(["#include <stddef.h>", "#include <string.h>", *ctx_includes, *code_includes]))
    if lang == "cpp":
        includes.append("#include <vector>")
    parts = [
        "/* generated by perfalign */",
        "\n".join(includes),
        defines,
        "#line 1 \"context\"",
        ctx_rest,
        "#line 1 \"function\"",
        code_rest,
        "#line 1 \"glue\"",
        _external_declaration(plan),
        _side_glue(plan, side),
    ]
    if with_type_glue:
        parts.append(_type_glue(plan))
    return "\n".join(parts) + "\n"


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
        if pp.kind in {Kind.IN, Kind.OUT}:
            decls.append(f"static {t} *{v};")
            setup.append(f"{v} = ({t} *)bufs[{pp.index}];")
            args.append(v)
        elif pp.kind in {Kind.VEC_IN, Kind.VEC_OUT}:
            decls.append(f"static std::vector<{t} > {v};")
            setup.append(f"{v}.assign(({t} *)bufs[{pp.index}], ({t} *)bufs[{pp.index}] + counts[{pp.index}]);")
            args.append(v)
            views.append(f"case {pp.index}: *data = (void *){v}.data(); *count = {v}.size(); return;")
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
    if plan.return_kind is ReturnKind.VECTOR:
        ret_decl = f"static std::vector<{plan.return_element} > perfalign_{side}_ret;"
        call_stmt = f"perfalign_{side}_ret = {call};"
        ret_get = "*is_float = 0; return 0.0;"
        views.append(f"case -1: *data = (void *)perfalign_{side}_ret.data(); *count = perfalign_{side}_ret.size(); return;")
    elif plan.return_kind is not ReturnKind.VOID:
        ret_decl = f"static {plan.return_type} perfalign_{side}_ret;"
        call_stmt = f"perfalign_{side}_ret = {call};"
        ret_get = (f"*is_float = perfalign_isfloat_{side}(({plan.return_type})0.5) ? (sizeof({plan.return_type}) <= 4 ? 2 : 1) : 0; "
                   f"return (double)perfalign_{side}_ret;")
    else:
        call_stmt = f"{call};"
        ret_get = "*is_float = 0; return 0.0;"
    return "\n".join([
        f"static int perfalign_isfloat_{side}(double half) {{ return half != 0; }}",
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
        f"{ext}double perfalign_ret_{side}(int *is_float) {{ {ret_get} }}",
    ])


def _length_locals(plan: HarnessPlan) -> str:
    out = [f"long long {pp.param.name} = lens[{pp.index}]; (void){pp.param.name};" for pp in plan.lengths]
    out.append(f"long long {PROBLEM_SIZE} = lens[{len(plan.params)}]; (void){PROBLEM_SIZE};")
    return " ".join(out)


def _type_glue(plan: HarnessPlan) -> str:
    cpp = plan.language == "cpp"
    ext = 'extern "C" ' if cpp else ""
    n = len(plan.params)
    kinds = ", ".join(str(pp.kind) for pp in plan.params) or "0"
    names = ", ".join(f'"{pp.param.name}"' for pp in plan.params) or '""'
    esize = []
    isfloat = []
    issigned = []
    count_cases = []
    nhyp = []
    fill_cases = []
    cmp_cases = []
    int_values = []
    real_values = []
    locals_ = _length_locals(plan)
    for pp in plan.params:
        t = pp.ctype
        i = pp.index
        if pp.kind != Kind.VALUE:
            esize.append(f"case {i}: return sizeof({t});")
            isfloat.append(f"case {i}: return (({t})0.5) != 0;")
            issigned.append(f"case {i}: return (({t})-1) < 0;")
            nhyp.append(f"case {i}: return {len(pp.hypotheses)};")
            hyps = " ".join(f"case {h}: v = (long long)({expr}); break;" for h, expr in enumerate(pp.hypotheses))
            count_cases.append(f"case {i}: switch (hyp) {{ {hyps} default: v = 0; }} break;")
            if pp.param.role is Role.STRING:
                fill = (
                    "{ char *p = (char *)data; size_t j; for (j = 0; j + 1 < count; j++) "
                    "p[j] = (char)(\"abcdefghij klmnopqrstuvwxyz,.ABC\"[perfalign_next(rng) % 32]); if (count) p[count - 1] = 0; }"
                )
            elif pp.range is not None:
                lo, hi = pp.range
                fill = (
                    f"{{ {t} *p = ({t} *)data; size_t j; double lo = (double)({lo}), hi = (double)({hi}); "
                    f"for (j = 0; j < count; j++) {{ if ((({t})0.5) != 0) p[j] = ({t})(lo + (hi - lo) * perfalign_unit(rng)); "
                    f"else p[j] = ({t})((long long)lo + (long long)(perfalign_next(rng) % (unsigned long long)((long long)hi - (long long)lo + 1))); }} }}"
                )
            else:
                fill = (
                    f"{{ {t} *p = ({t} *)data; size_t j; for (j = 0; j < count; j++) {{ "
                    f"if ((({t})0.5) != 0) p[j] = ({t})(2.0 * perfalign_unit(rng) - 1.0); "
                    f"else if ((({t})-1) < 0) p[j] = ({t})((long long)(perfalign_next(rng) % 201) - 100); "
                    f"else p[j] = ({t})(perfalign_next(rng) % 200); }} }}"
                )
            fill_cases.append(f"case {i}: {fill} break;")
            cmp_cases.append(f"case {i}: return perfalign_cmp_{_slug(t)}(count, rtol, a, b);")
        else:
            if pp.value is not None:
                int_values.append(f"case {i}: return (long long)({pp.value});")
                real_values.append(f"case {i}: return (double)({pp.value});")
            elif pp.param.role is Role.LENGTH:
                int_values.append(f"case {i}: return lens[{i}];")
            elif pp.range is not None:
                lo, hi = pp.range
                int_values.append(f"case {i}: {{ long long lo = (long long)({lo}), hi = (long long)({hi}); return lo + (long long)(perfalign_next(rng) % (unsigned long long)(hi - lo + 1)); }}")
                real_values.append(f"case {i}: return (double)({lo}) + ((double)({hi}) - (double)({lo})) * perfalign_unit(rng);")
    ret_cmp = []
    if plan.return_element:
        t = plan.return_element
        ret_cmp.append(f"case -1: return perfalign_cmp_{_slug(t)}(count, rtol, a, b);")
    getters = []
    element_types = [pp.ctype for pp in plan.params if pp.kind != Kind.VALUE] + ([plan.return_element] if plan.return_element else [])
    for t in dict.fromkeys(element_types):
        getters.append(f"static double perfalign_get_{_slug(t)}(const void *p, size_t j) {{ return (double)((const {t} *)p)[j]; }}")
        getters.append(_typed_compare(t))
    return "\n".join([
        "static long long perfalign_max(long long a, long long b) { return a > b ? a : b; }",
        "static unsigned long long perfalign_next(unsigned long long *s) {",
        "    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);",
        "    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL; z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;",
        "    return z ^ (z >> 31);",
        "}",
        "static double perfalign_unit(unsigned long long *s) { return (double)(perfalign_next(s) >> 11) * (1.0 / 9007199254740992.0); }",
        *getters,
        f"{ext}int perfalign_nparams = {n};",
        f"{ext}const int perfalign_kinds[] = {{{kinds}}};",
        f"{ext}const char *perfalign_names[] = {{{names}}};",
        f"{ext}int perfalign_ret_kind = {plan.return_kind};",
        f"{ext}size_t perfalign_esize(int i) {{ switch (i) {{ {' '.join(esize)} default: return 1; }} }}",
        f"{ext}int perfalign_elem_float(int i) {{ switch (i) {{ {' '.join(isfloat)} default: return 0; }} }}",
        f"{ext}int perfalign_nhyp(int i) {{ switch (i) {{ {' '.join(nhyp)} default: return 1; }} }}",
        f"{ext}long long perfalign_count(int i, int hyp, const long long *lens) {{",
        f"    long long v = 0; {locals_}",
        f"    switch (i) {{ {' '.join(count_cases)} default: v = 0; }}",
        "    return v < 0 ? 0 : v;",
        "}",
        f"{ext}void perfalign_fill(int i, void *data, size_t count, unsigned long long *rng, const long long *lens) {{",
        f"    {locals_}",
        f"    switch (i) {{ {' '.join(fill_cases)} default: break; }}",
        "}",
        f"{ext}long long perfalign_compare(int i, const void *a, const void *b, size_t count, double rtol) {{",
        f"    switch (i) {{ {' '.join(cmp_cases + ret_cmp)} default: return -1; }}",
        "}",
        f"{ext}double perfalign_value_at(int i, const void *p, size_t j) {{",
        "    switch (i) { "
        + " ".join(f"case {pp.index}: return perfalign_get_{_slug(pp.ctype)}(p, j);" for pp in plan.params if pp.kind != Kind.VALUE)
        + (f" case -1: return perfalign_get_{_slug(plan.return_element)}(p, j);" if plan.return_element else "")
        + " default: return 0; }",
        "}",
        f"{ext}long long perfalign_int_value(int i, const long long *lens, unsigned long long *rng) {{",
        f"    {locals_}",
        f"    switch (i) {{ {' '.join(int_values)} default: return 1 + (long long)(perfalign_next(rng) % 8); }}",
        "}",
        f"{ext}double perfalign_real_value(int i, const long long *lens, unsigned long long *rng) {{",
        f"    {locals_}",
        f"    switch (i) {{ {' '.join(real_values)} default: return 0.5 + perfalign_unit(rng); }}",
        "}",
    ])


def _typed_compare(t: str) -> str:
    """Index of the first element where ``y`` differs from ``x`` (-1: none); bitwise-equal buffers return at once.

    Floating point: |x - y| <= rtol * (largest |x| in the buffer); rtol < 0 picks 1e-6, or 1e-3 for 4-byte types.
    """
    return "\n".join([
        f"static long long perfalign_cmp_{_slug(t)}(size_t count, double rtol, const void *xa, const void *ya) {{",
        f"    const {t} *x = (const {t} *)xa; const {t} *y = (const {t} *)ya; size_t j; double scale = 0;",
        f"    if (count == 0 || memcmp(xa, ya, count * sizeof({t})) == 0) return -1;",
        f"    if (!((({t})0.5) != 0)) {{ for (j = 0; j < count; j++) if (x[j] != y[j]) return (long long)j; return -1; }}",
        f"    if (rtol < 0) rtol = sizeof({t}) <= 4 ? 1e-3 : 1e-6;",
        "    for (j = 0; j < count; j++) { double v = (double)x[j]; if (v < 0) v = -v; if (v == v && v > scale && v < 1e300) scale = v; }",
        "    for (j = 0; j < count; j++) {",
        "        double a = (double)x[j], b = (double)y[j], d = a - b;",
        "        if (a != a || b != b) { if ((a != a) != (b != b)) return (long long)j; continue; }",
        "        if (a == b) continue;",
        "        if (d < 0) d = -d;",
        "        if (!(d <= rtol * scale + 1e-300)) return (long long)j;",
        "    }",
        "    return -1;",
        "}",
    ])


def _slug(t: str) -> str:
    return re.sub(r"\W+", "_", t).strip("_") or "t"


def driver_source(language: str) -> str:
    """The driver: the same text for every function (C that also compiles as C++)."""
    from ._driver import DRIVER

    return DRIVER

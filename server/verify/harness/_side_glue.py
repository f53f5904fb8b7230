"""The side glue: the code after the function in a side unit that stores its arguments, calls it and shows its results.

A worker (``worker.c``) drives a side through four functions this glue
defines, each named for the side (``perfalign_setup_w``, ``perfalign_call_w``,
``perfalign_view_w``, ``perfalign_ret_raw_w``): setup points each parameter at
its buffer or builds it from the buffer (rows of pointers, ``std::vector``,
``std::string``, ``std::array``, a scalar read from the case's integers or
reals); call calls the function (a template with its arguments); view shows
what lives outside the shared buffers (``std::vector`` contents, a ``T&``
output, a returned vector or record); ret_raw copies a returned number out.
"""
from __future__ import annotations

import re

from ... import cparse
from ._plan import HarnessPlan, Kind, ReturnKind

SIDE = "w"  # the side glue's names: perfalign_setup_w, perfalign_call_w, ...


def external_declaration(plan: HarnessPlan) -> str:
    """In C, an ``extern`` declaration makes a plain ``inline`` definition an external one the glue can call."""
    if plan.language != "c":
        return ""
    words = [w for w in plan.function.signature.split(" ") if w not in {"static", "inline", "__inline", "__inline__", "extern"}]
    return "extern " + " ".join(words) + ";"


def _callee(plan: HarnessPlan) -> str:
    info = plan.function
    name = info.qualified_name if plan.language == "cpp" else info.name
    if plan.template_args:
        name += "<" + ", ".join(plan.template_args) + " >"
    return name


def side_glue(plan: HarnessPlan, side: str) -> str:
    """The side glue of ``plan``'s function, its functions named for ``side``."""
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

"""Families for the OpenMP mode: reductions and independent loops left serial; and stencils with bounds tests."""
from __future__ import annotations

import random

from ._types import Ctx, Variant, lit, pick_name


def _work(rng: random.Random, ctx: Ctx, v: str) -> tuple[str, str]:
    """(description, an expression of v costing a few math calls)."""
    sq, ex, lg, sn = (ctx.math(f, "double") for f in ("sqrt", "exp", "log1p", "sin"))
    return rng.choice([
        ("sqrt(v*v + 1)", f"{sq}({v} * {v} + 1.0)"),
        ("exp(-v*v)", f"{ex}(-{v} * {v})"),
        ("log1p(v*v)", f"{lg}({v} * {v})"),
        ("sin(v) * v", f"{sn}({v}) * {v}"),
        ("sqrt(|v|) + exp(v)", f"{sq}({ctx.math('fabs', 'double')}({v})) + {ex}({v})"),
    ])


def omp_reduction(rng: random.Random) -> Variant:
    """A reduction with real work per element, written as a serial loop (OpenMP mode)."""
    ctx = Ctx.pick(rng)
    if ctx.unsigned_idx and ctx.lang == "c":
        ctx = Ctx("c", "long")
    t = rng.choice(["double", "float"])
    I = ctx.idx
    op = rng.choice(["sum", "sum", "max", "count"])
    x, n = rng.choice([("x", "n"), ("samples", "n"), ("vals", "len"), ("data", "count")])
    what, f = _work(rng, ctx, "v")
    name = pick_name(rng, {"sum": ["total_response", "sum_transformed", "energy_total"],
                           "max": ["peak_response", "max_transformed"],
                           "count": ["count_strong", "above_threshold_count"]}[op], t)
    setup = ctx.length_decl(n, x)
    if op == "sum":
        ret, init, step, clause = "double", "double s = 0.0;", f"s += {f};", "reduction(+ : s)"
    elif op == "max":
        ret, init, clause = "double", "double s = -1e300;", "reduction(max : s)"
        step = f"const double r = {f};\n        if (r > s)\n            s = r;"
    else:
        ret, init, step, clause = "long", "long s = 0;", f"if ({f} > 1.2)\n            s++;", "reduction(+ : s)"
    loop = (f"    for ({I} i = 0; i < {n}; i++) {{\n        const double v = {x}[i];\n        {step}\n    }}\n")
    sig = f"{ret} {name}({ctx.inp(t, x)}{ctx.length_param(n)})"
    head = ctx.headers(math=True)
    note = ctx.comment(f"{op} of {what} over all elements, in one serial loop.")
    orig = f"{head}{note}{sig} {{\n{setup}    {init}\n{loop}    return s;\n}}\n"
    ref = f"{head}{sig} {{\n{setup}    {init}\n#pragma omp parallel for {clause}\n{loop}    return s;\n}}\n"
    return Variant(name, ctx.lang, orig, ref, {"type": t, "op": op, "work": what, "idx": I})


def omp_parallel_loop(rng: random.Random) -> Variant:
    """Independent iterations with real work, written as a serial loop (OpenMP mode)."""
    ctx = Ctx.pick(rng)
    if ctx.unsigned_idx and ctx.lang == "c":
        ctx = Ctx("c", "long")
    t = rng.choice(["double", "float"])
    I = ctx.idx
    shape = rng.choice(["map", "map", "rows", "escape"])
    if shape == "escape":
        t = "double"
        name = pick_name(rng, ["escape_times", "orbit_counts", "iterate_map"], t)
        it = rng.choice([64, 100, 200])
        sig = f"void {name}({ctx.inp(t, 'c0')}, {ctx.out('int', 'iters')}{ctx.length_param('n')})"
        setup = ctx.length_decl("n", "c0") + ctx.size_output("iters", "n", "int")
        body = (f"    for ({I} i = 0; i < n; i++) {{\n        double z = 0.0;\n        int k = 0;\n"
                f"        while (k < {it} && z * z <= 4.0) {{\n            z = z * z + c0[i];\n            k++;\n"
                f"        }}\n        iters[i] = k;\n    }}\n")
        what = f"Iterations of z = z^2 + c (at most {it}) until |z| > 2, for each c"
        ann = ""
    elif shape == "rows":
        what0, f = _work(rng, ctx, "v")
        name = pick_name(rng, ["row_transform_sums", "per_row_response", "row_energies"], t)
        sig = f"void {name}(const {t} *a, double *out, {I} rows, {I} cols)"
        setup = ""
        body = (f"    for ({I} i = 0; i < rows; i++) {{\n        double s = 0.0;\n"
                f"        for ({I} j = 0; j < cols; j++) {{\n            const double v = a[i * cols + j];\n"
                f"            s += {f};\n        }}\n        out[i] = s;\n    }}\n")
        what = f"For each row of a rows x cols array, the sum of {what0}"
        ann = "size(a)=rows*cols, size(out)=rows"
    else:
        what0, f = _work(rng, ctx, "v")
        name = pick_name(rng, ["transform", "apply_response", "map_values", "activate"], t)
        sig = f"void {name}({ctx.inp(t, 'x')}, {ctx.out(t, 'y')}{ctx.length_param('n')})"
        setup = ctx.length_decl("n", "x") + ctx.size_output("y", "n", t)
        body = (f"    for ({I} i = 0; i < n; i++) {{\n        const double v = x[i];\n"
                f"        y[i] = {ctx.cast(t, f)};\n    }}\n")
        what = f"y[i] = {what0} for every element"
        ann = ""
    head = ctx.headers(math=True)
    note = ctx.comment(f"{what}; every iteration is independent." + (f"\nperfalign: {ann}" if ann else ""))
    orig = f"{head}{note}{sig} {{\n{setup}{body}}}\n"
    ref = f"{head}{sig} {{\n{setup}#pragma omp parallel for schedule(static)\n{body}}}\n"
    return Variant(name, ctx.lang, orig, ref, {"type": t, "shape": shape, "idx": I})


def stencil_bounds(rng: random.Random) -> Variant:
    """A stencil that tests the array bounds for every neighbour of every point."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float"])
    I = "long" if ctx.lang == "c" else rng.choice(["long", "int"])
    two_d = rng.random() < 0.4
    if not two_d:
        R = rng.choice([1, 2, 3])
        ws = [rng.choice([1, 2, 3, 4]) for _ in range(R)]
        weights = list(reversed(ws)) + [rng.choice([2, 4, 6])] + ws
        name = pick_name(rng, ["smooth", "blur_line", "weighted_neighbors", f"stencil{2 * R + 1}"], t)
        wl = ", ".join(lit(t, w) for w in weights)
        sig = f"void {name}(const {t} *in, {t} *out, {I} n)"
        table = f"    static const {t} wt[{2 * R + 1}] = {{{wl}}};\n"
        orig = (f"{table}    for ({I} i = 0; i < n; i++) {{\n        {t} s = {lit(t, 0)};\n"
                f"        for ({I} d = -{R}; d <= {R}; d++) {{\n            const {I} j = i + d;\n"
                f"            if (j >= 0 && j < n)\n                s += wt[d + {R}] * in[j];\n        }}\n"
                f"        out[i] = s;\n    }}\n")
        terms = " + ".join(f"wt[{k}] * in[i + {k - R}]" if k != R else f"wt[{k}] * in[i]" for k in range(2 * R + 1))
        terms = f"{lit(t, 0)} + " + terms
        edge = (f"{{\n            {t} s = {lit(t, 0)};\n            for ({I} d = -{R}; d <= {R}; d++) {{\n"
                f"                const {I} j = i + d;\n                if (j >= 0 && j < n)\n"
                f"                    s += wt[d + {R}] * in[j];\n            }}\n            out[i] = s;\n        }}")
        ref = (f"{table}    for ({I} i = 0; i < n; i++) {{\n        if (i < {R} || i + {R} >= n) {edge}\n"
               f"        else\n            out[i] = {terms};\n    }}\n")
        what = f"A {2 * R + 1}-point weighted stencil (missing neighbours count as 0)"
        ann = ""
    else:
        name = pick_name(rng, ["laplace_2d", "five_point", "diffuse_grid", "cross_average"], t)
        sig = f"void {name}(const {t} *u, {t} *v, {I} ny, {I} nx)"
        c = lit(t, rng.choice([4, 0.25, 1]))
        orig = (f"    for ({I} i = 0; i < ny; i++)\n        for ({I} j = 0; j < nx; j++) {{\n"
                f"            {t} s = {lit(t, 0)};\n"
                f"            if (i > 0) s += u[(i - 1) * nx + j];\n            if (j > 0) s += u[i * nx + j - 1];\n"
                f"            if (j + 1 < nx) s += u[i * nx + j + 1];\n"
                f"            if (i + 1 < ny) s += u[(i + 1) * nx + j];\n"
                f"            v[i * nx + j] = s - {c} * u[i * nx + j];\n        }}\n")
        edge = (f"            {t} s = {lit(t, 0)};\n"
                f"            if (i > 0) s += u[(i - 1) * nx + j];\n            if (j > 0) s += u[i * nx + j - 1];\n"
                f"            if (j + 1 < nx) s += u[i * nx + j + 1];\n"
                f"            if (i + 1 < ny) s += u[(i + 1) * nx + j];\n"
                f"            v[i * nx + j] = s - {c} * u[i * nx + j];\n")
        ref = (f"    for ({I} i = 0; i < ny; i++) {{\n        if (i == 0 || i + 1 == ny || nx < 3) {{\n"
               f"            for ({I} j = 0; j < nx; j++) {{\n"
               f"    {edge.replace(chr(10) + '            ', chr(10) + '                ')}"
               f"            }}\n            continue;\n        }}\n"
               f"        for ({I} j = 0; j < nx; j += nx - 1) {{\n"
               f"    {edge.replace(chr(10) + '            ', chr(10) + '                ')}"
               f"        }}\n        for ({I} j = 1; j + 1 < nx; j++)\n"
               f"            v[i * nx + j] = {lit(t, 0)} + u[(i - 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1]"
               f" + u[(i + 1) * nx + j] - {c} * u[i * nx + j];\n    }}\n")
        what = "A 5-point stencil on an ny x nx grid with bounds tests for every neighbour"
        ann = "size(u)=ny*nx, size(v)=ny*nx"
    head = ctx.headers()
    note = ctx.comment(what + "." + (f"\nperfalign: {ann}" if ann else ""))
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "shape": "2d" if two_d else "1d", "idx": I})

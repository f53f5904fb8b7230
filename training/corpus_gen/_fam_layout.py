"""Families about memory order: strided walks of 2-D and 3-D arrays, matrix products in the wrong loop order."""
from __future__ import annotations

import random

from ._types import Ctx, Variant, lit, pick_name

DIMS = [("rows", "cols"), ("h", "w"), ("m", "n"), ("nr", "nc"), ("height", "width")]


def _loops(ctx: Ctx, order: tuple[str, str], bounds: dict[str, str], body: str, pre_inner: str = "",
           post_inner: str = "") -> str:
    o, i = order
    return (f"    for ({ctx.idx} {o} = 0; {o} < {bounds[o]}; {o}++) {{\n{pre_inner}"
            f"        for ({ctx.idx} {i} = 0; {i} < {bounds[i]}; {i}++)\n            {body}\n{post_inner}    }}\n")


def loop_interchange(rng: random.Random) -> Variant:
    """A 2-D array walked against its layout (the inner loop jumps a whole row or column)."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float", "int", "long"])
    R, C = rng.choice(DIMS)
    layout = rng.choice(["row", "col"])
    at = f"i * {C} + j" if layout == "row" else f"j * {R} + i"
    slow = ("j", "i") if layout == "row" else ("i", "j")
    fast = (slow[1], slow[0])
    bounds = {"i": R, "j": C}
    op = rng.choice(["scale_cols", "scale_rows", "axpby", "row_reduce", "col_reduce"])
    size = f"size(a)={R}*{C}"
    lay = "row-major" if layout == "row" else "column-major"
    name_stems = {"scale_cols": ["scale_columns", "column_scale", "weight_columns"],
                  "scale_rows": ["scale_rows", "row_scale", "weight_rows"],
                  "axpby": ["matrix_axpby", "blend_matrices", "combine_grids"],
                  "row_reduce": ["row_totals", "row_sums", "sum_each_row", "row_energy"],
                  "col_reduce": ["column_totals", "col_sums", "sum_each_column", "column_energy"]}
    name = pick_name(rng, name_stems[op], t)
    squares = op.endswith("reduce") and rng.random() < 0.5
    if op in ("scale_cols", "scale_rows"):
        v = "s" if op == "scale_cols" else "r"
        vi = "j" if op == "scale_cols" else "i"
        vn = C if op == "scale_cols" else R
        sig = f"void {name}({t} *a, const {t} *{v}, {ctx.idx} {R}, {ctx.idx} {C})"
        ann = f"{size}, size({v})={vn}"
        body = f"a[{at}] *= {v}[{vi}];"
        orig = _loops(ctx, slow, bounds, body)
        ref = _loops(ctx, fast, bounds, body)
        what = f"Multiply every {'column j' if vi == 'j' else 'row i'} of a {lay} {R} x {C} array by {v}[{vi}]"
    elif op == "axpby":
        alpha = lit(t, rng.choice([2, 3, 0.5, 1.5]) if t in ("double", "float") else rng.choice([2, 3, 5]))
        sig = (f"void {name}(const {t} *a, const {t} *b, {t} *out, {t} beta, {ctx.idx} {R}, {ctx.idx} {C})")
        ann = f"{size}, size(b)={R}*{C}, size(out)={R}*{C}"
        body = f"out[{at}] = {alpha} * a[{at}] + beta * b[{at}];"
        orig = _loops(ctx, slow, bounds, body)
        ref = _loops(ctx, fast, bounds, body)
        what = f"out = {alpha} * a + beta * b for {lay} {R} x {C} arrays"
    else:
        target = "i" if op == "row_reduce" else "j"
        acc_t = t if t in ("double", "float") else "long"
        tn = R if target == "i" else C
        term = f"a[{at}] * a[{at}]" if squares else f"a[{at}]"
        sig = f"void {name}(const {t} *a, {acc_t} *out, {ctx.idx} {R}, {ctx.idx} {C})"
        ann = f"{size}, size(out)={tn}"

        def reduce(order: tuple[str, str]) -> str:
            if order[0] == target:
                return _loops(ctx, order, bounds, f"acc += {term};", f"        {acc_t} acc = {lit(acc_t, 0)};\n",
                              f"        out[{target}] = acc;\n")
            init = (f"    for ({ctx.idx} {target} = 0; {target} < {tn}; {target}++)\n"
                    f"        out[{target}] = {lit(acc_t, 0)};\n")
            return init + _loops(ctx, order, bounds, f"out[{target}] += {term};")

        orig, ref = reduce(slow), reduce(fast)
        what = (f"{'Sum of squares' if squares else 'Sum'} of each {'row' if target == 'i' else 'column'} "
                f"of a {lay} {R} x {C} array")
    head = ctx.headers()
    note = ctx.comment(f"{what}; the inner loop strides across the layout.\nperfalign: {ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "layout": layout, "op": op, "idx": ctx.idx})


def loop_order_3d(rng: random.Random) -> Variant:
    """A 3-D array whose innermost loop is not the fastest-varying index."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float", "int"])
    X, Y, Z = rng.choice([("nx", "ny", "nz"), ("d0", "d1", "d2"), ("planes", "rows", "cols")])
    at = f"({'i'} * {Y} + j) * {Z} + k"
    slow = rng.choice([("k", "j", "i"), ("j", "k", "i"), ("k", "i", "j"), ("i", "k", "j")])
    bounds = {"i": X, "j": Y, "k": Z}
    op = rng.choice(["update", "combine", "shift"])
    name = pick_name(rng, {"update": ["advance_field", "integrate_volume", "step_grid"],
                           "combine": ["mix_volumes", "blend_fields", "volume_axpy"],
                           "shift": ["offset_volume", "bias_field", "shift_grid"]}[op], t)
    if op == "update":
        sig = f"void {name}({t} *u, const {t} *v, {t} dt, {ctx.idx} {X}, {ctx.idx} {Y}, {ctx.idx} {Z})"
        body, arrays = f"u[{at}] += dt * v[{at}];", ("u", "v")
    elif op == "combine":
        k = lit(t, rng.choice([2, 3]) if t == "int" else rng.choice([0.25, 0.5, 0.75]))
        sig = f"void {name}(const {t} *a, const {t} *b, {t} *out, {ctx.idx} {X}, {ctx.idx} {Y}, {ctx.idx} {Z})"
        body, arrays = f"out[{at}] = a[{at}] - {k} * b[{at}];", ("a", "b", "out")
    else:
        sig = f"void {name}({t} *g, const {t} *bias, {ctx.idx} {X}, {ctx.idx} {Y}, {ctx.idx} {Z})"
        body, arrays = f"g[{at}] += bias[k];", ("g",)
    ann = ", ".join(f"size({a})={X}*{Y}*{Z}" for a in arrays) + (f", size(bias)={Z}" if op == "shift" else "")

    def nest(order: tuple[str, ...]) -> str:
        a, b, c = order
        return (f"    for ({ctx.idx} {a} = 0; {a} < {bounds[a]}; {a}++)\n"
                f"        for ({ctx.idx} {b} = 0; {b} < {bounds[b]}; {b}++)\n"
                f"            for ({ctx.idx} {c} = 0; {c} < {bounds[c]}; {c}++)\n"
                f"                {body}\n")

    head = ctx.headers()
    note = ctx.comment(f"Element-wise update of a {X} x {Y} x {Z} array stored with the last index fastest;\n"
                       f"the loops run {'-'.join(slow)}, so the innermost loop strides.\nperfalign: {ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{nest(slow)}}}\n",
                   f"{head}{sig} {{\n{nest(('i', 'j', 'k'))}}}\n",
                   {"type": t, "order": "".join(slow), "op": op, "idx": ctx.idx})


def matmul_order(rng: random.Random) -> Variant:
    """A matrix product whose inner loop walks a column of B (or of A^T)."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float", "int", "long"])
    shape = rng.choice(["square", "rect", "at_b"])
    name = pick_name(rng, {"square": ["matmul", "square_product", "mat_mul"],
                           "rect": ["gemm_plain", "rect_matmul", "matrix_product"],
                           "at_b": ["gram_product", "at_times_b", "transpose_matmul"]}[shape], t)
    z = lit(t, 0)
    I = ctx.idx
    if shape == "square":
        sig = f"void {name}(const {t} *a, const {t} *b, {t} *c, {I} n)"
        ann = "size(a)=n*n, size(b)=n*n, size(c)=n*n"
        M, K, N, A = "n", "n", "n", "a[i * n + k]"
    elif shape == "rect":
        sig = f"void {name}(const {t} *a, const {t} *b, {t} *c, {I} m, {I} p, {I} q)"
        ann = "size(a)=m*p, size(b)=p*q, size(c)=m*q"
        M, K, N, A = "m", "p", "q", "a[i * p + k]"
    else:
        sig = f"void {name}(const {t} *a, const {t} *b, {t} *c, {I} m, {I} p, {I} q)"
        ann = "size(a)=p*m, size(b)=p*q, size(c)=m*q"
        M, K, N, A = "m", "p", "q", "a[k * m + i]"
    orig = (f"    for ({I} i = 0; i < {M}; i++)\n        for ({I} j = 0; j < {N}; j++) {{\n"
            f"            {t} s = {z};\n            for ({I} k = 0; k < {K}; k++)\n"
            f"                s += {A} * b[k * {N} + j];\n            c[i * {N} + j] = s;\n        }}\n")
    if shape == "at_b":
        ref = (f"    for ({I} i = 0; i < {M}; i++)\n        for ({I} j = 0; j < {N}; j++)\n"
               f"            c[i * {N} + j] = {z};\n"
               f"    for ({I} k = 0; k < {K}; k++)\n        for ({I} i = 0; i < {M}; i++) {{\n"
               f"            const {t} aik = {A};\n            for ({I} j = 0; j < {N}; j++)\n"
               f"                c[i * {N} + j] += aik * b[k * {N} + j];\n        }}\n")
    else:
        ref = (f"    for ({I} i = 0; i < {M}; i++) {{\n        for ({I} j = 0; j < {N}; j++)\n"
               f"            c[i * {N} + j] = {z};\n        for ({I} k = 0; k < {K}; k++) {{\n"
               f"            const {t} aik = {A};\n            for ({I} j = 0; j < {N}; j++)\n"
               f"                c[i * {N} + j] += aik * b[k * {N} + j];\n        }}\n    }}\n")
    what = {"square": "C = A B for n x n row-major matrices", "rect": "C = A B for an m x p and a p x q matrix",
            "at_b": "C = A^T B with A stored p x m"}[shape]
    head = ctx.headers()
    note = ctx.comment(f"{what}, i-j-k order: the inner loop walks down a column.\nperfalign: {ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "shape": shape, "idx": I})

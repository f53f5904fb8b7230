"""Families about data formats and indexing: sparse matrices in coordinate form, division and modulo by
invariants."""
from __future__ import annotations

import random

from ._types import Ctx, Variant, lit, pick_name


def sparse_coo_scan(rng: random.Random) -> Variant:
    """A sparse matrix in coordinate form (row, column, value triples) scanned once per row."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float"])
    it = rng.choice(["int", "long"])
    I = ctx.idx if not ctx.unsigned_idx else "long"
    op = rng.choice(["spmv", "spmv_t", "row_nnz", "row_abs", "diag"])
    R, Cc, V = rng.choice([("ri", "ci", "val"), ("row", "col", "a"), ("rows", "cols", "vals")])
    fabs = ctx.math("fabs", t)
    name = pick_name(rng, {"spmv": ["coo_spmv", "sparse_matvec", "coo_multiply"],
                           "spmv_t": ["coo_spmv_transposed", "sparse_matvec_t"],
                           "row_nnz": ["coo_row_counts", "entries_per_row"],
                           "row_abs": ["coo_row_abs_sums", "sparse_row_norms1"],
                           "diag": ["coo_diagonal", "sparse_diag"]}[op], t)
    per_row = rng.choice([2, 3, 4, 8])
    base = f"const {it} *{R}, const {it} *{Cc}, const {t} *{V}"
    ann = (f"size({R})={per_row}*n, size({Cc})={per_row}*n, size({V})={per_row}*n, range({R})=0..n-1, "
           f"range({Cc})=0..n-1")
    if op == "spmv":
        sig = f"void {name}({base}, const {t} *x, {t} *y, {I} n)"
        ann += ", size(x)=n, size(y)=n"
        inner, outer_init = f"if ({R}[k] == i)\n                s += {V}[k] * x[{Cc}[k]];", f"{t} s = {lit(t, 0)};"
        fin, ref_init, ref_step = "y[i] = s;", f"y[i] = {lit(t, 0)};", f"y[{R}[k]] += {V}[k] * x[{Cc}[k]];"
        what = "y = A x"
    elif op == "spmv_t":
        sig = f"void {name}({base}, const {t} *x, {t} *y, {I} n)"
        ann += ", size(x)=n, size(y)=n"
        inner, outer_init = f"if ({Cc}[k] == i)\n                s += {V}[k] * x[{R}[k]];", f"{t} s = {lit(t, 0)};"
        fin, ref_init, ref_step = "y[i] = s;", f"y[i] = {lit(t, 0)};", f"y[{Cc}[k]] += {V}[k] * x[{R}[k]];"
        what = "y = A^T x"
    elif op == "row_nnz":
        sig = f"void {name}({base}, long *cnt, {I} n)"
        ann += ", size(cnt)=n"
        inner, outer_init = f"if ({R}[k] == i)\n                s++;", "long s = 0;"
        fin, ref_init, ref_step = "cnt[i] = s;", "cnt[i] = 0;", f"cnt[{R}[k]]++;"
        what = "the number of stored entries in each row"
    elif op == "row_abs":
        sig = f"void {name}({base}, {t} *out, {I} n)"
        ann += ", size(out)=n"
        inner, outer_init = f"if ({R}[k] == i)\n                s += {fabs}({V}[k]);", f"{t} s = {lit(t, 0)};"
        fin, ref_init, ref_step = "out[i] = s;", f"out[i] = {lit(t, 0)};", f"out[{R}[k]] += {fabs}({V}[k]);"
        what = "the sum of magnitudes in each row"
    else:
        sig = f"void {name}({base}, {t} *d, {I} n)"
        ann += ", size(d)=n"
        inner, outer_init = f"if ({R}[k] == i && {Cc}[k] == i)\n                s += {V}[k];", f"{t} s = {lit(t, 0)};"
        fin, ref_init = "d[i] = s;", f"d[i] = {lit(t, 0)};"
        ref_step = f"if ({R}[k] == {Cc}[k])\n            d[{R}[k]] += {V}[k];"
        what = "the diagonal (duplicates summed)"
    nnz = f"    const {I} nnz = {per_row} * n;\n"
    orig = (f"{nnz}    for ({I} i = 0; i < n; i++) {{\n        {outer_init}\n        for ({I} k = 0; k < nnz; k++)\n"
            f"            {inner}\n        {fin}\n    }}\n")
    ref = (f"{nnz}    for ({I} i = 0; i < n; i++)\n        {ref_init}\n    for ({I} k = 0; k < nnz; k++)\n"
           f"        {ref_step}\n")
    head = ctx.headers(math=op == "row_abs")
    note = ctx.comment(f"For a sparse n x n matrix given as {per_row} * n (row, column, value) triples in any order,\n"
                       f"{what}; every row scans all the triples.\nperfalign: {ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "index_type": it, "op": op, "per_row": str(per_row), "idx": I})


def div_mod_index(rng: random.Random) -> Variant:
    """Division and modulo by a loop invariant in the hot loop: flattened indices, wrap-around, scaling."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float", "int", "long"])
    I = ctx.idx
    op = rng.choice(["flat_index", "wrap", "flat_index", "wrap", "divide"])
    if op == "divide" and t not in ("double", "float"):
        op = "wrap"
    if op == "flat_index":
        name = pick_name(rng, ["add_row_col_bias", "outer_update", "bias_grid"], t)
        sig = f"void {name}({t} *a, const {t} *rb, const {t} *cb, {I} rows, {I} cols)"
        orig = (f"    for ({I} t = 0; t < rows * cols; t++) {{\n        const {I} i = t / cols;\n"
                f"        const {I} j = t % cols;\n        a[t] = a[t] * cb[j] + rb[i];\n    }}\n")
        ref = (f"    for ({I} i = 0; i < rows; i++)\n        for ({I} j = 0; j < cols; j++)\n"
               f"            a[i * cols + j] = a[i * cols + j] * cb[j] + rb[i];\n")
        what = "a[i][j] = a[i][j] * cb[j] + rb[i] over a flattened index split with / and %"
        ann = "size(a)=rows*cols, size(rb)=rows, size(cb)=cols"
    elif op == "wrap":
        name = pick_name(rng, ["apply_periodic_gain", "cyclic_scale", "tile_weights"], t)
        sig = f"void {name}({ctx.inp(t, 'x')}, {t} *y, {I} n, const {t} *w, {I} period)"
        comb = rng.choice(["y[i] = x[i] * w[i % period];", "y[i] += x[i] * w[i % period];",
                           "y[i] = x[i] - w[i % period];"])
        orig = f"    for ({I} i = 0; i < n; i++)\n        {comb}\n"
        ref = (f"    {I} k = 0;\n    for ({I} i = 0; i < n; i++) {{\n        {comb.replace('i % period', 'k')}\n"
               f"        if (++k == period)\n            k = 0;\n    }}\n")
        what = "Combine x with a periodic weight w[i % period], computing the modulo for every element"
        ann = "size(x)=n, size(y)=n, size(w)=period, min(period)=1"
    else:
        name = pick_name(rng, ["divide_all", "scale_down", "normalize_by"], t)
        sig = f"void {name}({ctx.inp(t, 'x')}, {t} *y, {I} n, {t} d)"
        comb = rng.choice(["y[i] = x[i] / d;", "y[i] = y[i] + x[i] / d;", "y[i] = (x[i] - y[i]) / d;"])
        orig = f"    for ({I} i = 0; i < n; i++)\n        {comb}\n"
        ref = (f"    const {t} inv = {lit(t, 1)} / d;\n    for ({I} i = 0; i < n; i++)\n"
               f"        {comb.replace(' / d', ' * inv')}\n")
        what = "Divide by the invariant d for every element"
        ann = "tolerance=1e-5" if t == "double" else ""
    head = ctx.headers()
    note = ctx.comment(what + "." + (f"\nperfalign: {ann}" if ann else ""))
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "op": op, "idx": I})

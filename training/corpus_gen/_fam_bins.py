"""Families about binning and branches: one pass per bin, bins found by searching, branchy inner loops."""
from __future__ import annotations

import random

from ._types import Ctx, Variant, lit, pick_name


def _key(rng: random.Random, ctx: Ctx, v: str) -> tuple[str, str, int, str]:
    """(element type, key expression of v[i], number of bins, annotation)."""
    kind = rng.choice(["mod", "shift", "mask", "unit_float", "offset_int"])
    if kind == "mod":
        nb = rng.choice([10, 16, 24, 50, 100])
        return "unsigned", f"{v}[i] % {nb}", nb, ""
    if kind == "shift":
        s = rng.choice([2, 3, 4])
        return "unsigned char", f"{v}[i] >> {s}", 256 >> s, ""
    if kind == "mask":
        nb = rng.choice([8, 16, 32, 64])
        return rng.choice(["unsigned", "unsigned short"]), f"{v}[i] & {nb - 1}", nb, ""
    if kind == "unit_float":
        nb = rng.choice([8, 16, 32, 64])
        t = rng.choice(["double", "float"])
        k = ctx.cast("int", f"({v}[i] + {lit(t, 1)}) * {lit(t, nb / 2)}")
        return t, f"{k} < 0 ? 0 : ({k} >= {nb} ? {nb - 1} : {k})", nb, ""
    width = rng.choice([4, 5, 8, 10, 20])
    nb = (200 + width) // width + 1
    t = rng.choice(["int", "short", "long"])
    return t, f"({v}[i] + 100) / {width}", nb, f"range({v})=-100..100"


def per_bin_pass(rng: random.Random) -> Variant:
    """A histogram that scans the whole input once for every bin."""
    ctx = Ctx.pick(rng, vec_ok=False)
    v, h, n = rng.choice([("v", "h", "n"), ("data", "counts", "n"), ("px", "hist", "npix"), ("x", "bins", "len")])
    t, key, nb, ann = _key(rng, ctx, v)
    ct = rng.choice(["int", "long", "unsigned"])
    I = ctx.idx
    name = pick_name(rng, ["histogram", "bin_counts", "tally_bins", "count_per_bin"], t)
    kfn = f"{key}"
    orig = (f"    for (int b = 0; b < {nb}; b++) {{\n        {h}[b] = 0;\n        for ({I} i = 0; i < {n}; i++) {{\n"
            f"            const int k = {kfn};\n            if (k == b)\n                {h}[b]++;\n        }}\n"
            f"    }}\n")
    ref = (f"    for (int b = 0; b < {nb}; b++)\n        {h}[b] = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n"
           f"        const int k = {kfn};\n        {h}[k]++;\n    }}\n")
    sig = f"void {name}(const {t} *{v}, {I} {n}, {ct} *{h})"
    ann = ", ".join(x for x in (f"size({h})={nb}", ann) if x)
    head = ctx.headers()
    note = ctx.comment(f"Histogram of {nb} bins; the data is scanned once per bin.\nperfalign: {ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "bins": str(nb), "key": key, "count": ct, "idx": I})


def histogram_bin_search(rng: random.Random) -> Variant:
    """Each value's bin found by walking the (uniform) bin edges, where a division finds it."""
    ctx = Ctx.pick(rng)
    t = rng.choice(["int", "short", "long"])
    lo = rng.choice([-100, -60, -40, 0])
    width = rng.choice([3, 5, 7, 10, 12])
    nb = rng.choice([8, 12, 16, 20, 30])
    weighted = rng.random() < 0.4
    I = ctx.idx
    v, h, n = rng.choice([("v", "h", "n"), ("x", "hist", "n"), ("temps", "bands", "n")])
    ct = "double" if weighted else rng.choice(["int", "long"])
    name = pick_name(rng, ["bin_by_edges", "banded_histogram", "classify_counts", "bucket_totals"], t)
    inc = "+= w[i]" if weighted else "++"
    orig = (f"    for (int b = 0; b < {nb}; b++)\n        {h}[b] = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n"
            f"        int b = 0;\n        while (b + 1 < {nb} && {v}[i] >= {lo} + (b + 1) * {width})\n"
            f"            b++;\n"
            f"        {h}[b]{inc};\n    }}\n")
    ref = (f"    for (int b = 0; b < {nb}; b++)\n        {h}[b] = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n"
           f"        const unsigned long q = {v}[i] < {lo} ? 0\n"
           f"            : ((unsigned long){v}[i] - (unsigned long)({lo})) / {width};\n"
           f"        const int b = q > {nb - 1} ? {nb - 1} : (int)q;\n        {h}[b]{inc};\n    }}\n")
    if ctx.vec:
        sig = (f"void {name}(const std::vector<{t}> &{v}{', const std::vector<double> &w' if weighted else ''}, "
               f"std::array<{ct}, {nb}> &{h})")
        setup = f"    const std::size_t {n} = {v}.size();\n"
        if weighted:
            setup += f"    if (w.size() < {n})\n        return;\n"
        ann = ""
        extra: tuple[str, ...] = ("array", "vector")
    else:
        sig = (f"void {name}(const {t} *{v}{', const double *w' if weighted else ''}, {I} {n}, {ct} *{h})")
        setup = ""
        ann = f"\nperfalign: size({h})={nb}"
        extra = ()
    head = ctx.headers(extra=extra)
    note = ctx.comment(f"Histogram over {nb} bins of width {width} from {lo} (the last bin takes the rest);\n"
                       f"each value walks the bin edges from the first.{ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{orig}}}\n", f"{head}{sig} {{\n{setup}{ref}}}\n",
                   {"type": t, "bins": str(nb), "width": str(width), "weighted": str(weighted), "idx": I})


def branchy_inner(rng: random.Random) -> Variant:
    """An inner loop whose branches test the loop index or repeat a test the data does not need."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float", "int"])
    I = ctx.idx
    op = rng.choice(["edge_test", "parity_split", "last_column", "clamp_chain"])
    z = lit(t, 0)
    if op == "edge_test":
        name = pick_name(rng, ["neighbor_diff", "forward_difference", "delta_signal"], t)
        sig = f"void {name}(const {t} *x, {t} *d, {I} n)"
        orig = (f"    for ({I} i = 0; i < n; i++) {{\n        if (i == 0)\n            d[i] = {z};\n"
                f"        else if (i == n - 1)\n            d[i] = x[i] - x[i - 1];\n        else\n"
                f"            d[i] = x[i] - x[i - 1];\n    }}\n")
        ref = (f"    if (n == 0)\n        return;\n    d[0] = {z};\n    for ({I} i = 1; i < n; i++)\n"
               f"        d[i] = x[i] - x[i - 1];\n")
        what = "Backward differences with index tests in the loop body"
        ann = ""
    elif op == "parity_split":
        name = pick_name(rng, ["weighted_alternating_sum", "even_odd_blend", "interleaved_dot"], t)
        sig = f"{t if t != 'float' else 'double'} {name}(const {t} *x, const {t} *y, {I} n)"
        acc = t if t != "float" else "double"
        orig = (f"    {acc} s = {lit(acc, 0)};\n    for ({I} i = 0; i < n; i++) {{\n        if (i % 2 == 0)\n"
                f"            s += x[i] * y[i];\n        else\n            s += y[i] * x[i];\n    }}\n    return s;\n")
        ref = (f"    {acc} s = {lit(acc, 0)};\n    for ({I} i = 0; i < n; i++)\n        s += x[i] * y[i];\n"
               f"    return s;\n")
        what = "Dot product with a parity branch whose two arms compute the same product"
        ann = ""
    elif op == "last_column":
        name = pick_name(rng, ["row_diffs", "horizontal_gradient", "grid_deltas"], t)
        sig = f"void {name}(const {t} *a, {t} *g, {I} rows, {I} cols)"
        orig = (f"    for ({I} i = 0; i < rows; i++)\n        for ({I} j = 0; j < cols; j++) {{\n"
                f"            if (j + 1 == cols)\n                g[i * cols + j] = {z};\n            else\n"
                f"                g[i * cols + j] = a[i * cols + j + 1] - a[i * cols + j];\n        }}\n")
        ref = (f"    for ({I} i = 0; i < rows; i++) {{\n        if (cols == 0)\n            continue;\n"
               f"        for ({I} j = 0; j + 1 < cols; j++)\n"
               f"            g[i * cols + j] = a[i * cols + j + 1] - a[i * cols + j];\n"
               f"        g[i * cols + cols - 1] = {z};\n    }}\n")
        what = "Differences along each row, with the last column tested on every element"
        ann = "size(a)=rows*cols, size(g)=rows*cols"
    else:
        name = pick_name(rng, ["clamp_total", "saturated_sum", "bounded_sum"], t)
        acc = "double" if t != "int" else "long"
        sig = f"{acc} {name}(const {t} *x, {I} n, {t} lo, {t} hi)"
        orig = (f"    {acc} s = {lit(acc, 0)};\n    for ({I} i = 0; i < n; i++) {{\n        {t} v = x[i];\n"
                f"        if (v < lo) {{\n            s += lo;\n        }} else {{\n            if (v > hi)\n"
                f"                s += hi;\n            else\n                s += v;\n        }}\n    }}\n"
                f"    return s;\n")
        ref = (f"    {acc} s = {lit(acc, 0)};\n    for ({I} i = 0; i < n; i++) {{\n        {t} v = x[i];\n"
               f"        s += v < lo ? lo : (v > hi ? hi : v);\n    }}\n    return s;\n")
        what = "Sum of x clamped to [lo, hi], the clamp written as nested branches"
        ann = ""
    head = ctx.headers()
    note = ctx.comment(what + "." + (f"\nperfalign: {ann}" if ann else ""))
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "op": op, "idx": I})

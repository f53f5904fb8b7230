"""Families about work repeated for every element: invariants, prefixes, windows, powers."""
from __future__ import annotations

import random

from ._types import WIDE, Ctx, Variant, lit, pick_name


def invariant_reduction(rng: random.Random) -> Variant:
    """A whole-array reduction (sum, mean, largest magnitude) recomputed inside the loop that uses it."""
    ctx = Ctx.pick(rng)
    t = rng.choice(["double", "float"])
    op = rng.choice(["normalize_sum", "center_mean", "scale_max", "count_above_mean", "rel_to_min"])
    I = ctx.idx
    x, out = rng.choice([("x", "out"), ("v", "w"), ("src", "dst"), ("a", "b")])
    n = "n"
    fabs = ctx.math("fabs", t)
    acc = "double"
    if op == "normalize_sum":
        inner = (f"{acc} total = 0.0;\n        for ({I} j = 0; j < {n}; j++)\n            total += {x}[j];\n",
                 f"{out}[i] = {ctx.cast(t, f'{x}[i] / total')};")
        what, stems = "Each element divided by the sum of all elements", ["normalize_by_sum", "share_of_total"]
    elif op == "center_mean":
        inner = (f"{acc} total = 0.0;\n        for ({I} j = 0; j < {n}; j++)\n            total += {x}[j];\n",
                 f"{out}[i] = {ctx.cast(t, f'{x}[i] - total / {n}')};")
        what, stems = "Each element minus the mean", ["center", "subtract_mean", "demean"]
    elif op == "scale_max":
        inner = (f"{t} big = {lit(t, 0)};\n        for ({I} j = 0; j < {n}; j++)\n"
                 f"            if ({fabs}({x}[j]) > big)\n                big = {fabs}({x}[j]);\n",
                 f"{out}[i] = big > {lit(t, 0)} ? {x}[i] / big : {lit(t, 0)};")
        what, stems = "Each element divided by the largest magnitude", ["scale_to_unit", "normalize_peak"]
    elif op == "rel_to_min":
        inner = (f"{t} low = {x}[0];\n        for ({I} j = 1; j < {n}; j++)\n"
                 f"            if ({x}[j] < low)\n                low = {x}[j];\n",
                 f"{out}[i] = {x}[i] - low;")
        what, stems = "Each element minus the smallest element", ["offset_from_min", "relative_to_min"]
    else:
        inner = (f"{acc} total = 0.0;\n        for ({I} j = 0; j < {n}; j++)\n            total += {x}[j];\n",
                 f"if ({x}[i] * {ctx.cast('double', n)} > total)\n            count++;")
        what, stems = "How many elements lie above the mean", ["count_above_mean", "above_average"]
    name = pick_name(rng, stems, t)
    counts = op == "count_above_mean"
    ret = "long" if counts else "void"
    params = ctx.inp(t, x) + ("" if counts else ", " + ctx.out(t, out)) + ctx.length_param(n)
    sig = f"{ret} {name}({params})"
    setup = ctx.length_decl(n, x) + ("" if counts else ctx.size_output(out, n, t))
    pre, use = inner
    start = "    long count = 0;\n" if counts else ""
    tail = "    return count;\n" if counts else ""
    orig = (f"{setup}{start}    for ({I} i = 0; i < {n}; i++) {{\n        {pre}        {use}\n    }}\n{tail}")
    ref = (f"{setup}{start}    {pre.replace(chr(10) + '    ', chr(10))}"
           f"    for ({I} i = 0; i < {n}; i++) {{\n        {use}\n    }}\n{tail}")
    ann = "perfalign: min(n)=1" if op == "rel_to_min" and not ctx.vec else ""
    if op == "rel_to_min" and ctx.vec:
        orig = orig.replace(f"    for ({I} i", f"    if ({n} == 0)\n        return;\n    for ({I} i", 1)
        ref = f"{setup}    if ({n} == 0)\n        return;\n" + ref[len(setup):]
    head = ctx.headers(math=op == "scale_max", extra=("vector",) if ctx.vec else ())
    note = ctx.comment(f"{what}; the reduction is recomputed for every element." + (f"\n{ann}" if ann else ""))
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "op": op, "idx": I, "vector": str(ctx.vec)})


def invariant_inner_loop(rng: random.Random) -> Variant:
    """A loop over a second array (weights, coefficients) that does not depend on the outer index."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "float"])
    I = ctx.idx
    op = rng.choice(["weight_sum", "weight_energy", "dot", "horner"])
    w, m = rng.choice([("w", "m"), ("coef", "k"), ("gw", "ng"), ("taps", "nt")])
    name = pick_name(rng, {"weight_sum": ["apply_gain", "scale_by_weights", "gain_stage"],
                           "weight_energy": ["scale_by_energy", "energy_gain"],
                           "dot": ["project_scale", "scale_by_dot"],
                           "horner": ["scale_by_poly", "poly_gain"]}[op], t)
    if op == "weight_sum":
        extra, calc = "", f"g += {w}[j];"
    elif op == "weight_energy":
        extra, calc = "", f"g += {w}[j] * {w}[j];"
    elif op == "dot":
        extra, calc = f", const {t} *u", f"g += {w}[j] * u[j];"
    else:
        extra, calc = f", {t} z", f"g = g * z + {w}[j];"
    add = rng.choice(["y[i] = x[i] * g;", "y[i] += x[i] * g;", "y[i] = x[i] * g + y[i] * g;"])
    sig = f"void {name}(const {t} *x, {t} *y, {I} n, const {t} *{w}, {I} {m}{extra})"
    ann = f"size(x)=n, size(y)=n, size({w})={m}" + (f", size(u)={m}" if op == "dot" else "")
    loop = f"for ({I} j = 0; j < {m}; j++)\n"
    orig = (f"    for ({I} i = 0; i < n; i++) {{\n        {t} g = {lit(t, 0)};\n        {loop}"
            f"            {calc}\n        {add}\n    }}\n")
    ref = (f"    {t} g = {lit(t, 0)};\n    {loop}        {calc}\n"
           f"    for ({I} i = 0; i < n; i++)\n        {add}\n")
    head = ctx.headers()
    note = ctx.comment(f"Scale x by a gain computed from {w}[0..{m}); the gain is recomputed for every element.\n"
                       f"perfalign: {ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "op": op, "update": add, "idx": I})


def prefix_recompute(rng: random.Random) -> Variant:
    """out[i] from all of in[0..i] (or in[i..n)), recomputed from scratch for each i."""
    ctx = Ctx.pick(rng)
    t = rng.choice(["double", "float", "int", "long", "short"])
    op = rng.choice(["sum", "max", "min", "mean", "count_pos"])
    if op == "mean" and t not in ("double", "float"):
        op = "sum"
    suffix = rng.random() < 0.35
    I = ctx.idx
    o_t = {"sum": WIDE[t], "max": t, "min": t, "mean": t, "count_pos": "long"}[op]
    x, out = rng.choice([("in", "out"), ("a", "p"), ("x", "acc"), ("data", "result")])
    n = "n"
    side = "suffix" if suffix else "prefix"
    name = pick_name(rng, {"sum": [f"{side}_sums", f"{side}_totals", "running_total" if not suffix else "tail_sums"],
                           "max": [f"{side}_max", "running_peak" if not suffix else "tail_max"],
                           "min": [f"{side}_min", "running_low" if not suffix else "tail_min"],
                           "mean": [f"{side}_mean", "cumulative_average" if not suffix else "tail_average"],
                           "count_pos": [f"{side}_positive_count",
                                         "positives_so_far" if not suffix else "positives_after"]}[op], t)
    first = f"{x}[0]" if not suffix else f"{x}[{n} - 1]"  # the order of comparisons a running scan keeps
    init = {"sum": lit(o_t, 0), "max": first, "min": first, "mean": lit("double" if t == "double" else t, 0),
            "count_pos": "0"}[op]
    acc_t = {"mean": t}.get(op, o_t)
    step = {"sum": "s += {v};", "max": "if ({v} > s) s = {v};", "min": "if ({v} < s) s = {v};",
            "mean": "s += {v};", "count_pos": "if ({v} > 0) s++;"}[op]
    if op == "mean":
        den = "(i + 1)" if not suffix else f"({n} - i)"
        fin = f"{out}[i] = s / {ctx.cast(t, den)};"
    else:
        fin = f"{out}[i] = s;"
    if not suffix:
        inner = f"for ({I} j = 0; j <= i; j++)"
    else:
        inner = ctx.down("j", n, "i")
    orig = (f"    for ({I} i = 0; i < {n}; i++) {{\n        {acc_t} s = {init};\n        {inner}\n"
            f"            {step.format(v=f'{x}[j]')}\n        {fin}\n    }}\n")
    init_r = init
    if not suffix:
        ref = (f"    {acc_t} s = {init_r};\n    for ({I} i = 0; i < {n}; i++) {{\n"
               f"        {step.format(v=f'{x}[i]')}\n        {fin}\n    }}\n")
    else:
        ref = (f"    {acc_t} s = {init_r};\n    {ctx.down('i', n)} {{\n"
               f"        {step.format(v=f'{x}[i]')}\n        {fin}\n    }}\n")
    if op in ("max", "min"):
        ref = f"    if ({n} == 0)\n        return;\n" + ref
    sig = f"void {name}({ctx.inp(t, x)}, {ctx.out(o_t, out)}{ctx.length_param(n)})"
    setup = ctx.length_decl(n, x) + ctx.size_output(out, n, o_t)
    head = ctx.headers()
    rng_txt = "in[0..i]" if not suffix else "in[i..n)"
    note = ctx.comment(f"out[i] = {op} of {rng_txt}, recomputed from scratch for every i.")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{orig}}}\n", f"{head}{sig} {{\n{setup}{ref}}}\n",
                   {"type": t, "op": op, "direction": side, "idx": I, "vector": str(ctx.vec)})


def window_recompute(rng: random.Random) -> Variant:
    """A fixed-width moving window re-summed for every position."""
    ctx = Ctx.pick(rng)
    t = rng.choice(["double", "float", "int", "long"])
    W = rng.choice([16, 24, 32, 48, 64, 100])
    op = rng.choice(["sum", "mean", "count_above"])
    if op == "mean" and t not in ("double", "float"):
        op = "sum"
    trailing = rng.random() < 0.5
    I = ctx.idx
    o_t = {"sum": WIDE[t], "mean": t, "count_above": "int"}[op]
    acc_t = "double" if t in ("double", "float") else WIDE[t]
    if op == "count_above":
        acc_t = "int"
    x, out = rng.choice([("x", "y"), ("signal", "smooth"), ("in", "out"), ("samples", "level")])
    n = "n"
    wname = rng.choice(["W", "WIDTH", "SPAN", "WIN"])
    name = pick_name(rng, {"sum": ["window_sums", "box_sum", "moving_total"], "mean": ["moving_average", "box_mean",
                                                                                        "rolling_mean"],
                           "count_above": ["window_count_above", "rolling_exceed"]}[op], t)
    thr = f", {t} limit" if op == "count_above" else ""
    term = f"({x}[j] > limit)" if op == "count_above" else f"{x}[j]"
    term_at = lambda k: term.replace("[j]", f"[{k}]")  # noqa: E731
    if trailing:
        lo = f"i + 1 >= {wname} ? i + 1 - {wname} : 0"
        orig_in = f"for ({I} j = {lo}; j <= i; j++)"
        cnt = f"(i + 1 < {wname} ? i + 1 : {wname})"
    else:
        orig_in = f"for ({I} j = i; j < i + {wname} && j < {n}; j++)"
        cnt = f"({n} - i < {wname} ? {n} - i : {wname})"
    if op == "mean":
        fin = f"{out}[i] = {ctx.cast(t, f's / {cnt}')};"
    else:
        fin = f"{out}[i] = {ctx.cast(o_t, 's') if o_t != acc_t else 's'};"
    orig = (f"    for ({I} i = 0; i < {n}; i++) {{\n        {acc_t} s = {lit(acc_t, 0)};\n        {orig_in}\n"
            f"            s += {term};\n        {fin}\n    }}\n")
    if trailing:
        ref = (f"    {acc_t} s = {lit(acc_t, 0)};\n    for ({I} i = 0; i < {n}; i++) {{\n        s += {term_at('i')};\n"
               f"        if (i >= {wname})\n            s -= {term_at(f'i - {wname}')};\n        {fin}\n    }}\n")
    else:
        ref = (f"    {acc_t} s = {lit(acc_t, 0)};\n    {ctx.down('i', n)} {{\n        s += {term_at('i')};\n"
               f"        if (i + {wname} < {n})\n            s -= {term_at(f'i + {wname}')};\n        {fin}\n    }}\n")
    define = (f"#define {wname} {W}\n\n" if ctx.lang == "c" else f"constexpr std::size_t {wname} = {W};\n\n")
    sig = f"void {name}({ctx.inp(t, x)}, {ctx.out(o_t, out)}{ctx.length_param(n)}{thr})"
    setup = ctx.length_decl(n, x) + ctx.size_output(out, n, o_t)
    head = ctx.headers() + define
    where = f"x[i-{W}+1..i]" if trailing else f"x[i..i+{W})"
    ann = f"\nperfalign: range({x})=-1000..1000" if t in ("double", "float") else ""
    note = ctx.comment(f"out[i] = {op} over the window {where} (clipped at the ends), re-summed for every i.{ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{orig}}}\n", f"{head}{sig} {{\n{setup}{ref}}}\n",
                   {"type": t, "op": op, "width": str(W), "trailing": str(trailing), "idx": I})


def pow_to_recurrence(rng: random.Random) -> Variant:
    """pow() where a multiplication or a running product does: polynomials, geometric weights, small powers."""
    ctx = Ctx.pick(rng, vec_ok=False)
    t = rng.choice(["double", "double", "float"])
    I = ctx.idx
    op = rng.choice(["poly", "geometric", "small_power"])
    pw = ctx.math("pow", t)
    if op == "poly":
        name = pick_name(rng, ["poly_eval", "evaluate_polynomial", "poly_values"], t)
        sig = f"void {name}(const {t} *c, {I} degree, const {t} *x, {t} *y, {I} n)"
        ann = "size(c)=degree+1, size(x)=n, size(y)=n, range(x)=-1..1, range(c)=-2..2"
        orig = (f"    for ({I} i = 0; i < n; i++) {{\n        {t} acc = {lit(t, 0)};\n"
                f"        for ({I} k = 0; k <= degree; k++)\n"
                f"            acc += c[k] * {pw}(x[i], {ctx.cast(t, 'k')});\n"
                f"        y[i] = acc;\n    }}\n")
        ref = (f"    for ({I} i = 0; i < n; i++) {{\n        {t} acc = c[degree];\n"
               f"        {ctx.down('k', 'degree')}\n            acc = acc * x[i] + c[k];\n        y[i] = acc;\n"
               f"    }}\n")
        what = "Evaluate the polynomial c[0..degree] at every x[i] with pow()"
    elif op == "geometric":
        r = rng.choice(["0.999", "0.9995", "0.99", "0.9999"])
        name = pick_name(rng, ["discounted_sum", "decayed_total", "geometric_weighted_sum"], t)
        sig = f"double {name}(const {t} *x, {I} n)"
        ann = ""
        orig = (f"    double s = 0.0;\n    for ({I} i = 0; i < n; i++)\n"
                f"        s += x[i] * {ctx.math('pow', 'double')}({r}, {ctx.cast('double', 'i')});\n    return s;\n")
        ref = (f"    double s = 0.0, f = 1.0;\n    for ({I} i = 0; i < n; i++) {{\n        s += x[i] * f;\n"
               f"        f *= {r};\n    }}\n    return s;\n")
        what = f"Sum of x[i] * {r}^i with pow() for every weight"
    else:
        e = rng.choice([3, 4, 5])
        k = rng.choice([1, 2])
        name = pick_name(rng, [f"power{e}_sum", f"moment{e}", f"sum_pow{e}"], t)
        sig = f"double {name}(const {t} *x, {I} n)"
        ann = ""
        orig = (f"    double s = 0.0;\n    for ({I} i = 0; i < n; i++)\n"
                f"        s += {k} * {ctx.math('pow', 'double')}(x[i], {e}.0);\n    return s;\n")
        prod = " * ".join(["v"] * e)
        ref = (f"    double s = 0.0;\n    for ({I} i = 0; i < n; i++) {{\n        const double v = x[i];\n"
               f"        s += {k} * ({prod});\n    }}\n    return s;\n")
        what = f"Sum of {k} * x[i]^{e} through pow()"
    head = ctx.headers(math=True)
    note = ctx.comment(what + "." + (f"\nperfalign: {ann}" if ann else ""))
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "op": op, "idx": I})

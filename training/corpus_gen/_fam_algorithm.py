"""Families where a better algorithm exists: O(n^2) pair loops, searches and sorts that a sort, a table or a
closed form replaces."""
from __future__ import annotations

import random

from ._types import Ctx, Variant, lit, pick_name

INT_TYPES = ["int", "long", "short"]


def pairwise_closed_form(rng: random.Random) -> Variant:
    """A sum over all pairs i < j that an algebraic identity or a sort computes in one pass."""
    ctx = Ctx.pick(rng)
    op = rng.choice(["sq_diff", "products", "abs_diff", "sq_diff", "products"])
    t = rng.choice(INT_TYPES + ["double"]) if op != "abs_diff" else rng.choice(INT_TYPES)
    acc = "double" if t == "double" else "long long"
    I = ctx.idx
    a, n = rng.choice([("a", "n"), ("v", "n"), ("x", "n"), ("vals", "n")])
    setup = ctx.length_decl(n, a)
    sig_params = f"{ctx.inp(t, a)}{ctx.length_param(n)}"
    if op == "sq_diff":
        name = pick_name(rng, ["sum_sq_pair_diffs", "pairwise_spread", "pair_distance_energy"], t)
        pair = f"const {acc} d = ({acc}){a}[i] - ({acc}){a}[j];\n                s += d * d;"
        ref = (f"    {acc} s1 = 0, s2 = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n        const {acc} e = {a}[i];\n"
               f"        s1 += e;\n        s2 += e * e;\n    }}\n    return ({acc}){n} * s2 - s1 * s1;\n")
        what = "Sum of (a[i] - a[j])^2 over all pairs i < j"
    elif op == "products":
        name = pick_name(rng, ["sum_pair_products", "pairwise_product_total", "cross_terms"], t)
        pair = f"s += ({acc}){a}[i] * {a}[j];"
        ref = (f"    {acc} s1 = 0, s2 = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n        const {acc} e = {a}[i];\n"
               f"        s1 += e;\n        s2 += e * e;\n    }}\n    return (s1 * s1 - s2) / 2;\n")
        what = "Sum of a[i] * a[j] over all pairs i < j"
    else:
        name = pick_name(rng, ["sum_abs_pair_diffs", "total_pair_gap", "gini_numerator"], t)
        pair = f"{acc} d = ({acc}){a}[i] - ({acc}){a}[j];\n                s += d < 0 ? -d : d;"
        if ctx.lang == "c":
            ref = (f"    {t} *s_ = ({t} *)malloc(({n} > 0 ? {n} : 1) * sizeof({t}));\n    if (!s_)\n"
                   f"        return -1;\n"
                   f"    memcpy(s_, {a}, {n} * sizeof({t}));\n    qsort(s_, {n}, sizeof({t}), cmp_{t});\n"
                   f"    {acc} s = 0, before = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n"
                   f"        s += ({acc})s_[i] * ({acc})i - before;\n        before += s_[i];\n    }}\n"
                   f"    free(s_);\n    return s;\n")
        else:
            src = a if ctx.vec else f"{a}, {a} + {n}"
            ref = (f"    std::vector<{t}> s_({src});\n    std::sort(s_.begin(), s_.end());\n"
                   f"    {acc} s = 0, before = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n"
                   f"        s += static_cast<{acc}>(s_[i]) * static_cast<{acc}>(i) - before;\n"
                   f"        before += s_[i];\n    }}\n    return s;\n")
        what = "Sum of |a[i] - a[j]| over all pairs i < j"
    orig = (f"    {acc} s = 0;\n    for ({I} i = 0; i < {n}; i++)\n        for ({I} j = i + 1; j < {n}; j++) {{\n"
            f"                {pair}\n        }}\n    return s;\n")
    sig = f"{acc} {name}({sig_params})"
    extra: tuple[str, ...] = ()
    helper = ""
    if op == "abs_diff":
        extra = ("stdlib.h", "string.h") if ctx.lang == "c" else ("algorithm", "vector")
        if ctx.lang == "c":
            helper = (f"static int cmp_{t}(const void *p, const void *q) {{\n    const {t} x = *(const {t} *)p, "
                      f"y = *(const {t} *)q;\n    return (x > y) - (x < y);\n}}\n\n")
    head = ctx.headers(extra=extra)
    note = ctx.comment(f"{what}: O(n^2).")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{orig}}}\n",
                   f"{head}{helper}{sig} {{\n{setup}{ref}}}\n", {"type": t, "op": op, "idx": I})


def quadratic_to_counting(rng: random.Random) -> Variant:
    """Duplicates, distinct values and frequencies found by comparing every pair, where a table or hash does it."""
    ctx = Ctx.pick(rng)
    op = rng.choice(["distinct", "equal_pairs", "singletons", "max_freq"])
    I = ctx.idx
    v, n = rng.choice([("v", "n"), ("keys", "n"), ("ids", "count"), ("codes", "n")])
    if ctx.lang == "c":
        t, K = rng.choice([("unsigned char", 256), ("unsigned short", 1024), ("int", 100), ("int", 1000),
                           ("unsigned", 4096)])
        ann = f"\nperfalign: size({v})={n}, range({v})=0..{K - 1}"
    else:
        t, K = rng.choice(["int", "long", "unsigned"]), 0
        ann = "" if ctx.vec else f"\nperfalign: size({v})={n}"
    setup = ctx.length_decl(n, v)
    name = pick_name(rng, {"distinct": ["count_distinct", "distinct_values", "unique_count"],
                           "equal_pairs": ["count_equal_pairs", "matching_pairs", "duplicate_pairs"],
                           "singletons": ["count_singletons", "values_seen_once", "unique_occurrences"],
                           "max_freq": ["max_frequency", "mode_count", "most_repeats"]}[op], t)
    if op == "distinct":
        orig = (f"    long c = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n        int seen = 0;\n"
                f"        for ({I} j = 0; j < i; j++)\n            if ({v}[j] == {v}[i]) {{\n"
                f"                seen = 1;\n"
                f"                break;\n            }}\n        if (!seen)\n            c++;\n    }}\n"
                f"    return c;\n")
    elif op == "equal_pairs":
        orig = (f"    long c = 0;\n    for ({I} i = 0; i < {n}; i++)\n        for ({I} j = i + 1; j < {n}; j++)\n"
                f"            if ({v}[i] == {v}[j])\n                c++;\n    return c;\n")
    elif op == "singletons":
        orig = (f"    long c = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n        long k = 0;\n"
                f"        for ({I} j = 0; j < {n}; j++)\n            if ({v}[j] == {v}[i])\n                k++;\n"
                f"        if (k == 1)\n            c++;\n    }}\n    return c;\n")
    else:
        orig = (f"    long best = 0;\n    for ({I} i = 0; i < {n}; i++) {{\n        long k = 0;\n"
                f"        for ({I} j = 0; j < {n}; j++)\n            if ({v}[j] == {v}[i])\n                k++;\n"
                f"        if (k > best)\n            best = k;\n    }}\n    return best;\n")
    if ctx.lang == "c":
        table = f"    long *seen_ = (long *)calloc({K}, sizeof(long));\n    if (!seen_)\n        return -1;\n" \
                f"    for ({I} i = 0; i < {n}; i++)\n        seen_[{v}[i]]++;\n"
        fold = {"distinct": "if (seen_[k] > 0) c++;", "equal_pairs": "c += seen_[k] * (seen_[k] - 1) / 2;",
                "singletons": "if (seen_[k] == 1) c++;", "max_freq": "if (seen_[k] > c) c = seen_[k];"}[op]
        ref = (f"{table}    long c = 0;\n    for (int k = 0; k < {K}; k++)\n        {fold}\n"
               f"    free(seen_);\n    return c;\n")
        extra: tuple[str, ...] = ("stdlib.h",)
    else:
        fold = {"distinct": "c++;", "equal_pairs": "c += e.second * (e.second - 1) / 2;",
                "singletons": "if (e.second == 1) c++;", "max_freq": "if (e.second > c) c = e.second;"}[op]
        ref = (f"    std::unordered_map<{t}, long> seen_;\n    seen_.reserve({n});\n"
               f"    for ({I} i = 0; i < {n}; i++)\n        seen_[{v}[i]]++;\n    long c = 0;\n"
               f"    for (const auto &e : seen_)\n        {fold}\n    return c;\n")
        extra = ("unordered_map",)
    sig = f"long {name}({ctx.inp(t, v)}{ctx.length_param(n)})"
    head = ctx.headers(extra=extra)
    what = {"distinct": "Number of distinct values", "equal_pairs": "Number of pairs i < j with equal values",
            "singletons": "Number of values that occur exactly once",
            "max_freq": "How often the most frequent value occurs"}[op]
    note = ctx.comment(f"{what}, by comparing elements pairwise: O(n^2).{ann}")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{orig}}}\n", f"{head}{sig} {{\n{setup}{ref}}}\n",
                   {"type": t, "op": op, "table": str(K), "idx": I})


def rank_by_sort(rng: random.Random) -> Variant:
    """For every element, how many others are smaller (or not larger): a sort and a binary search instead."""
    ctx = Ctx.pick(rng)
    t = rng.choice(["int", "long", "short", "unsigned"])
    rel = rng.choice(["<", "<=", ">"])
    I = ctx.idx
    x, r, n = rng.choice([("x", "rank", "n"), ("score", "place", "n"), ("v", "below", "n"), ("a", "pos", "len")])
    name = pick_name(rng, {"<": ["rank_strict", "count_smaller", "ranks_below"],
                           "<=": ["rank_inclusive", "count_not_larger", "cumulative_rank"],
                           ">": ["count_larger", "ranks_above", "beaten_by"]}[rel], t)
    setup = ctx.length_decl(n, x) + ctx.size_output(r, n, "long")
    orig = (f"    for ({I} i = 0; i < {n}; i++) {{\n        long c = 0;\n        for ({I} j = 0; j < {n}; j++)\n"
            f"            if ({x}[j] {rel} {x}[i])\n                c++;\n        {r}[i] = c;\n    }}\n")
    # position in the sorted copy: first index whose value is >= key (lower) or > key (upper)
    bound, result = {"<": ("lower", "lo"), "<=": ("upper", "lo"), ">": ("upper", f"({ctx.cast('long', n)} - lo)")}[rel]
    cmp = "<" if bound == "lower" else "<="
    if ctx.lang == "c":
        ref = (f"    {t} *s_ = ({t} *)malloc(({n} > 0 ? {n} : 1) * sizeof({t}));\n    if (!s_)\n        return;\n"
               f"    memcpy(s_, {x}, {n} * sizeof({t}));\n    qsort(s_, {n}, sizeof({t}), cmp_{t});\n"
               f"    for ({I} i = 0; i < {n}; i++) {{\n        long lo = 0, hi = (long){n};\n"
               f"        while (lo < hi) {{\n            long mid = lo + (hi - lo) / 2;\n"
               f"            if (s_[mid] {cmp} {x}[i])\n                lo = mid + 1;\n            else\n"
               f"                hi = mid;\n        }}\n        {r}[i] = {result};\n    }}\n    free(s_);\n")
        helper = (f"static int cmp_{t}(const void *p, const void *q) {{\n    const {t} a = *(const {t} *)p, "
                  f"b = *(const {t} *)q;\n    return (a > b) - (a < b);\n}}\n\n")
        extra: tuple[str, ...] = ("stdlib.h", "string.h")
    else:
        src = x if ctx.vec else f"{x}, {x} + {n}"
        fn = "std::lower_bound" if bound == "lower" else "std::upper_bound"
        ref = (f"    std::vector<{t}> s_({src});\n    std::sort(s_.begin(), s_.end());\n"
               f"    for ({I} i = 0; i < {n}; i++) {{\n"
               f"        const long lo = static_cast<long>({fn}(s_.begin(), s_.end(), {x}[i]) - s_.begin());\n"
               f"        {r}[i] = {result};\n    }}\n")
        helper = ""
        extra = ("algorithm", "vector")
    sig = f"void {name}({ctx.inp(t, x)}, {ctx.out('long', r)}{ctx.length_param(n)})"
    head = ctx.headers(extra=extra)
    note = ctx.comment(f"{r}[i] = how many elements x[j] satisfy x[j] {rel} x[i], by scanning all of x: O(n^2).")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{orig}}}\n",
                   f"{head}{helper}{sig} {{\n{setup}{ref}}}\n", {"type": t, "relation": rel, "idx": I})


def quadratic_sort(rng: random.Random) -> Variant:
    """A hand-written O(n^2) sort (bubble, selection, insertion) of integers, where the library sort does."""
    ctx = Ctx.pick(rng)
    t = rng.choice(["int", "long", "short", "unsigned", "long long"])
    algo = rng.choice(["bubble", "selection", "insertion"])
    desc = rng.random() < 0.35
    I = ctx.idx
    a, n = rng.choice([("a", "n"), ("v", "n"), ("keys", "count"), ("data", "len")])
    before = ">" if desc else "<"
    after = "<" if desc else ">"
    order = "descending" if desc else "ascending"
    name = pick_name(rng, [f"{algo}_sort", f"sort_{order}", f"{algo}_sort_{'desc' if desc else 'asc'}",
                           f"order_{a}"], t)
    if ctx.vec:
        setup, sigp = f"    const std::size_t {n} = {a}.size();\n", f"std::vector<{t}> &{a}"
    else:
        setup, sigp = "", f"{t} *{a}, {I} {n}"
    if algo == "bubble":
        body = (f"    for ({I} i = 0; i < {n}; i++)\n        for ({I} j = 0; j + 1 < {n} - i; j++)\n"
                f"            if ({a}[j] {after} {a}[j + 1]) {{\n                {t} tmp = {a}[j];\n"
                f"                {a}[j] = {a}[j + 1];\n                {a}[j + 1] = tmp;\n            }}\n")
    elif algo == "selection":
        body = (f"    for ({I} i = 0; i < {n}; i++) {{\n        {I} best = i;\n"
                f"        for ({I} j = i + 1; j < {n}; j++)\n            if ({a}[j] {before} {a}[best])\n"
                f"                best = j;\n        {t} tmp = {a}[i];\n        {a}[i] = {a}[best];\n"
                f"        {a}[best] = tmp;\n    }}\n")
    else:
        body = (f"    for ({I} i = 1; i < {n}; i++) {{\n        {t} key = {a}[i];\n        {I} j = i;\n"
                f"        while (j > 0 && {a}[j - 1] {after} key) {{\n            {a}[j] = {a}[j - 1];\n"
                f"            j--;\n        }}\n        {a}[j] = key;\n    }}\n")
    if ctx.lang == "c":
        helper = (f"static int cmp_{t.replace(' ', '_')}(const void *p, const void *q) {{\n"
                  f"    const {t} x = *(const {t} *)p, y = *(const {t} *)q;\n"
                  f"    return {'(x < y) - (x > y)' if desc else '(x > y) - (x < y)'};\n}}\n\n")
        ref = f"    qsort({a}, {n}, sizeof({t}), cmp_{t.replace(' ', '_')});\n"
        extra: tuple[str, ...] = ("stdlib.h",)
    else:
        helper = ""
        end = f"{a}.end()" if ctx.vec else f"{a} + {n}"
        beg = f"{a}.begin()" if ctx.vec else a
        ref = f"    std::sort({beg}, {end}{', std::greater<' + t + '>()' if desc else ''});\n"
        extra = ("algorithm", "functional") if desc else ("algorithm",)
        if ctx.vec:
            extra += ("vector",)
    sig = f"void {name}({sigp})"
    head = ctx.headers(extra=extra)
    note = ctx.comment(f"Sort into {order} order with {algo} sort: O(n^2).")
    body_ref = ref if not ctx.vec else ref
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{body}}}\n",
                   f"{head}{helper}{sig} {{\n{body_ref}}}\n", {"type": t, "algorithm": algo, "order": order,
                                                               "idx": I})


def early_exit(rng: random.Random) -> Variant:
    """A search that keeps scanning after its answer is known (first match, any match)."""
    ctx = Ctx.pick(rng)
    t = rng.choice(["double", "float", "int", "long"])
    op = rng.choice(["first_above", "any_negative_pair", "first_repeat_pos", "all_below"])
    if op == "first_repeat_pos" and t in ("double", "float"):
        t = rng.choice(["int", "short"])
    I = ctx.idx
    x, n = rng.choice([("x", "n"), ("v", "n"), ("data", "len"), ("a", "count")])
    setup = ctx.length_decl(n, x)
    if op == "first_above":
        name = pick_name(rng, ["first_above", "find_first_exceeding", "index_over_limit"], t)
        extra_p = f", {t} limit"
        ret = "long"
        orig = (f"    long found = -1;\n    for ({I} i = 0; i < {n}; i++)\n"
                f"        if (found < 0 && {x}[i] > limit)\n            found = (long)i;\n    return found;\n")
        ref = (f"    for ({I} i = 0; i < {n}; i++)\n        if ({x}[i] > limit)\n            return (long)i;\n"
               f"    return -1;\n")
        what = "Index of the first element above limit (-1 if none); the loop runs to the end"
    elif op == "all_below":
        name = pick_name(rng, ["all_below", "bounded_by", "none_reach"], t)
        extra_p = f", {t} limit"
        ret = "int"
        orig = (f"    int ok = 1;\n    for ({I} i = 0; i < {n}; i++)\n        if ({x}[i] >= limit)\n"
                f"            ok = 0;\n    return ok;\n")
        ref = (f"    for ({I} i = 0; i < {n}; i++)\n        if ({x}[i] >= limit)\n            return 0;\n"
               f"    return 1;\n")
        what = "Whether every element is below limit; the loop runs to the end"
    elif op == "any_negative_pair":
        name = pick_name(rng, ["has_sign_change", "any_sign_flip", "crosses_zero"], t)
        extra_p = ""
        ret = "int"
        orig = (f"    int flips = 0;\n    for ({I} i = 0; i + 1 < {n}; i++)\n"
                f"        if (({x}[i] < 0) != ({x}[i + 1] < 0))\n            flips++;\n    return flips > 0;\n")
        ref = (f"    for ({I} i = 0; i + 1 < {n}; i++)\n        if (({x}[i] < 0) != ({x}[i + 1] < 0))\n"
               f"            return 1;\n    return 0;\n")
        what = "Whether neighbouring elements ever change sign; counts every change first"
    else:
        name = pick_name(rng, ["first_repeat", "first_duplicate_pos", "earliest_repeat"], t)
        extra_p = ""
        ret = "long"
        orig = (f"    long found = -1;\n    for ({I} i = 1; i < {n}; i++)\n        for ({I} j = 0; j < i; j++)\n"
                f"            if (found < 0 && {x}[j] == {x}[i])\n                found = (long)i;\n"
                f"    return found;\n")
        ref = (f"    for ({I} i = 1; i < {n}; i++)\n        for ({I} j = 0; j < i; j++)\n"
               f"            if ({x}[j] == {x}[i])\n                return (long)i;\n    return -1;\n")
        what = "Index of the first element equal to an earlier one (-1 if none); keeps scanning after it"
    sig = f"{ret} {name}({ctx.inp(t, x)}{ctx.length_param(n)}{extra_p})"
    head = ctx.headers()
    note = ctx.comment(what + ".")
    return Variant(name, ctx.lang, f"{head}{note}{sig} {{\n{setup}{orig}}}\n", f"{head}{sig} {{\n{setup}{ref}}}\n",
                   {"type": t, "op": op, "idx": I})

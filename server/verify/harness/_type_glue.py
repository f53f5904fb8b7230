"""The type glue: the glue unit's C that describes each parameter's element type and sizes and generates the inputs.

It is generated from the original's plan alone (a candidate's code is never
compiled into the glue unit): each parameter's kind, name and element size,
whether its elements are floating point or signed, how many elements each size
hypothesis gives for the case's lengths, and a seeded generator per element
type that fills an array with the case's input profile (random, wide-ranging,
special values, sorted, reversed, constant, few distinct values, zero) or
within a stated range; records whose fields differ in type are filled field by
field, and each field's offset, size and kind is reported so results are
compared field by field. Scalars get their stated value, their length, a value
in their range, or one drawn by their scalar profile and raised to the smallest
value the case gives them (their slot in the case's lengths).
"""
from __future__ import annotations

import re

from ...cparse import Role
from ._plan import PROBLEM_SIZE, STRING_SLOT, HarnessPlan, Kind, ReturnKind


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
static unsigned long long perfalign_magnitude(unsigned long long *s, int bits) {
    /* A magnitude below 2^bits: a quarter of them within 7 of the largest, the rest spread over every magnitude. */
    unsigned long long top = bits >= 64 ? ~0ULL : (1ULL << bits) - 1, below = perfalign_next(s) % 8, shift;
    if (perfalign_next(s) % 4 == 0) return below < top ? top - below : top;
    shift = perfalign_next(s) % (unsigned long long)(bits + 1);
    return shift >= 64 ? 0 : (perfalign_next(s) & top) >> shift;
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
static @T@ perfalign_draw_@SLUG@(unsigned long long *rng, int profile, int ranged, double lo, double hi, int kind,
                                 int bound) {
    if (ranged) {
        if (PF_ISF(@T@)) return (@T@)(lo + (hi - lo) * perfalign_unit(rng));
        return (@T@)((long long)lo + (long long)(perfalign_next(rng) % (unsigned long long)((long long)hi - (long long)lo + 1)));
    }
    if (profile == 1) {
        if (PF_ISF(@T@)) return (@T@)perfalign_wide(rng, sizeof(@T@) <= 4);
        if (bound > 0) {
            /* Magnitudes below 2^bound (the most the original takes without overflowing), within the type. */
            int bits = (int)(8 * sizeof(@T@)) - PF_SGN(@T@);
            unsigned long long m = perfalign_magnitude(rng, bound < bits ? bound : bits);
            if (PF_SGN(@T@) && (perfalign_next(rng) & 1)) return (@T@)-(long long)m;
            return (@T@)m;
        }
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
static void perfalign_qsort_@SLUG@(@T@ *p, size_t n) {
    /* Quicksort on the typed elements, where the radix sort does not apply (qsort calls a function per
       comparison): the median of three as the pivot, the smaller side first, insertion sort for short runs. The
       sorted profiles hold no NaN. */
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
            perfalign_qsort_@SLUG@(p, j + 1);
            p += j + 1;
            n -= j + 1;
        } else {
            perfalign_qsort_@SLUG@(p + j + 1, n - j - 1);
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
static unsigned long long perfalign_key_@SLUG@(@T@ v) {
    /* The element's bits as an unsigned number that orders as the elements do: the sign bit flipped for signed
       integers; for floating point, every bit of a negative number and the sign bit of a positive one. */
    unsigned long long k, top = 1ULL << (8 * sizeof(@T@) - 1);
    if (sizeof(@T@) == 8) { unsigned long long u; memcpy(&u, &v, sizeof u); k = u; }
    else if (sizeof(@T@) == 4) { unsigned int u; memcpy(&u, &v, sizeof u); k = u; }
    else if (sizeof(@T@) == 2) { unsigned short u; memcpy(&u, &v, sizeof u); k = u; }
    else { unsigned char u; memcpy(&u, &v, sizeof u); k = u; }
    if (PF_ISF(@T@)) return (k & top) ? ~k & (top | (top - 1)) : k | top;
    return PF_SGN(@T@) ? k ^ top : k;
}
static int perfalign_radix_@SLUG@(@T@ *p, size_t n) {
    /* Least-significant-byte-first radix sort on perfalign_key: a pass over the data per byte that differs, where
       a quicksort of an input of the problem size cost more than drawing it. 0 where it does not apply (a short
       array, an element of another size, no memory for the second buffer): the quicksort sorts those. */
    size_t size = sizeof(@T@), counts[8][256], b, j, d;
    @T@ *buf, *src, *dst;
    if (n < 1024 || (size != 1 && size != 2 && size != 4 && size != 8) || (PF_ISF(@T@) && size < 4)) return 0;
    buf = (@T@ *)malloc(n * size);
    if (!buf) return 0;
    memset(counts, 0, sizeof counts);
    for (j = 0; j < n; j++) {
        unsigned long long k = perfalign_key_@SLUG@(p[j]);
        for (b = 0; b < size; b++) counts[b][(k >> (8 * b)) & 255]++;
    }
    src = p;
    dst = buf;
    for (b = 0; b < size; b++) {
        size_t at = 0, c;
        if (counts[b][(perfalign_key_@SLUG@(p[0]) >> (8 * b)) & 255] == n) continue;  /* every element shares it */
        for (d = 0; d < 256; d++) { c = counts[b][d]; counts[b][d] = at; at += c; }
        for (j = 0; j < n; j++) {
            unsigned long long k = perfalign_key_@SLUG@(src[j]);
            dst[counts[b][(k >> (8 * b)) & 255]++] = src[j];
        }
        { @T@ *t = src; src = dst; dst = t; }
    }
    if (src != p) memcpy(p, src, n * size);
    free(buf);
    return 1;
}
static void perfalign_sort_@SLUG@(@T@ *p, size_t n) {
    if (!perfalign_radix_@SLUG@(p, n)) perfalign_qsort_@SLUG@(p, n);
}
static void perfalign_fill_@SLUG@(@T@ *p, size_t count, unsigned long long *rng, int variant, int ranged, double lo, double hi) {
    /* The low byte is the profile; above it, for special values, which kind (6: all kinds mixed); above that, for
       wide integers, a bound on their magnitudes in bits (0: the type's range). */
    int profile = variant & 0xff, bound = (variant >> 16) & 0xff;
    size_t j;
    if (profile == 7) { @T@ z = ranged ? (@T@)lo : (@T@)0; for (j = 0; j < count; j++) p[j] = z; return; }
    if (profile == 8 && PF_ISF(@T@) && !ranged) {
        /* Ill-conditioned, after Ogita, Rump and Oishi's generators: a sum far smaller than its terms. Variant 0:
           a large value first and its opposite (plus a small value) last, around small values; 1: pairs of a value
           of any magnitude and its opposite plus a small value; 2: a large value first, then many moderate values
           that cancel it, shuffled (a compensated sum keeps what a plain one loses at every one of them). */
        int top = sizeof(@T@) <= 4 ? 16 : 40, kind = ((variant >> 8) & 0xff) % 3;
        if (kind == 2 && count >= 2) {
            double big = (1.0 + perfalign_unit(rng)) * ldexp(1.0, top), s = 0.0, e = 0.0;
            p[0] = (@T@)big;
            for (j = 1; j + 1 < count; j++)
                p[j] = (@T@)(-(double)p[0] / (double)(count - 1) * (1.0 + (perfalign_unit(rng) - 0.5)));
            /* The last value brings the sum, taken without rounding error (two-sum), near zero. */
            for (j = 0; j + 1 < count; j++) {
                double t = s + (double)p[j], z = t - s;
                e += (s - (t - z)) + ((double)p[j] - z);
                s = t;
            }
            p[count - 1] = (@T@)(-(s + e) + (2.0 * perfalign_unit(rng) - 1.0));
            for (j = count - 1; j > 1; j--) {
                size_t k = 1 + (size_t)(perfalign_next(rng) % j);
                @T@ t = p[j];
                p[j] = p[k];
                p[k] = t;
            }
        } else if (kind == 0) {
            for (j = 0; j < count; j++)
                p[j] = (@T@)((2.0 * perfalign_unit(rng) - 1.0) * (double)(1 << (perfalign_next(rng) % 5)));
            if (count >= 2) {
                p[0] = (@T@)((1.0 + perfalign_unit(rng)) * ldexp(1.0, top));
                p[count - 1] = (@T@)(-(double)p[0] + (2.0 * perfalign_unit(rng) - 1.0));
            }
        } else {
            for (j = 0; j < count; j++)
                p[j] = j % 2 == 0 ? (@T@)((2.0 * perfalign_unit(rng) - 1.0) * ldexp(1.0, (int)(perfalign_next(rng) % (top + 1))))
                                  : (@T@)(-(double)p[j - 1] + (2.0 * perfalign_unit(rng) - 1.0));
            /* Shuffled, so that no order of summation meets each pair side by side (a plain sum in order would). */
            for (j = count; j > 1; j--) {
                size_t k = (size_t)(perfalign_next(rng) % j);
                @T@ t = p[j - 1];
                p[j - 1] = p[k];
                p[k] = t;
            }
        }
        return;
    }
    if (profile == 5) { @T@ v = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6, 0); for (j = 0; j < count; j++) p[j] = v; return; }
    if (profile == 6) {
        @T@ v[3];
        v[0] = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6, 0);
        v[1] = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6, 0);
        v[2] = perfalign_draw_@SLUG@(rng, 0, ranged, lo, hi, 6, 0);
        for (j = 0; j < count; j++) p[j] = v[perfalign_next(rng) % 3];
        return;
    }
    {
        int kind = profile == 2 ? ((variant >> 8) & 0xff) % 7 : 6;
        for (j = 0; j < count; j++)
            p[j] = perfalign_draw_@SLUG@(rng, (profile == 1 || profile == 2) ? profile : 0, ranged, lo, hi, kind, bound);
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


def type_glue(plan: HarnessPlan) -> str:
    """The type glue of ``plan``'s function: the functions the worker asks about types, sizes and inputs."""
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
        "    long long v;",
        "    switch (profile) {",
        "    case 1: v = 0; break;",
        "    case 2: v = -(1 + (long long)(perfalign_next(rng) % 8)); break;",
        "    case 3: v = 1000 + (long long)(perfalign_next(rng) % 100000); break;",
        "    default: v = 1 + (long long)(perfalign_next(rng) % 8); break;",
        "    }",
        "    return v < lens[i] ? lens[i] : v; /* a scalar's slot: the smallest value it may take */",
        "}",
        f"{ext}double perfalign_real_value(int i, const long long *lens, unsigned long long *rng, int profile) {{",
        f"    {locals_}",
        f"    switch (i) {{ {' '.join(real_values)} default: break; }}",
        "    double v;",
        "    switch (profile) {",
        "    case 1: v = 0.0; break;",
        "    case 2: v = -(0.5 + perfalign_unit(rng)); break;",
        "    case 3: v = pow(10.0, 3.0 + 3.0 * perfalign_unit(rng)); break;",
        "    default: v = 0.5 + perfalign_unit(rng); break;",
        "    }",
        "    return v < (double)lens[i] ? (double)lens[i] : v;",
        "}",
    ])

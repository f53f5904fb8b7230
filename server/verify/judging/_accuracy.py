"""Hold a candidate to the original's accuracy on ill-conditioned inputs.

Plain arithmetic and a compensated sum agree on well-conditioned inputs;
where large values cancel they do not, and neither does a plain sum with its
own reassociation (four accumulators, an OpenMP reduction), which is an
honest rewrite. What tells them apart is the error against the true result,
so the original is also built at a higher precision (the *reference*): its
own text with ``double`` and ``float`` read as ``long double`` (11 more bits
than double, 40 more than float), behind a wrapper with the original's
signature that copies the floating arrays in and out. And once more in
*plain arithmetic*: reassociation allowed (which turns a compensation into
nothing, as algebra says it is) but not vectorized, so a plain original
computes exactly what it did.

On each ill-conditioned case both are measured against the reference. Where
the original is demonstrably more accurate than its plain arithmetic (its
error ``DEMONSTRABLY`` times smaller), a candidate must come within the
geometric middle of the two errors: a rewrite that drops the compensation is
`incorrect`. Where it is not (a plain sum), the case says nothing about
accuracy: an honest reassociation rounds differently there, which the
verdict says, and passes.

The reference is built for the functions whose interface it can wrap: plain
pointers to floating point with a size from the parameters, scalars, and a
number or nothing returned. For the others, ill-conditioned inputs are not
generated.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..harness._plan import HarnessPlan, Kind, ReturnKind
from ..sandbox._worker import Interface
from ._compare import DEFAULT_RTOL, Results

DEMONSTRABLY = 16.0  # the original is more accurate than plain arithmetic when its error is this many times smaller
HP_PREFIX = "perfalign_hp_"
_FLOATING = {"float", "double"}
_EXPRESSION = re.compile(r"^[\w\s+*/()%-]*$")
_WORD = re.compile(r"[A-Za-z_]\w*")


def reference_source(plan: HarnessPlan, choice: list[int]) -> str | None:
    """The original at a higher precision behind its own signature, as a candidate's text; None where unsupported."""
    info = plan.function
    if plan.template_args or info.qualified_name != info.name or plan.return_kind not in (
            ReturnKind.VOID, ReturnKind.INTEGER, ReturnKind.FLOAT):
        return None
    names = {pp.param.name for pp in plan.params}
    arrays: list[tuple[str, str, bool]] = []  # (name, count expression, written)
    for pp in plan.params:
        if pp.kind == Kind.VALUE:
            if pp.container or pp.record or pp.single:
                return None
            continue
        if pp.kind not in (Kind.IN, Kind.OUT) or pp.container or pp.single or pp.record or pp.fields or pp.mixed \
                or pp.rows or pp.ctype not in _FLOATING or pp.index >= len(choice):
            return None
        count = pp.hypotheses[choice[pp.index]] if choice[pp.index] < len(pp.hypotheses) else ""
        count = count.replace("perfalign_max(", f"{HP_PREFIX}max(")
        if not count or not _EXPRESSION.match(count) or any(
                w not in names and w != f"{HP_PREFIX}max" for w in _WORD.findall(count)):
            return None
        arrays.append((pp.param.name, count, pp.kind == Kind.OUT))
    if not arrays:
        return None
    body = re.sub(rf"\b{re.escape(info.name)}\b", HP_PREFIX + info.name, info.text)
    lines = [
        "#include <stdlib.h>",
        "#include <tgmath.h>" if plan.language == "c" else "#include <cmath>",
        f"static long long {HP_PREFIX}max(long long a, long long b) {{ return a > b ? a : b; }}",
        "#define double long double",
        "#define float long double",
        "static " + body.lstrip() if plan.language == "c" and not body.lstrip().startswith("static") else body,
        "#undef float",
        "#undef double",
        info.signature + " {",
    ]
    for k, (name, count, _) in enumerate(arrays):
        lines += [
            f"    size_t {HP_PREFIX}n{k} = (size_t)({count});",
            f"    long double *{HP_PREFIX}b{k} = (long double *)malloc(({HP_PREFIX}n{k} ? {HP_PREFIX}n{k} : 1) * "
            "sizeof(long double));",
            f"    for (size_t k = 0; k < {HP_PREFIX}n{k}; k++) {HP_PREFIX}b{k}[k] = {name}[k];",
        ]
    by_name = {name: k for k, (name, _, _) in enumerate(arrays)}
    args = ", ".join(f"{HP_PREFIX}b{by_name[pp.param.name]}" if pp.param.name in by_name else pp.param.name
                     for pp in plan.params)
    call = f"{HP_PREFIX}{info.name}({args})"
    returns = plan.return_kind is not ReturnKind.VOID
    lines.append(f"    long double {HP_PREFIX}r = (long double)({call});" if returns else f"    {call};")
    for k, (name, _, written) in enumerate(arrays):
        if written:
            lines.append(f"    for (size_t k = 0; k < {HP_PREFIX}n{k}; k++) {name}[k] = {HP_PREFIX}b{k}[k];")
        lines.append(f"    free({HP_PREFIX}b{k});")
    if returns:
        lines.append(f"    return {HP_PREFIX}r;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def plain_flags(compiler: str) -> list[str]:
    """Flags that let the compiler reassociate floating point (which removes a compensation as algebra says it
    is zero), without vectorizing: the original's own computation in plain arithmetic, in its own order."""
    unvectorized = ["-fno-vectorize", "-fno-slp-vectorize"] if "clang" in Path(compiler).name else ["-fno-tree-vectorize"]
    return ["-fassociative-math", "-fno-signed-zeros", "-fno-trapping-math", *unvectorized]


@dataclass(frozen=True)
class Level:
    """On one ill-conditioned case: the errors of the original and of its plain-arithmetic build against the
    reference (shares of the largest magnitude), and the error a candidate is allowed there.

    ``allowed`` is None where the original is not demonstrably more accurate than plain arithmetic: it is then
    no more accurate than a reassociation of itself, and a candidate's error there is not held against it.
    """

    original: float
    plain: float
    allowed: float | None
    # The original's results are infinite or NaN where the reference's are not (it overflows where long double
    # does not): those are the results to match, so the case is compared the ordinary way.
    ordinary: bool = False


def level(original: float, plain: float, rtol: float) -> Level:
    """Where the original is at least ``DEMONSTRABLY`` times as accurate as its plain arithmetic (and that is
    beyond the tolerance), a candidate must come within the geometric middle of the two: a compensation kept
    passes, one dropped does not."""
    if plain > rtol and original * DEMONSTRABLY <= plain:
        return Level(original, plain, max(rtol, math.sqrt(max(original, 0.0) * plain)))
    return Level(original, plain, None)


def tolerance(rtol: float | None, results: Results) -> float:
    """The ordinary tolerance of these results' floating point: the stated one, or the type's default."""
    if rtol is not None:
        return rtol
    floats = [a for a in [*results.arrays.values(), results.returned] if a is not None and a.dtype.kind == "f"]
    return min((DEFAULT_RTOL.get(a.dtype.itemsize, 1e-6) for a in floats), default=1e-6)


def output_error(iface: Interface, got: Results, reference: Results) -> float | None:
    """The largest error of ``got``'s floating-point outputs against ``reference``'s, each as a share of the
    reference output's largest magnitude; None when there is none to measure or the two are not finite alike."""
    pairs = [(got.arrays.get(i), reference.arrays.get(i)) for i, p in enumerate(iface.params)
             if p.kind not in (Kind.VALUE, Kind.IN, Kind.VEC_IN)]
    pairs.append((got.returned, reference.returned))
    worst: float | None = None
    for y, r in pairs:
        if y is None or r is None or r.dtype.kind != "f" or y.dtype.kind != "f" or y.shape != r.shape:
            continue
        yy, rr = (a.astype(np.float64).ravel() for a in (y, r))
        finite = np.isfinite(rr)
        if not np.array_equal(finite, np.isfinite(yy)):
            return None
        if not finite.any():
            continue
        scale = float(np.abs(rr[finite]).max()) or 1.0
        with np.errstate(over="ignore", invalid="ignore"):
            err = float(np.abs(yy[finite] - rr[finite]).max()) / scale
        worst = err if worst is None else max(worst, err)
    return worst

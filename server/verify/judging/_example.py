"""A failing call written out: the inputs of a small case, and what each side left behind.

A one-line mismatch ("'y'[1] is nan, the original gives -0.357 (n=2, special
inputs, seed …)") tells a person where to look; a model asked to repair its
rewrite is helped more by the call itself, as a unit test would show it:

    call: moving_average(x, y, n) with x = {-inf, -1}, y = {0.5, 0.25} on entry, n = 2
    original: y = {-inf, -0.5}
    rewrite:  y = {nan, -0.5}

Only cases whose arrays are all small are written out, so the text stays
short; arrays of rows, lists of strings and records are not.
"""
from __future__ import annotations

import re

import numpy as np

from ...cparse import Role, is_float_type
from ..harness._cases import Case
from ..harness._plan import HarnessPlan, Kind, ReturnKind
from ..sandbox._worker import Interface
from ._compare import Results, same_bytes

EXAMPLE_ELEMENTS = 16  # the most elements of any one array in a call written out
EXAMPLE_CHARS = 900  # the longest text written out; a longer call is left out


def failing_call(plan: HarnessPlan, iface: Interface, case: Case, inputs: Results, scalars: list[tuple[int, float]],
                 expected: Results, got: Results, threads: int = 0) -> str:
    """The call with its inputs, and the outputs that differ, on both sides; "" when it cannot be written short.

    ``inputs`` are the buffers as the case's setup leaves them (before the call), ``scalars`` the values the
    setup drew for each parameter (an integer and a real each), ``expected`` and ``got`` the original's and the
    candidate's results.
    """
    if not _writable(plan, iface, inputs, expected, got) or len(scalars) < len(iface.params):
        return ""
    names = [pp.param.name for pp in plan.params]
    given: list[str] = []
    for i, (pp, p) in enumerate(zip(plan.params, iface.params)):
        if p.kind == Kind.VALUE:
            given.append(f"{names[i]} = {_scalar(pp.ctype, *scalars[i])}")
        elif p.kind != Kind.REF:
            if case.alias is not None and i == case.alias[1]:
                given.append(f"{names[i]} = {names[case.alias[0]]} (the same buffer)")
            else:
                on_entry = "" if p.kind in (Kind.IN, Kind.VEC_IN) else " on entry"
                given.append(f"{names[i]} = {_array(inputs.arrays[i], pp.param.role is Role.STRING)}{on_entry}")
    original, rewrite = [], []
    for i, p in enumerate(iface.params):
        if p.kind == Kind.VALUE or (p.kind in (Kind.IN, Kind.VEC_IN) and case.alias is not None and i in case.alias):
            continue  # an input shared with an output is shown as that output
        x, y = expected.arrays[i], got.arrays[i]
        if not same_bytes(x, y):
            string = plan.params[i].param.role is Role.STRING
            original.append(f"{names[i]} = {_output(x, p.kind, string)}")
            rewrite.append(f"{names[i]} = {_output(y, p.kind, string)}")
    original_returns = rewrite_returns = ""
    if expected.returned is not None and got.returned is not None and not same_bytes(expected.returned, got.returned):
        vector = iface.return_kind is ReturnKind.VECTOR
        original_returns = f"returns {_array(expected.returned) if vector else _number(expected.returned[0])}"
        rewrite_returns = f"returns {_array(got.returned) if vector else _number(got.returned[0])}"
    if not original and not original_returns:
        return ""
    at = f" at {threads} thread{'s' if threads != 1 else ''}" if threads else ""
    text = "\n".join([
        f"call{at}: {plan.function.name}({', '.join(names)})" + (f" with {', '.join(given)}" if given else ""),
        "original: " + "; ".join(filter(None, [", ".join(original), original_returns])),
        "rewrite:  " + "; ".join(filter(None, [", ".join(rewrite), rewrite_returns])),
    ])
    return text if len(text) <= EXAMPLE_CHARS else ""


def _writable(plan: HarnessPlan, iface: Interface, *results: Results) -> bool:
    """Whether every array of the call is a short, flat list of numbers (no rows, strings lists or records)."""
    if iface.return_fields or plan.return_record:
        return False
    for i, (pp, p) in enumerate(zip(plan.params, iface.params)):
        if p.kind == Kind.VALUE:
            continue
        if pp.container in {"rows", "nested", "strings"} or pp.fields or pp.mixed or p.fields:
            return False
        if any(i not in r.arrays or r.arrays[i].dtype.names is not None or r.arrays[i].size > EXAMPLE_ELEMENTS
               for r in results):
            return False
    return all(r.returned is None or r.returned.size <= EXAMPLE_ELEMENTS for r in results)


def _scalar(ctype: str, integer: int, real: float) -> str:
    """A scalar parameter's value as the glue passes it: the drawn real for a floating type, else the integer."""
    if not is_float_type(ctype):
        return str(integer)
    return _number(np.float32(real) if re.search(r"\bfloat\b", ctype) else np.float64(real))


def _output(values: np.ndarray, kind: Kind, string: bool) -> str:
    """An output as the function sees it: a ``T&`` output's one number, else the array."""
    return _number(values[0]) if kind == Kind.REF and values.size == 1 else _array(values, string)


def _array(values: np.ndarray, string: bool = False) -> str:
    if string:
        raw = values.tobytes().split(b"\0", 1)[0]
        return '"' + "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else f"\\x{b:02x}" for b in raw) + '"'
    if values.size == 1 and values.ndim == 0:
        return _number(values[()])
    return "{" + ", ".join(_number(v) for v in values) + "}"


def _number(value: np.generic) -> str:
    """The shortest text that reads back as the same number of its type (``0.1``, ``-inf``, ``nan``, ``42``)."""
    if isinstance(value, np.floating):
        return str(value)
    return str(int(value))

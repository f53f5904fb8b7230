"""Compare what two workers computed, read straight from their memory.

After a call, each array output (and each const input, which must be left
unchanged) is either in place in the worker's shared file or was copied
into its dump area; the return value came back as raw bytes. :func:`results`
reads one worker's results as numpy arrays (with the element types the
original's glue reported), :func:`first_difference` compares two of them:
integers exactly, floating point within a tolerance relative to the largest
magnitude in the original's array, NaN equal to NaN and infinities only to
themselves.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..harness._plan import Kind, ReturnKind
from ..sandbox._worker import Dumped, Interface, Layout, Leaf, Worker

DEFAULT_RTOL = {4: 1e-3}  # 4-byte floating point; every other type: 1e-6
# A double array whose elements differ from the original's by this much relative to themselves, at the median,
# was computed at a lower precision (single precision rounds at 6e-8); reordered sums differ far less. Likewise
# a long double array computed in double (which rounds at 1.1e-16, long double at 5.4e-20).
PRECISION_RTOL = {8: 1e-8, 16: 2e-18}
PRECISION_MIN_ELEMENTS = 16
# Elements compared at a time: the temporaries of a comparison stay small instead of several times the arrays.
CHUNK = 1 << 16


@dataclass
class Results:
    """One worker's results for one call: an array per compared parameter, and the return value."""

    arrays: dict[int, np.ndarray]  # parameter index -> elements (const inputs too)
    returned: np.ndarray | None  # the return value (one element) or a returned vector

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays.values()) + (0 if self.returned is None else self.returned.nbytes)

    def copy(self) -> "Results":
        return Results({i: a.copy() for i, a in self.arrays.items()},
                       None if self.returned is None else self.returned.copy())


def dtype_for(esize: int, is_float: bool, is_signed: bool) -> np.dtype:
    if is_float:
        return np.dtype({4: np.float32, 8: np.float64, 16: np.longdouble}.get(esize, np.float64))
    base = {1: "i1", 2: "i2", 4: "i4", 8: "i8"}.get(esize, "i8")
    return np.dtype(base if is_signed else base.replace("i", "u"))


def record_dtype(esize: int, leaves: tuple[Leaf, ...]) -> np.dtype:
    """A record of numbers of different types: one named field per number at its offset; padding is no field."""
    return np.dtype({"names": [f"f{k}" for k in range(len(leaves))],
                     "formats": [dtype_for(f.size, f.is_float, f.is_signed) for f in leaves],
                     "offsets": [f.offset for f in leaves], "itemsize": esize})


def leaf_columns(a: np.ndarray) -> list[np.ndarray]:
    """A record array's numbers, one contiguous array per field; a plain array is its own only column."""
    if a.dtype.names is None:
        return [a]
    return [np.ascontiguousarray(a[name]) for name in a.dtype.names]


def number_at(a: np.ndarray, flat: int) -> object:
    """Number ``flat`` of an array, counting a record array's fields one after the other within each record."""
    if a.dtype.names is None:
        return a[flat]
    where, k = divmod(flat, len(a.dtype.names))
    return a[where][a.dtype.names[k]]


def results(worker: Worker, iface: Interface, layout: Layout, counts: list[int], dumped: Dumped) -> Results:
    """Views of the worker's results in its shared memory (valid until its next command)."""
    memory = worker.memory()
    arrays: dict[int, np.ndarray] = {}
    for i, p in enumerate(iface.params):
        if p.kind == Kind.VALUE:
            continue
        dtype = record_dtype(p.esize, p.fields) if p.fields else dtype_for(p.esize, p.is_float, p.is_signed)
        count, offset = dumped.views[i]
        if count < 0:
            count = counts[i]
            offset = layout.data_offset(i, count * p.esize)
        arrays[i] = np.frombuffer(memory, dtype=dtype, count=count, offset=offset)
    returned: np.ndarray | None = None
    if iface.return_kind is ReturnKind.VECTOR:
        count, offset = dumped.returned
        dtype = (record_dtype(iface.return_esize, iface.return_fields) if iface.return_fields
                 else dtype_for(iface.return_esize, iface.return_float, iface.return_signed))
        returned = np.frombuffer(memory, dtype=dtype, count=max(count, 0), offset=offset) if count > 0 else np.zeros(0, dtype)
    elif iface.return_kind is not ReturnKind.VOID:
        dtype = dtype_for(iface.return_esize, iface.return_float, iface.return_signed)
        returned = np.frombuffer(dumped.return_bytes[: iface.return_esize].ljust(dtype.itemsize, b"\0"), dtype=dtype, count=1)
    return Results(arrays, returned)


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays hold the same bytes (compared as words, without copying them); records field by field."""
    if a.shape != b.shape or a.dtype.itemsize != b.dtype.itemsize:
        return False
    if a.dtype.names is not None:
        return a.dtype == b.dtype and all(same_bytes(x, y) for x, y in zip(leaf_columns(a), leaf_columns(b)))
    if a.size == 0:
        return True
    size = a.dtype.itemsize
    word = np.dtype({1: "u1", 2: "u2", 4: "u4"}.get(size, "u8")) if size in (1, 2, 4) or size % 8 == 0 else np.dtype("u1")
    return bool(np.array_equal(a.view(word), b.view(word)))


def first_difference(expected: np.ndarray, got: np.ndarray, rtol: float | None, *, special: bool = False) -> int | None:
    """The index of the first element where ``got`` differs from ``expected``, or None.

    Floating point: ``|x - y| <= rtol * (largest finite |x| in the array)``;
    ``rtol`` None picks 1e-3 for 4-byte types and 1e-6 otherwise. NaN equals
    NaN and an infinity only itself; with ``special`` (the inputs held NaN or
    infinities), a NaN also equals an infinity, as invalid arithmetic in one
    order of evaluation is an overflow in another.
    """
    if expected.shape != got.shape:
        return 0
    if expected.size == 0 or same_bytes(expected, got):
        return None
    if expected.dtype.names is not None:
        # A record of numbers of different types: each field by its own rule (exact, or a tolerance relative to
        # that field's largest magnitude); the first record that differs, at its first field that does.
        columns = list(zip(leaf_columns(expected), leaf_columns(got)))
        found = [(bad, k) for k, (x, y) in enumerate(columns)
                 if (bad := first_difference(x, y, rtol, special=special)) is not None]
        if not found:
            return None
        where, k = min(found)
        return where * len(columns) + k
    if expected.dtype.kind != "f":
        bad = np.flatnonzero(expected != got)
        return int(bad[0]) if bad.size else None
    tol = rtol if rtol is not None else DEFAULT_RTOL.get(expected.dtype.itemsize, 1e-6)
    wide = _wide(expected)
    expected, got = expected.reshape(-1), got.reshape(-1)  # an index into the elements in order, as before
    scale = 0.0
    for start in range(0, expected.size, CHUNK):
        magnitude = np.abs(expected[start:start + CHUNK].astype(wide))
        magnitude = magnitude[np.isfinite(magnitude) & (magnitude < 1e300)]
        if magnitude.size:
            scale = max(scale, float(magnitude.max()))
    with np.errstate(invalid="ignore", over="ignore"):
        for start in range(0, expected.size, CHUNK):
            x, y = expected[start:start + CHUNK].astype(wide), got[start:start + CHUNK].astype(wide)
            same = (x == y) | (np.isnan(x) & np.isnan(y)) | (np.abs(x - y) <= tol * scale + 1e-300)
            if special:
                same |= (np.isnan(x) & ~np.isfinite(y)) | (~np.isfinite(x) & np.isnan(y))
            bad = np.flatnonzero(~same)
            if bad.size:
                return start + int(bad[0])
    if rtol is None:
        return _lower_precision(expected, got, PRECISION_RTOL.get(expected.dtype.itemsize))
    return None


def _wide(a: np.ndarray) -> type:
    """The type floating-point elements are compared in: long double for long doubles, double otherwise."""
    return np.longdouble if a.dtype.itemsize > 8 else np.float64


def lower_precision(expected: np.ndarray, got: np.ndarray) -> bool:
    """Whether ``got`` differs from ``expected`` only as a computation at a lower precision does (for messages)."""
    if expected.dtype.names is not None:
        return any(lower_precision(x, y) for x, y in zip(leaf_columns(expected), leaf_columns(got)))
    if expected.shape != got.shape or expected.dtype.kind != "f" or expected.size == 0:
        return False
    if first_difference(expected, got, DEFAULT_RTOL.get(expected.dtype.itemsize, 1e-6)) is not None:
        return False  # wrong beyond the tolerance, not only less precise
    return _lower_precision(expected, got, PRECISION_RTOL.get(expected.dtype.itemsize)) is not None


# The narrower precision a rewrite may compute in, and its largest finite value, by the original's element size.
NARROWER = {8: ("single precision", float(np.finfo(np.float32).max)),
            16: ("double precision", float(np.finfo(np.float64).max))}


def narrower_overflow(expected: object, got: object, itemsize: int) -> str | None:
    """The narrower precision whose range the original's finite value exceeds where the candidate's is infinite."""
    narrower = NARROWER.get(itemsize)
    if narrower is None:
        return None
    try:
        x, y = np.longdouble(expected), np.longdouble(got)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if np.isinf(y) and np.isfinite(x) and abs(x) > np.longdouble(narrower[1]):
        return narrower[0]
    return None


def _lower_precision(expected: np.ndarray, got: np.ndarray, limit: float | None) -> int | None:
    """The worst element of an array computed at a lower precision than the original's, or None.

    Each element within the tolerance of the array's largest magnitude is not
    enough: single precision rounds every element at about 6e-8 of itself,
    far inside 1e-6 of the largest. Where the original's elements are finite
    and non-zero, the median of their relative differences tells a reordered
    computation (about 1e-15) from one in single precision.

    The arrays are read a chunk at a time; the median is decided by counting
    the differences at most ``limit`` (and, when that count splits the two
    middle ones, by those two), as ``np.median`` would decide it.
    """
    if limit is None:
        return None
    wide = _wide(expected)
    expected, got = expected.reshape(-1), got.reshape(-1)
    usable_count = within = 0
    below, above = -np.inf, np.inf  # the largest difference within the limit, the smallest beyond it
    worst, worst_at = None, 0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for start in range(0, expected.size, CHUNK):
            x, y = expected[start:start + CHUNK].astype(wide), got[start:start + CHUNK].astype(wide)
            usable = np.isfinite(x) & np.isfinite(y) & (x != 0)
            rel = np.abs(x - y) / np.abs(x)
            rel[~usable] = 0.0
            kept = rel[usable]
            usable_count += kept.size
            inside = kept.astype(np.float64) <= limit  # the median is compared as a double
            small = kept[inside]
            within += small.size
            if small.size:
                below = max(below, small.max())
            if small.size < kept.size:
                above = min(above, kept[~inside].min())
            at = int(np.argmax(rel))
            if worst is None or rel[at] > worst:
                worst, worst_at = rel[at], start + at
    if usable_count < PRECISION_MIN_ELEMENTS:
        return None
    half = usable_count // 2
    if usable_count % 2:
        median_within = within >= half + 1
    elif within != half:
        median_within = within > half
    else:
        median_within = float(np.array([below, above], dtype=wide).mean()) <= limit
    return None if median_within else worst_at


def returned_difference(expected: np.ndarray, got: np.ndarray, rtol: float | None, *, special: bool = False) -> bool:
    """True when a returned scalar differs: floating point within ``rtol`` of the original's magnitude."""
    if same_bytes(expected, got):
        return False
    if expected.dtype.kind != "f":
        return True
    tol = rtol if rtol is not None else DEFAULT_RTOL.get(expected.dtype.itemsize, 1e-6)
    x, y = float(expected[0]), float(got[0])
    if np.isnan(x) and np.isnan(y):
        return False
    if special and (np.isnan(x) or np.isnan(y)) and not (np.isfinite(x) or np.isfinite(y)):
        return False
    if not (np.isfinite(x) and np.isfinite(y)):
        return x != y  # an infinity equals only itself (a tolerance relative to it would let any number pass)
    return not abs(x - y) <= tol * abs(x) + 1e-300

"""What a performance engineer looks for first in one function, found in its code (no compiler, no model).

Each finding names a kind (what a strategy answers), the line and one sentence
of evidence that quotes the code: ``the inner loop over `k` (line 12) reads
`m[k*cols + i]`: stride `cols```.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...cparse import node_text, walk
from ._loops import (
    Access,
    FunctionTree,
    Loop,
    accesses,
    assigned_names,
    calls,
    factors,
    identifiers,
    inside,
    is_literal,
    terms,
    writes,
)

# Functions whose result depends on their arguments alone: recomputing one with the same arguments is waste.
PURE = frozenset({
    "strlen", "sqrt", "sqrtf", "pow", "powf", "exp", "expf", "exp2", "log", "logf", "log2", "log10", "sin", "sinf",
    "cos", "cosf", "tan", "atan", "atan2", "hypot", "cbrt", "fabs", "fabsf", "abs", "labs", "floor", "ceil", "round",
    "std::sqrt", "std::pow", "std::exp", "std::log", "std::sin", "std::cos", "std::abs", "std::fabs", "std::hypot",
    "std::atan2", "std::floor", "std::ceil",
})
ALLOCATORS = frozenset({"malloc", "calloc", "realloc", "aligned_alloc", "strdup"})
NODE_CONTAINERS = ("std::list", "std::map", "std::set", "std::multimap", "std::multiset", "std::deque")
LINEAR_SEARCHES = frozenset({"std::find", "std::find_if", "std::count", "std::count_if"})


@dataclass(frozen=True)
class Finding:
    """One thing worth changing: its kind, the line, the evidence in one sentence."""

    kind: str
    line: int
    evidence: str
    clauses: tuple[str, ...] = field(default=())  # an OpenMP finding's clauses, e.g. ("reduction(+:sum)",)
    action: str = ""  # the change it calls for, in this function's names: "make the loop over `i` the outer one"
    header: str = ""  # the header of the loop it is about, as written


def serial_findings(tree: FunctionTree) -> list[Finding]:
    """Every finding of the kinds a single-core rewrite answers."""
    found: list[Finding] = []
    for loop in tree.all_loops():
        if loop.innermost:
            found += _strided(tree, loop)
            found += _memory_accumulator(tree, loop)
        found += _invariant_calls(tree, loop)
        found += _invariant_divisions(tree, loop)
        found += _allocations(tree, loop)
        found += _linear_searches(tree, loop)
        found += _quadratic(tree, loop)
    found += _pow_calls(tree)
    found += _node_containers(tree)
    return _distinct(found)


def _distinct(found: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    out = []
    for f in found:
        if (f.kind, f.evidence) not in seen:
            seen.add((f.kind, f.evidence))
            out.append(f)
    return out


def _where(loop: Loop) -> str:
    return f"{loop.name} (line {loop.line})"


# --- memory order --------------------------------------------------------------------------------------


def _strided(tree: FunctionTree, loop: Loop) -> list[Finding]:
    """An innermost loop whose variable steps an access by a whole row while an outer loop's steps it by one."""
    if loop.var is None:
        return []
    outer = {o.var for o in loop.enclosing() if o.var}
    if not outer:
        return []
    out = []
    for access in accesses(loop.body):
        found = _stride(access, loop.var, outer)
        if found is not None:
            stride, unit = found
            verb = "writes" if access.written else "reads"
            out.append(Finding("strided_inner_loop", tree.line_of(access.node),
                               f"the inner loop over `{loop.var}` (line {loop.line}) {verb} "
                               f"`{node_text(access.node)}`: stride `{stride}`",
                               action=f"make the loop over `{loop.var}` the outer loop and the loop over `{unit}` the "
                                      f"innermost one, so that `{node_text(access.node)}` is read in memory order; "
                                      f"a sum kept in a local variable across the loop over `{loop.var}` becomes one "
                                      f"partial sum per `{unit}` (an array element, set before the loops)",
                               header=loop.header))
    return out


def _stride(access: Access, var: str, outer: set[str]) -> tuple[str, str] | None:
    """(the stride ``var`` steps ``access`` by, the outer loop's variable that steps it by 1), when there is
    such a variable and the stride is not 1."""
    if len(access.indices) >= 2:
        last = identifiers(access.indices[-1])
        earlier = set().union(*(identifiers(i) for i in access.indices[:-1]))
        if var in earlier and var not in last and last & outer:
            return "a whole row", sorted(last & outer)[0]
        return None
    if len(access.indices) != 1:
        return None
    stride = unit = None
    for term in terms(access.indices[0]):
        names = identifiers(term)
        parts = factors(term)
        if node_text(term) in outer:
            unit = node_text(term)
        if var in names and len(parts) >= 2:
            others = [p for p in parts if var not in identifiers(p)]
            if others and not all(is_literal(p) for p in others):
                stride = " * ".join(node_text(p) for p in others)
    return (stride, unit) if stride is not None and unit is not None else None


# --- invariant work ------------------------------------------------------------------------------------


def _invariant(node: object, loop: Loop, changing: set[str]) -> bool:
    names = identifiers(node)
    return bool(names) and not names & changing and loop.var not in names


def _changing(loop: Loop) -> set[str]:
    """Names that may change from one iteration to the next: written in the loop, or its variable."""
    names = assigned_names(loop.node)
    if loop.var:
        names.add(loop.var)
    return names


def _invariant_calls(tree: FunctionTree, loop: Loop) -> list[Finding]:
    """A call of a pure function with the same arguments on every iteration (the loop's condition included)."""
    changing = _changing(loop)
    nested = [c.node for c in loop.children]
    out = []
    for call, name, args in calls(loop.node):
        if name not in PURE or not args or any(inside(call, n) for n in nested):
            continue
        if all(_invariant(a, loop, changing) or is_literal(a) for a in args) and any(identifiers(a) for a in args):
            out.append(Finding("invariant_call", tree.line_of(call),
                               f"`{node_text(call)}` is computed again on every iteration of {_where(loop)}, "
                               f"with the same arguments",
                               action=f"compute `{node_text(call)}` once, into a local variable before {loop.name}, "
                                      f"and use that variable in the loop", header=loop.header))
    return out


def _memory_accumulator(tree: FunctionTree, loop: Loop) -> list[Finding]:
    """``y[i] += ...`` in a loop over another variable: the sum goes through memory on every iteration."""
    changing = _changing(loop)
    out = []
    for w in writes(loop.body):
        if w.op not in {"+=", "-=", "*=", "|=", "&=", "^="} or w.target is None \
                or w.target.type != "subscript_expression":
            continue
        if _invariant(w.target, loop, changing - {w.name}):
            out.append(Finding("memory_accumulator", tree.line_of(w.node),
                               f"`{node_text(w.node)}` adds into `{node_text(w.target)}` in memory on every "
                               f"iteration of {_where(loop)}; a local variable would hold it in a register",
                               action=f"start a local variable at `{node_text(w.target)}`'s value before {loop.name}, "
                                      f"update the local in the loop, and store it into `{node_text(w.target)}` once "
                                      f"after the loop", header=loop.header))
    return out


def _invariant_divisions(tree: FunctionTree, loop: Loop) -> list[Finding]:
    """Division or modulo by a value the innermost loop does not change (and that is no constant)."""
    if not loop.innermost:
        return []
    changing = _changing(loop)
    out = []
    for n in walk(loop.body):
        if n.type != "binary_expression":
            continue
        op = next((node_text(c) for c in n.children if not c.is_named), "")
        right = n.child_by_field_name("right")
        if op in {"/", "%"} and right is not None and not is_literal(right) and _invariant(right, loop, changing):
            what = "divides by" if op == "/" else "takes the remainder by"
            out.append(Finding("invariant_division", tree.line_of(n),
                               f"`{node_text(n)}` {what} `{node_text(right)}`, which {_where(loop)} does not "
                               f"change, on every iteration",
                               action=f"compute what depends only on `{node_text(right)}` once before {loop.name} "
                                      f"(for floating point, its reciprocal, then multiply) and keep the loop free of "
                                      f"`{op}`", header=loop.header))
    return out


def _pow_calls(tree: FunctionTree) -> list[Finding]:
    """``pow(x, 2)``, ``pow(x, 0.5)``: a multiplication or a square root does it."""
    out = []
    for call, name, args in calls(tree.root):
        if name.removeprefix("std::") in {"pow", "powf"} and len(args) == 2 and args[1].type == "number_literal":
            exponent = node_text(args[1]).rstrip("fFlL")
            if exponent in {"2", "2.0", "3", "3.0", "4", "4.0", "0.5", "-1", "-1.0"}:
                out.append(Finding("pow_call", tree.line_of(call),
                                   f"`{node_text(call)}` calls the general power function for a small constant "
                                   f"exponent",
                                   action=f"write `{node_text(call)}` with multiplications (or `sqrt` for 0.5) of a "
                                          f"local variable holding `{node_text(args[0])}`"))
    return out


# --- algorithms and containers -------------------------------------------------------------------------


def _quadratic(tree: FunctionTree, loop: Loop) -> list[Finding]:
    """A loop inside a loop that reads the same array at both loops' variables: every pair is visited."""
    if loop.var is None or loop.parent is None or loop.parent.var is None:
        return []
    outer = loop.parent.var
    by_name: dict[str, list[Access]] = {}
    for access in accesses(loop.body):
        by_name.setdefault(access.name, []).append(access)
    out = []
    for name, found in by_name.items():
        at_outer = [a for a in found if _indexed_by(a, outer) and not _indexed_by(a, loop.var)]
        at_inner = [a for a in found if _indexed_by(a, loop.var) and not _indexed_by(a, outer)]
        if at_outer and at_inner:
            out.append(Finding("quadratic", loop.line,
                               f"{_where(loop)} inside the loop over `{outer}` reads `{node_text(at_outer[0].node)}`"
                               f" and `{node_text(at_inner[0].node)}`: every pair of elements is visited"))
    return out


def _indexed_by(access: Access, var: str) -> bool:
    return any(var in identifiers(i) for i in access.indices)


def _linear_searches(tree: FunctionTree, loop: Loop) -> list[Finding]:
    """``std::find``/``count`` (a linear search) called on every iteration of a loop."""
    nested = [c.node for c in loop.children]
    out = []
    for call, name, _args in calls(loop.body):
        if name in LINEAR_SEARCHES and not any(inside(call, n) for n in nested):
            out.append(Finding("linear_search", tree.line_of(call),
                               f"`{node_text(call)}` searches linearly on every iteration of {_where(loop)}"))
    return out


def _allocations(tree: FunctionTree, loop: Loop) -> list[Finding]:
    """Memory allocated (``malloc``, ``new``, a local ``std::vector`` or ``std::string``) on every iteration."""
    nested = [c.node for c in loop.children]
    out = []
    for n in walk(loop.body):
        if any(inside(n, c) for c in nested):
            continue
        text = ""
        if n.type == "call_expression":
            function = n.child_by_field_name("function")
            if function is not None and node_text(function) in ALLOCATORS:
                text = node_text(n)
        elif n.type == "new_expression":
            text = node_text(n)
        elif n.type == "declaration":
            kind = n.child_by_field_name("type")
            if kind is not None and any(t in node_text(kind) for t in ("vector", "std::string", "map", "set")):
                text = " ".join(node_text(n).split())
        if text:
            out.append(Finding("allocation_in_loop", tree.line_of(n),
                               f"`{text[:80]}` allocates on every iteration of {_where(loop)}"))
    return out


def _node_containers(tree: FunctionTree) -> list[Finding]:
    """A node-based container (``std::list``, ``std::map``, ``std::set``) built or walked in the function."""
    out = []
    for n in walk(tree.root):
        if n.type != "declaration":  # a parameter's type is the caller's
            continue
        kind = n.child_by_field_name("type")
        written = node_text(kind) if kind is not None else ""
        container = next((c for c in NODE_CONTAINERS if written.startswith(c + "<") or written == c), None)
        if container is not None:
            out.append(Finding("node_container", tree.line_of(n),
                               f"`{' '.join(node_text(n).split())[:80]}` is a `{container}`: one allocation per "
                               f"element and a pointer chase per step"))
    return out

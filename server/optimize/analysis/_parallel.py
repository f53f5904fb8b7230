"""Which loop of a function OpenMP can parallelize, and the clauses it needs, found in its code.

For each outermost counted loop (and, when that one cannot be parallelized
as it is, the loops directly inside it): its iterations are independent when
each writes only its own elements and every scalar it carries from one
iteration to the next is a reduction; temporaries written before they are
read are private. An update of an element the data chooses (``bins[x[i]]++``)
is a histogram; nested loops with fixed bounds can be collapsed; an inner
loop whose bound follows the outer variable makes the work uneven.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...cparse import FunctionInfo, node_text, walk
from ._findings import PURE, Finding
from ._loops import FunctionTree, Loop, Write, accesses, calls, factors, identifiers, inside, terms, writes

_REDUCING = {"+=": "+", "-=": "+", "*=": "*", "|=": "|", "&=": "&", "^=": "^", "++": "+", "--": "+"}
_MAX_MIN = {"max": "max", "fmax": "max", "fmaxf": "max", "std::max": "max",
            "min": "min", "fmin": "min", "fminf": "min", "std::min": "min"}
# Calls a parallel loop may make: pure functions, and reading a container's size or element.
_SAFE_METHODS = frozenset({"size", "length", "at", "data", "begin", "end", "empty"})


@dataclass
class _LoopReading:
    """What one candidate loop does across its iterations."""

    reductions: dict[str, str] = field(default_factory=dict)  # name -> operator
    private: set[str] = field(default_factory=set)
    histograms: list[tuple[str, str]] = field(default_factory=list)  # (array, the update as written)
    blockers: list[str] = field(default_factory=list)  # why the iterations are not independent
    scan: str = ""  # the array an iteration extends from the element before it (a prefix scan), when that is all


# Standard algorithms that walk a range in one thread, by what a parallel loop that replaces one combines.
_WALKS = {name: "each" for name in ("std::transform", "std::for_each")} | {
    name: "combine" for name in ("std::reduce", "std::accumulate", "std::count", "std::count_if", "std::inner_product",
                                 "std::transform_reduce", "std::min_element", "std::max_element")} | {
    name: "search" for name in ("std::find", "std::find_if", "std::any_of", "std::all_of", "std::none_of")} | {
    name: "scan" for name in ("std::partial_sum", "std::inclusive_scan", "std::exclusive_scan")}
_WALK_ACTIONS = {
    "each": "write `{call}` as a counted `for` loop over the indices that does the same to element `i`, and put "
            "`#pragma omp parallel for` on its own line right before that loop",
    "combine": "write `{call}` as a counted `for` loop over the indices that combines into a local scalar, and put "
               "`#pragma omp parallel for reduction(OP:that scalar)` right before it, OP being `+` for sums and counts, "
               "`min` or `max` for extremes, `^` for an exclusive or, `&&`/`||` for all/any",
    "search": "write `{call}` as a counted `for` loop over the indices with no early exit that records the answer in "
              "a local variable combined by a reduction (`reduction(||:found)` for whether, `reduction(min:first)` for "
              "the first index), with `#pragma omp parallel for` right before it",
}


def parallel_findings(tree: FunctionTree) -> list[Finding]:
    """The findings of the kinds a parallel rewrite answers."""
    found: list[Finding] = _algorithm_walks(tree)
    for loop in tree.loops:
        reading = _candidate(tree, loop)
        if reading is None and loop.var is not None:
            continue
        if (reading is None or reading.blockers) and loop.children:
            for inner in loop.children:  # a time loop or a dependent outer loop: try the loops inside it
                found += _loop_findings(tree, inner, _candidate(tree, inner))
            continue
        found += _loop_findings(tree, loop, reading)
    return found


def _candidate(tree: FunctionTree, loop: Loop) -> _LoopReading | None:
    """How ``loop``'s iterations depend on each other; None for a loop OpenMP cannot split (not a counted loop or
    a range-based loop over a container)."""
    counted = loop.node.type == "for_statement" and loop.bound is not None
    if not (counted or loop.node.type == "for_range_loop") or loop.var is None:
        return None
    return _read(tree, loop)


def _algorithm_walks(tree: FunctionTree) -> list[Finding]:
    """Standard algorithms (``std::transform``, ``std::reduce``, ``std::find``…) that walk a range in one thread,
    outside any loop: each becomes a counted loop that OpenMP can split."""
    out = []
    for call, name, _args in calls(tree.root):
        family = _WALKS.get(name)
        if family is None or any(inside(call, loop.node) for loop in tree.all_loops()):
            continue
        text = " ".join(node_text(call).split())
        shown = text if len(text) <= 70 else text[:69] + "…"
        if family == "scan":
            out.append(Finding("scan", tree.line_of(call), f"`{shown}` is a prefix scan in one thread"))
            continue
        out.append(Finding("algorithm_walk", tree.line_of(call), f"`{shown}` walks the range in one thread",
                           action=_WALK_ACTIONS[family].format(call=shown)))
    return out


def _loop_findings(tree: FunctionTree, loop: Loop, reading: _LoopReading | None) -> list[Finding]:
    if reading is None:
        return []
    if reading.histograms:
        return [_histogram(tree, loop, reading, name, update) for name, update in reading.histograms[:1]]
    if reading.scan and len(reading.blockers) == 1:
        return [Finding("scan", loop.line, f"{loop.name} (line {loop.line}) computes each `{reading.scan}` element "
                                           f"from the one before: a prefix scan", header=loop.header)]
    if reading.blockers:
        return [Finding("dependence", loop.line, f"{loop.name} (line {loop.line}) {reading.blockers[0]}")]
    clauses = tuple([f"reduction({op}:{name})" for name, op in sorted(reading.reductions.items())]
                    + ([f"private({', '.join(sorted(reading.private))})"] if reading.private else []))
    said = [f"`{name}` is combined across iterations ({op})" for name, op in sorted(reading.reductions.items())]
    said += [f"`{name}` is written before it is read in each iteration" for name in sorted(reading.private)]
    evidence = f"the iterations of {loop.name} (line {loop.line}) are independent"
    evidence += (": " + "; ".join(said)) if said else ": each writes only its own elements"
    out = [Finding("parallel_loop", loop.line, evidence, clauses, header=loop.header)]
    inner = _perfectly_nested(loop)
    if inner is not None and not _mentions(inner, loop.var):
        out.append(Finding("collapsible", loop.line,
                           f"{loop.name} and the loop over `{inner.var}` (lines {loop.line}–{inner.line}) are "
                           f"perfectly nested, and the inner bound `{inner.bound}` does not depend on `{loop.var}`",
                           clauses, header=loop.header))
    uneven = next((c for c in _descendants(loop) if _mentions(c, loop.var) or c.node.type == "while_statement"), None)
    if uneven is not None:
        why = (f"runs to `{uneven.bound}`" if uneven.bound and loop.var in uneven.bound
               else f"starts at `{uneven.start}`" if uneven.start and loop.var in uneven.start
               else "runs a data-dependent number of times")
        out.append(Finding("uneven_work", uneven.line,
                           f"the inner {uneven.name.removeprefix('the ')} (line {uneven.line}) {why}: the "
                           f"iterations of `{loop.var}` do unequal work", clauses, header=loop.header))
    return out


def _histogram(tree: FunctionTree, loop: Loop, reading: _LoopReading, name: str, update: str) -> Finding:
    size = _length_of(tree.info, name)
    container = next((p.container for p in tree.info.params if p.name == name and p.container in {"vector", "array"}),
                     "")
    # OpenMP names only arrays and pointers in an array section: a container is reduced through its data pointer
    alias = f"{name}_data" if container else name
    clauses = tuple([f"reduction(+:{alias}[:{size or 'N'}])"]
                    + [f"reduction({op}:{n})" for n, op in sorted(reading.reductions.items())])
    action = (f"take `auto *{alias} = {name}.data();` before the loop and update `{alias}[...]` instead of "
              f"`{name}[...]` inside it" if container else "")
    return Finding("histogram", loop.line,
                   f"`{update}` in {loop.name} (line {loop.line}) adds into an element of `{name}` that the data "
                   f"chooses, so two iterations may update the same element", clauses, action=action,
                   header=loop.header)


def _length_of(info: FunctionInfo, name: str) -> str:
    """The element count of parameter ``name`` as C, when cparse knows it (``n``, ``bins.size()``)."""
    for param in info.params:
        if param.name == name:
            if param.container == "vector":
                return f"{name}.size()"
            if param.extent:
                return param.extent
            return param.size_expr or ""
    return ""


def _read(tree: FunctionTree, loop: Loop) -> _LoopReading:
    reading = _LoopReading()
    body = loop.body
    local = tree.locals_declared_in(body)
    var = loop.var
    assert var is not None
    for n in walk(body):
        if n.type in {"break_statement", "return_statement", "goto_statement"} and _exits(n, loop):
            reading.blockers.append(f"can leave early (`{' '.join(node_text(n).split())}`)")
    for _call, name, _args in calls(body):
        method = name.rsplit(".", 1)[-1] if "." in name or "->" in name else ""
        if name not in PURE and name not in _MAX_MIN and method not in _SAFE_METHODS and not _is_helper(tree, name):
            reading.blockers.append(f"calls `{name}`, which may have effects")
    written_arrays: dict[str, list[str]] = {}
    for w in writes(body):
        if w.name is None or w.name in local or w.name == var:
            continue
        target = w.target
        if target is not None and target.type == "subscript_expression":
            index = [a for a in accesses(target) if a.node == target]
            indices = index[0].indices if index else []
            if any(_steps_with(i, var) for i in indices):
                written_arrays.setdefault(w.name, []).extend(node_text(i) for i in indices)
            elif w.op in _REDUCING:
                reading.histograms.append((w.name, node_text(w.node)))
            else:
                reading.blockers.append(f"writes `{node_text(target)}`, the same element on every iteration")
        elif target is not None and target.type == "identifier":
            _scalar_write(reading, w, body)
        else:
            reading.blockers.append(f"writes through `{node_text(target) if target is not None else '?'}`")
    for name, indices in written_arrays.items():
        for access in accesses(body):
            if access.name == name and not access.written:
                shifted = [node_text(i) for i in access.indices if node_text(i) not in indices
                           and var in identifiers(i)]
                if shifted:
                    reading.blockers.append(f"reads `{node_text(access.node)}`, written by another iteration")
                    if shifted[0].replace(" ", "") == f"{var}-1":
                        reading.scan = name
                    break
    for name in list(reading.reductions):
        if name in reading.private:
            reading.private.discard(name)
    return reading


def _steps_with(index: Any, var: str) -> bool:
    """Whether ``var`` itself (not an element it selects, ``x[i]``) is a term or factor of the index: then
    different iterations write different elements."""
    return any(node_text(f) == var for t in terms(index) for f in factors(t))


def _scalar_write(reading: _LoopReading, w: Write, body: Any) -> None:
    name = w.name or ""
    if w.op in _REDUCING:
        reading.reductions[name] = _REDUCING[w.op]
        return
    value = w.value
    if value is not None:
        same = [t for t in terms(value) if node_text(t) == name]
        if same:
            reading.reductions[name] = "+"
            return
        if value.type == "call_expression":
            function = value.child_by_field_name("function")
            args = value.child_by_field_name("arguments")
            called = node_text(function) if function is not None else ""
            if called in _MAX_MIN and args is not None and name in {node_text(a) for a in args.named_children}:
                reading.reductions[name] = _MAX_MIN[called]
                return
        guarded = _guarding_comparison(w.node, name)
        if guarded:
            reading.reductions[name] = guarded
            return
    if _written_first(name, w.node, body):
        reading.private.add(name)
    else:
        reading.blockers.append(f"carries `{name}` from one iteration to the next")


def _guarding_comparison(assignment: Any, name: str) -> str:
    """``max`` for ``if (x > m) m = x;``, ``min`` for ``if (x < m) m = x;``, else ""."""
    node = assignment.parent
    while node is not None and node.type not in {"if_statement", "for_statement", "compound_statement"} \
            or (node is not None and node.type == "compound_statement" and node.parent is not None
                and node.parent.type == "if_statement"):
        node = node.parent
    if node is None or node.type != "if_statement":
        return ""
    condition = node.child_by_field_name("condition")
    while condition is not None and condition.type in {"condition_clause", "parenthesized_expression"} \
            and condition.named_children:
        condition = condition.named_children[0]
    if condition is None or condition.type != "binary_expression":
        return ""
    left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
    op = next((node_text(c) for c in condition.children if not c.is_named), "")
    if left is None or right is None or op not in {"<", ">", "<=", ">="}:
        return ""
    value = assignment.child_by_field_name("right")
    value_text = node_text(value) if value is not None else ""
    if node_text(right) == name and node_text(left) == value_text:
        return "max" if op in {">", ">="} else "min"
    if node_text(left) == name and node_text(right) == value_text:
        return "min" if op in {">", ">="} else "max"
    return ""


def _written_first(name: str, write: Any, body: Any) -> bool:
    """The first mention of ``name`` in the loop body is this write's target."""
    first = next((n for n in walk(body) if n.type == "identifier" and node_text(n) == name), None)
    target = write.child_by_field_name("left")
    return first is not None and target is not None and first.id == target.id


def _exits(node: Any, loop: Loop) -> bool:
    """A ``break`` that leaves ``loop`` itself (not a nested loop or switch), or any return/goto."""
    if node.type != "break_statement":
        return True
    parent = node.parent
    while parent is not None and parent.id != loop.node.id:
        if parent.type in {"for_statement", "while_statement", "do_statement", "for_range_loop", "switch_statement"}:
            return False
        parent = parent.parent
    return True


def _is_helper(tree: FunctionTree, name: str) -> bool:
    """A function the file defines above this one, or a lambda the function defines: its body is there to read,
    and the verifier judges what the rewrite makes of it; ``std::numeric_limits`` constants."""
    if name.startswith("std::numeric_limits"):
        return True
    return name.isidentifier() and (name in tree.info.context or name in tree.lambdas())


def _perfectly_nested(loop: Loop) -> Loop | None:
    """The loop that is the whole body of ``loop``, when it is a counted ``for``."""
    body = loop.body
    statements = [c for c in body.named_children if c.type != "comment"] if body.type == "compound_statement" \
        else [body]
    if len(statements) == 1 and len(loop.children) == 1 and statements[0].id == loop.children[0].node.id:
        inner = loop.children[0]
        return inner if inner.node.type == "for_statement" and inner.var and inner.bound else None
    return None


def _mentions(loop: Loop, var: str | None) -> bool:
    """Whether ``loop``'s bound or first value names ``var``."""
    return var is not None and any(var in re.findall(r"[A-Za-z_]\w*", text or "") for text in (loop.bound, loop.start))


def _descendants(loop: Loop) -> list[Loop]:
    out = []
    stack = list(loop.children)
    while stack:
        child = stack.pop()
        out.append(child)
        stack.extend(child.children)
    return out

"""Named strategies, chosen and ranked from a function's findings, and the paragraph that asks a sample for one.

Each strategy answers some kinds of finding, in one mode. A job's samples
are each asked for a different applicable strategy, best first, with the
evidence that makes it apply; one sample stays free (the plain prompt), so a
rewrite nobody foresaw can still be found. A strategy's ``key`` is what the
store, the exports and the reports record; its ``name`` is what the user reads
("loop interchange: 3.2× faster").
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ._findings import Finding

MAX_EVIDENCE = 3


@dataclass(frozen=True)
class Kind:
    """A strategy of the catalogue: what answers which findings, in which mode, and what a sample is asked."""

    key: str
    name: str
    mode: str  # "serial" | "openmp"
    answers: tuple[str, ...]  # finding kinds
    priority: float  # ranks strategies with the same evidence: the likelier big win first
    ask: str
    allows: str = ""  # the constructs an OpenMP strategy may use beyond the plain prompt's
    directive: str = ""  # an OpenMP strategy's directive for the loop; {clauses} are the finding's
    sections: bool = True  # whether the directive keeps an array-section reduction among the clauses


CATALOGUE: tuple[Kind, ...] = (
    Kind("algorithm", "a better algorithm", "serial", ("quadratic", "linear_search"), 5.0,
         "Replace the nested scan by an algorithm of lower complexity that computes exactly the same values: sort "
         "a copy once and scan it, use a hash table, keep a running (prefix) sum, or walk two indices together."),
    Kind("loop_interchange", "loop interchange", "serial", ("strided_inner_loop",), 4.5,
         "Reorder the loops (or walk the array in the order it is laid out) so that the innermost loop steps "
         "through memory one element at a time; keep each result's order of additions where it matters."),
    Kind("hoisting", "hoisting invariant work", "serial", ("invariant_call", "memory_accumulator"), 3.5,
         "Move the work that does not change inside a loop out of it: compute invariant calls and loads once "
         "before the loop, and accumulate into a local variable that is stored once after the loop."),
    Kind("container", "a faster container", "serial", ("node_container",), 3.5,
         "Use a data structure suited to the access pattern: a contiguous `std::vector` (reserved once) or "
         "`std::unordered_map` instead of a node-based container, with the same results in the same order."),
    Kind("allocation", "allocation out of the loop", "serial", ("allocation_in_loop",), 3.0,
         "Allocate once, before the loop, and reuse the memory on every iteration (clear it where the original "
         "starts from an empty or zeroed buffer)."),
    Kind("strength_reduction", "strength reduction", "serial", ("invariant_division", "pow_call"), 3.0,
         "Replace expensive operations in the hot loop by cheaper ones with the same results: `pow` with a small "
         "constant exponent by multiplications, a division or remainder by the same value on every iteration by "
         "one computed before the loop or an incremental update."),
    Kind("vectorization", "vectorization", "serial", ("missed_vectorization",), 2.5,
         "Restructure the loop the compiler left scalar so that it can vectorize it: a counted loop with "
         "unit-stride accesses, no early exit, call or branch in its body (a conditional expression instead), "
         "and sums in local variables."),
    Kind("array_reduction", "an array-section reduction", "openmp", ("histogram",), 5.0,
         "Parallelize the loop with `#pragma omp parallel for` and an array-section reduction over the updated "
         "array (OpenMP 4.5), e.g. `reduction(+: bins[:n])`: each thread adds into a private copy that OpenMP "
         "adds up at the end. A `std::vector` cannot be named in the clause: take `T *p = v.data();` before the "
         "loop, name `p[:v.size()]` and update through `p`.",
         "For this strategy you may put an array section in the reduction clause.",
         "#pragma omp parallel for{clauses}"),
    Kind("thread_bins", "per-thread bins", "openmp", ("histogram",), 4.8,
         "In a `#pragma omp parallel` region, give each thread its own zeroed local array of the same length, "
         "fill it in a `#pragma omp for` loop, then add it into the shared array inside `#pragma omp critical` "
         "after the loop.",
         "For this strategy you may use `#pragma omp parallel`, `#pragma omp for` and `#pragma omp critical`."),
    Kind("atomic_updates", "atomic updates", "openmp", ("histogram",), 3.0,
         "Parallelize the loop with `#pragma omp parallel for` and make each update of the shared array "
         "`#pragma omp atomic`.",
         "For this strategy you may use `#pragma omp atomic`.",
         "#pragma omp parallel for{clauses}", sections=False),
    Kind("explicit_loop", "an explicit parallel loop", "openmp", ("algorithm_walk",), 4.6,
         "A standard algorithm call runs in one thread: write it as the loop it stands for, over indices, so that "
         "OpenMP can share the iterations, computing exactly what the call computes."),
    Kind("parallel_scan", "a two-pass parallel scan", "openmp", ("scan",), 4.0,
         "Compute the prefix scan in two passes: in a `#pragma omp parallel` region each thread scans its own "
         "contiguous block (`#pragma omp for schedule(static)`) and records the block's total; after a "
         "`#pragma omp barrier`, each thread adds the totals of the blocks before its own (read in a fixed order) to "
         "its block's elements. Keep the order of additions within a block as the original's.",
         "For this strategy you may use `#pragma omp parallel`, `#pragma omp for`, `#pragma omp barrier`, "
         "`#pragma omp single`, `omp_get_thread_num()` and `omp_get_num_threads()`."),
    Kind("parallel_loop", "a parallel loop", "openmp", ("parallel_loop",), 4.5,
         "Put `#pragma omp parallel for` on the loop named below, with exactly the clauses it needs.",
         directive="#pragma omp parallel for{clauses}"),
    Kind("dynamic_schedule", "a dynamic schedule", "openmp", ("uneven_work",), 3.6,
         "Parallelize the outer loop with `#pragma omp parallel for schedule(dynamic, 16)` (or `schedule(guided)`), "
         "so that threads whose iterations finish early take more.",
         directive="#pragma omp parallel for schedule(dynamic, 16){clauses}"),
    Kind("collapse", "collapsed loops", "openmp", ("collapsible",), 3.4,
         "Parallelize the two loops together with `#pragma omp parallel for collapse(2)`, so that all their "
         "iterations are shared among the threads.",
         directive="#pragma omp parallel for collapse(2){clauses}"),
)
BY_KEY = {kind.key: kind for kind in CATALOGUE}


@dataclass(frozen=True)
class Strategy:
    """One applicable strategy for one function: the catalogue's kind and the findings that make it apply."""

    key: str
    name: str
    evidence: tuple[str, ...]
    clauses: tuple[str, ...] = field(default=())
    score: float = 0.0
    action: str = ""  # the change in this function's names: a directive before a loop, the loops to swap

    def paragraph(self) -> str:
        """What a sample asking for this strategy is told, between the function and the request for the reply."""
        kind = BY_KEY[self.key]
        lines = [f"Strategy for this rewrite: {self.name}."]
        lines += [f"Evidence: {e}." for e in self.evidence]
        if self.action:
            lines.append(f"Do this: {self.action}.")
        lines.append(kind.ask)
        if kind.allows:
            lines.append(kind.allows)
        lines.append("Apply this strategy: a reply that returns the function unchanged is of no use.")
        return "\n".join(lines)


def rank(findings: Iterable[Finding], mode: str) -> list[Strategy]:
    """The strategies of ``mode`` the findings support, best first: by priority, then by how much evidence."""
    findings = list(findings)
    out = []
    for kind in CATALOGUE:
        if kind.mode != mode:
            continue
        backing = [f for f in findings if f.kind in kind.answers]
        if not backing:
            continue
        clauses = next((f.clauses for f in backing if f.clauses), ())
        evidence = tuple(f.evidence for f in backing[:MAX_EVIDENCE])
        out.append(Strategy(kind.key, kind.name, evidence, clauses, kind.priority + 0.1 * min(len(backing), 5),
                            _action(kind, backing)))
    return sorted(out, key=lambda s: -s.score)


def _action(kind: Kind, backing: list[Finding]) -> str:
    """The change the strategy calls for in this function: its directive before the loop the first finding names
    (OpenMP), or the first finding's own action."""
    first = backing[0]
    if kind.directive and first.header:
        clauses = [c for c in first.clauses if kind.sections or "[" not in c]
        directive = kind.directive.format(clauses="".join(f" {c}" for c in clauses))
        extra = (", and `#pragma omp atomic` on its own line right before each update of the shared array"
                 if kind.key == "atomic_updates" else "")
        where = f"`{first.header}`"
        if first.header.startswith("for") and ";" not in first.header:  # a range-based loop: counted first
            where = f"that loop, after writing `{first.header}` as a counted loop over the indices"
        before = f"{first.action}, then " if first.action and kind.sections and "[" in "".join(first.clauses) else ""
        return f"{before}put `{directive}` on its own line right before {where}{extra}"
    if kind.mode == "openmp" and first.kind == "histogram":
        return ""  # per-thread bins: the ask says it all; the data pointer is the section reduction's
    return next((f.action for f in backing if f.action), "")


def plan_samples(strategies: list[Strategy], n: int) -> list[Strategy | None]:
    """One entry per sample: a different strategy each, best first, and the last sample free (None).

    A job of one sample stays free; with fewer strategies than samples, the rest are free too.
    """
    asked: list[Strategy | None] = list(strategies[: max(n - 1, 0)])
    return asked + [None] * (n - len(asked))

"""Realistic logged sessions for the store tests (imported by the other store tests)."""
from __future__ import annotations

from perfalign.server.records import CandidateRecord, RequestRecord
from perfalign.server.store import CandidateStore
from perfalign.server.verdict import Status, Verdict

ROW_SUMS = """void row_sums(const double *a, double *out, int n, int m) {
    for (int i = 0; i < n; i++) {
        out[i] = 0.0;
        for (int j = 0; j < m; j++)
            out[i] += a[i * m + j];
    }
}"""

ROW_SUMS_FAST = """void row_sums(const double *a, double *out, int n, int m) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        const double *row = a + (long)i * m;
        for (int j = 0; j < m; j++)
            s += row[j];
        out[i] = s;
    }
}"""

ROW_SUMS_FAST2 = ROW_SUMS_FAST.replace("double s = 0.0;", "double s = 0.0; /* accumulate */")
ROW_SUMS_WRONG = ROW_SUMS_FAST.replace("j < m", "j < m - 1")
ROW_SUMS_BROKEN = ROW_SUMS_FAST.replace("double s", "dbl s")

DOT = """double dot(const double *x, const double *y, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}"""
DOT_OMP = """double dot(const double *x, const double *y, int n) {
    double s = 0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}"""
DOT_SLOW = """double dot(const double *x, const double *y, int n) {
    double s = 0;
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        #pragma omp critical
        s += x[i] * y[i];
    }
    return s;
}"""


def messages(code: str, mode: str = "serial") -> list[dict[str, str]]:
    task = "Parallelize this function with OpenMP" if mode == "openmp" else "Optimize this function"
    return [
        {"role": "system", "content": "You rewrite C functions to run faster. Keep the signature."},
        {"role": "user", "content": f"{task}:\n```c\n{code}\n```"},
    ]


def request(
    code: str = ROW_SUMS,
    function: str = "row_sums",
    mode: str = "serial",
    file_path: str = "src/kernels.c",
    workspace: str | None = "/home/user/proj",
) -> RequestRecord:
    return RequestRecord(
        file_path=file_path,
        function=function,
        mode=mode,
        language="c",
        original_code=code,
        context_code="#include <stddef.h>",
        compiler="gcc",
        flags=["-O2"] + (["-fopenmp"] if mode == "openmp" else []),
        threads=4 if mode == "openmp" else 1,
        workspace=workspace,
        prompt_version="v1",
        prompt_messages=messages(code, mode),
        source="lsp",
    )


def verdict(status: Status, speedup: float | None = None, half_width: float = 0.1, mode: str = "serial") -> Verdict:
    timed = speedup is not None
    return Verdict(
        status=status,
        detail="" if timed else f"{status.value}: see the log",
        speedup=speedup,
        ci95=(speedup - half_width, speedup + half_width) if timed else None,
        p_value=0.001 if timed else None,
        baseline_ms=10.0 if timed else None,
        candidate_ms=10.0 / speedup if timed else None,
        threads=4 if mode == "openmp" else 1,
        mode=mode,
        timings={"baseline": [10.0, 10.1, 9.9], "candidate": [10.0 / speedup] * 3} if timed else {},
    )


def candidate(code: str, v: Verdict, model: str = "qwen2.5-coder-1.5b", adapter: str | None = None) -> CandidateRecord:
    return CandidateRecord(
        model=model,
        code=code,
        verdict=v,
        raw_output=f"Here is a faster version:\n```c\n{code}\n```",
        adapter=adapter,
        prompt_version="v1",
        sampling={"temperature": 0.7, "top_p": 0.95},
    )


def populate(store: CandidateStore) -> dict[str, str]:
    """Two functions, serial and OpenMP, every kind of verdict, and user feedback. Returns the ids by name."""
    ids: dict[str, str] = {}
    r1 = ids["req_rows"] = store.record_request(request())
    ids["fast"] = store.record_candidate(r1, candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.8)))
    ids["fast2"] = store.record_candidate(r1, candidate(ROW_SUMS_FAST2, verdict(Status.FASTER, 1.75)))
    ids["wrong"] = store.record_candidate(r1, candidate(ROW_SUMS_WRONG, verdict(Status.INCORRECT)))
    ids["broken"] = store.record_candidate(r1, candidate(ROW_SUMS_BROKEN, verdict(Status.COMPILE_ERROR)))
    ids["same"] = store.record_candidate(r1, candidate(ROW_SUMS, verdict(Status.NOT_SIGNIFICANT, 1.01)))
    store.record_feedback(ids["fast"], "accepted")
    r2 = ids["req_dot"] = store.record_request(request(DOT, "dot", "openmp", "src/blas/dot.c"))
    ids["omp"] = store.record_candidate(r2, candidate(DOT_OMP, verdict(Status.FASTER, 3.2, mode="openmp"), adapter="perf-dpo"))
    ids["omp_slow"] = store.record_candidate(r2, candidate(DOT_SLOW, verdict(Status.SLOWER, 0.05, 0.01, mode="openmp"), adapter="perf-dpo"))
    store.record_feedback(ids["omp"], "rejected")
    ids["model"] = store.record_model("qwen2.5-coder-1.5b", "llama-cpp", "/models/q.gguf", "ab" * 32)
    return ids

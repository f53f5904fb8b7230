"""The analysis before sampling: each finding on a function that has it, none on one that does not; strategies ranked
from them, each sample asked for a different one; the compiler's remarks read, and their absence said once."""
from __future__ import annotations

from pathlib import Path

from perfalign.server.cparse import find_function
from perfalign.server.optimize import analyse, build_messages, plan_samples
from perfalign.server.optimize.analysis import parse_remarks
from perfalign.server.settings import Settings

SETTINGS = Settings()


def findings(source: str, name: str, mode: str = "serial", language: str = "c") -> list:
    info = find_function(source, language, name=name)
    return analyse(info, source, mode, SETTINGS, remarks=False).findings


def kinds(source: str, name: str, mode: str = "serial", language: str = "c") -> list[str]:
    return [f.kind for f in findings(source, name, mode, language)]


STRIDED = """
void col_sums(const double *m, double *out, int rows, int cols) {
    for (int j = 0; j < cols; j++) {
        double s = 0;
        for (int i = 0; i < rows; i++)
            s += m[i * cols + j];
        out[j] = s;
    }
}
"""
ROW_ORDER = """
void row_sums(const double *m, double *out, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        double s = 0;
        for (int j = 0; j < cols; j++)
            s += m[i * cols + j];
        out[i] = s;
    }
}
"""


def test_a_strided_inner_loop_is_found_with_its_stride_and_a_row_order_loop_is_not():
    found = [f for f in findings(STRIDED, "col_sums") if f.kind == "strided_inner_loop"]
    assert len(found) == 1
    assert "`m[i * cols + j]`" in found[0].evidence and "stride `cols`" in found[0].evidence
    assert found[0].line == 6
    assert "strided_inner_loop" not in kinds(ROW_ORDER, "row_sums")


def test_a_two_dimensional_array_walked_by_columns_is_strided():
    source = """
double total(double a[64][64], int n) {
    double s = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            s += a[i][j];
    return s;
}
"""
    found = [f for f in findings(source, "total") if f.kind == "strided_inner_loop"]
    assert found and "a whole row" in found[0].evidence


def test_an_invariant_call_in_a_loop_condition_is_found_and_a_varying_one_is_not():
    source = """
#include <string.h>
int count_upper(const char *s) {
    int c = 0;
    for (size_t i = 0; i < strlen(s); i++)
        if (s[i] >= 'A' && s[i] <= 'Z') c++;
    return c;
}
"""
    found = [f for f in findings(source, "count_upper") if f.kind == "invariant_call"]
    assert found and "`strlen(s)`" in found[0].evidence
    varying = """
#include <math.h>
void roots(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) y[i] = sqrt(x[i]);
}
"""
    assert "invariant_call" not in kinds(varying, "roots")


def test_a_sum_kept_in_memory_is_found_and_one_kept_in_a_local_is_not():
    source = """
void matvec(const double *a, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            y[i] += a[i * n + j] * x[j];
}
"""
    found = [f for f in findings(source, "matvec") if f.kind == "memory_accumulator"]
    assert found and "`y[i]`" in found[0].evidence
    assert "memory_accumulator" not in kinds(ROW_ORDER, "row_sums")


def test_division_by_an_invariant_and_pow_with_a_small_exponent_are_found():
    source = """
#include <math.h>
void scale(double *x, int n, double d) {
    for (int i = 0; i < n; i++)
        x[i] = pow(x[i], 2) / d;
}
"""
    found = kinds(source, "scale")
    assert "invariant_division" in found and "pow_call" in found
    constant = """
void halve(double *x, int n) {
    for (int i = 0; i < n; i++) x[i] = x[i] / 2.0;
}
"""
    assert "invariant_division" not in kinds(constant, "halve")


def test_a_quadratic_scan_of_every_pair_is_found_and_a_matrix_walk_is_not():
    source = """
int count_duplicates(const int *x, int n) {
    int d = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (x[i] == x[j]) d++;
    return d;
}
"""
    found = [f for f in findings(source, "count_duplicates") if f.kind == "quadratic"]
    assert found and "`x[i]`" in found[0].evidence and "`x[j]`" in found[0].evidence
    assert "quadratic" not in kinds(ROW_ORDER, "row_sums")


def test_allocation_in_a_loop_and_node_containers_are_found_in_cpp():
    source = """
#include <map>
#include <vector>
int distinct_runs(const std::vector<int> &x) {
    std::map<int, int> seen;
    int runs = 0;
    for (size_t i = 0; i < x.size(); i++) {
        std::vector<int> window(x.begin(), x.begin() + i);
        seen[x[i]]++;
        runs += (int)window.size();
    }
    return runs + (int)seen.size();
}
"""
    found = kinds(source, "distinct_runs", language="cpp")
    assert "allocation_in_loop" in found and "node_container" in found
    assert not {"allocation_in_loop", "node_container"} & set(kinds(ROW_ORDER, "row_sums"))


def test_a_linear_search_on_every_iteration_is_found():
    source = """
#include <algorithm>
#include <vector>
int common(const std::vector<int> &a, const std::vector<int> &b) {
    int c = 0;
    for (size_t i = 0; i < a.size(); i++)
        if (std::find(b.begin(), b.end(), a[i]) != b.end()) c++;
    return c;
}
"""
    assert "linear_search" in kinds(source, "common", language="cpp")


# --- OpenMP --------------------------------------------------------------------------------------------


def test_an_independent_loop_with_a_reduction_and_a_temporary_gets_its_clauses():
    source = """
double energy(const double *x, double *y, int n) {
    double total = 0;
    double t;
    for (int i = 0; i < n; i++) {
        t = x[i] * x[i];
        y[i] = t;
        total += t;
    }
    return total;
}
"""
    found = [f for f in findings(source, "energy", mode="openmp") if f.kind == "parallel_loop"]
    assert len(found) == 1
    assert "reduction(+:total)" in found[0].clauses and "private(t)" in found[0].clauses
    assert "loop over `i`" in found[0].evidence


def test_a_max_found_by_comparison_is_a_max_reduction():
    source = """
double largest(const double *x, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m) m = x[i];
    return m;
}
"""
    found = [f for f in findings(source, "largest", mode="openmp") if f.kind == "parallel_loop"]
    assert found and found[0].clauses == ("reduction(max:m)",)


def test_a_histogram_is_found_with_its_array_section_and_gets_the_three_histogram_strategies():
    source = """
void histogram(const int *x, int n, int *bins, int nbins) {
    for (int i = 0; i < n; i++)
        bins[x[i] % nbins]++;
}
"""
    info = find_function(source, "c", name="histogram")
    analysis = analyse(info, source, "openmp", SETTINGS, remarks=False)
    assert [f.kind for f in analysis.findings] == ["histogram"]
    assert analysis.findings[0].clauses[0].startswith("reduction(+:bins[:")
    assert [s.key for s in analysis.strategies] == ["array_reduction", "thread_bins", "atomic_updates"]
    paragraph = analysis.strategies[0].paragraph()
    assert "array section in the reduction clause" in paragraph and "`bins[x[i] % nbins]++`" in paragraph


def test_a_loop_carried_dependence_is_not_offered_as_a_parallel_loop():
    source = """
void decay(double *x, int n) {
    for (int i = 2; i < n; i++)
        x[i] = 0.5 * x[i - 2];
}
"""
    found = kinds(source, "decay", mode="openmp")
    assert "parallel_loop" not in found and "dependence" in found


def test_perfectly_nested_loops_collapse_and_a_triangle_is_uneven_work():
    rectangle = """
void add(const double *a, const double *b, double *c, int n, int m) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            c[i * m + j] = a[i * m + j] + b[i * m + j];
}
"""
    assert {"parallel_loop", "collapsible"} <= set(kinds(rectangle, "add", mode="openmp"))
    triangle = """
void lower(const double *a, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j <= i; j++) s += a[i * n + j];
        out[i] = s;
    }
}
"""
    found = kinds(triangle, "lower", mode="openmp")
    assert "uneven_work" in found and "collapsible" not in found


def test_a_loop_that_leaves_early_or_calls_an_unknown_function_is_not_parallel():
    source = """
int first_negative(const double *x, int n) {
    for (int i = 0; i < n; i++)
        if (x[i] < 0) return i;
    return -1;
}
"""
    assert "parallel_loop" not in kinds(source, "first_negative", mode="openmp")
    calls = """
#include <stdio.h>
void show(const double *x, int n) {
    for (int i = 0; i < n; i++) printf("%f\\n", x[i]);
}
"""
    assert "parallel_loop" not in kinds(calls, "show", mode="openmp")


# --- nothing found, the compiler, strategies and prompts -----------------------------------------------


def test_a_function_without_loops_has_no_finding_and_every_sample_stays_free():
    source = "int add(int a, int b) { return a + b; }\n"
    info = find_function(source, "c", name="add")
    for mode in ("serial", "openmp"):
        analysis = analyse(info, source, mode, SETTINGS)
        assert analysis.findings == [] and analysis.strategies == []
        assert "no strategy applies" in analysis.summary()
        assert plan_samples(analysis.strategies, 4) == [None, None, None, None]


def test_the_compilers_missed_vectorization_remarks_are_read_on_the_functions_lines():
    source = """
int unrelated(int a) { return a; }

double search(const double *x, int n, double v) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] == v) break;
        s += x[i];
    }
    return s;
}
"""
    info = find_function(source, "c", name="search")
    analysis = analyse(info, source, "serial", SETTINGS)
    remarks = [f for f in analysis.findings if f.kind == "missed_vectorization"]
    assert remarks and all(info.start_line + 1 <= f.line <= info.end_line + 1 for f in remarks)
    assert all(f.evidence.startswith("GCC left a loop scalar") for f in remarks)
    assert "vectorization" in [s.key for s in analysis.strategies]


def test_a_compiler_without_remarks_leaves_the_analysis_to_the_code_and_says_so_once(tmp_path: Path):
    fake = tmp_path / "mycc"
    fake.write_text("#!/bin/sh\necho 'My Compiler 1.0'\n")
    fake.chmod(0o755)
    info = find_function(STRIDED, "c", name="col_sums")
    analysis = analyse(info, STRIDED, "serial", Settings(cc=str(fake)))
    assert len(analysis.notes) == 1 and "analysis from the code alone" in analysis.notes[0]
    assert "loop_interchange" in [s.key for s in analysis.strategies]


def test_a_file_that_does_not_compile_gives_no_remarks_and_a_reason():
    source = STRIDED + "\nthis is not C;\n"
    info = find_function(source, "c", name="col_sums")
    analysis = analyse(info, source, "serial", SETTINGS)
    assert any("does not compile on its own" in n for n in analysis.notes)
    assert "loop_interchange" in [s.key for s in analysis.strategies]


def test_a_huge_or_malformed_remark_stream_is_read_without_error():
    lines = range(10, 20)
    junk = "\n".join(["<stdin>:12:5: missed: not vectorized: complicated access pattern."] * 50_000
                     + ["garbage ::: line", "<stdin>:x:y: missed:", "\x00\x01", "<stdin>:400:1: missed: elsewhere",
                        "header.h:12:1: missed: not vectorized: in a header"])
    found = parse_remarks(junk, lines, "gcc")
    assert len(found) == 1 and found[0].line == 12 and "complicated access pattern" in found[0].evidence


def test_strategies_are_ranked_and_each_sample_asks_for_a_different_one_with_the_last_free():
    source = """
#include <math.h>
void col_norms(const double *m, double *out, int rows, int cols, double scale) {
    for (int j = 0; j < cols; j++) {
        out[j] = 0;
        for (int i = 0; i < rows; i++)
            out[j] += pow(m[i * cols + j], 2) / scale;
    }
}
"""
    info = find_function(source, "c", name="col_norms")
    analysis = analyse(info, source, "serial", SETTINGS, remarks=False)
    assert [s.key for s in analysis.strategies] == ["loop_interchange", "hoisting", "strength_reduction"]
    plan = plan_samples(analysis.strategies, 4)
    assert [s.key if s else None for s in plan] == ["loop_interchange", "hoisting", "strength_reduction", None]
    prompts = [build_messages(info, "serial", SETTINGS, s)[-1]["content"] for s in plan]
    assert len(set(prompts)) == len(prompts)
    assert [s.key if s else None for s in plan_samples(analysis.strategies, 2)] == ["loop_interchange", None]
    assert "Strategy for this rewrite: loop interchange." in prompts[0]
    assert "stride `cols`" in prompts[0]
    assert "Strategy for this rewrite" not in prompts[-1]
    # the plain prompt up to its request for the reply is the prefix every sample's prompt shares, and the
    # request for the reply comes last in each
    head, _, ask = prompts[-1].rpartition("\n\n")
    assert ask.startswith("Reply with the complete rewritten `col_norms` function")
    assert all(p.startswith(head) and p.endswith(ask) for p in prompts)
    assert "Do this: make the loop over `i` the outer loop and the loop over `j` the innermost one" in prompts[0]
    assert plan_samples(analysis.strategies, 1) == [None]


def test_strategies_of_one_mode_are_never_offered_in_the_other():
    info = find_function(STRIDED, "c", name="col_sums")
    serial = {s.key for s in analyse(info, STRIDED, "serial", SETTINGS, remarks=False).strategies}
    parallel = {s.key for s in analyse(info, STRIDED, "openmp", SETTINGS, remarks=False).strategies}
    assert "loop_interchange" in serial and "loop_interchange" not in parallel
    assert "parallel_loop" in parallel and "parallel_loop" not in serial


def test_a_standard_algorithm_walk_is_offered_as_an_explicit_parallel_loop():
    source = """
#include <numeric>
#include <vector>
double average(std::vector<double> const& x) {
    return std::reduce(x.begin(), x.end(), 0.0) / (double) x.size();
}
"""
    info = find_function(source, "cpp", name="average")
    analysis = analyse(info, source, "openmp", SETTINGS, remarks=False)
    assert [s.key for s in analysis.strategies] == ["explicit_loop"]
    paragraph = analysis.strategies[0].paragraph()
    assert "`std::reduce(x.begin(), x.end(), 0.0)`" in paragraph and "reduction(OP:that scalar)" in paragraph


def test_a_range_based_loop_updating_chosen_bins_is_a_histogram_to_count_first():
    source = """
#include <array>
#include <vector>
struct Point { double x, y; };
void quadrants(std::vector<Point> const& points, std::array<size_t, 4> &bins) {
    for (auto const& p : points) {
        if (p.x >= 0) bins[0] += 1;
        else bins[1] += 1;
    }
}
"""
    info = find_function(source, "cpp", name="quadrants")
    analysis = analyse(info, source, "openmp", SETTINGS, remarks=False)
    assert analysis.strategies[0].key == "array_reduction"
    # a std::array is reduced through its data pointer: OpenMP names only arrays and pointers in a section
    assert "take `auto *bins_data = bins.data();` before the loop" in analysis.strategies[0].action
    assert "reduction(+:bins_data[:4])" in analysis.strategies[0].action
    assert "as a counted loop over the indices" in analysis.strategies[0].action


def test_a_lambda_the_function_defines_does_not_stop_a_parallel_loop_and_a_min_is_a_reduction():
    source = """
#include <cmath>
#include <limits>
#include <vector>
double closest(std::vector<double> const& x) {
    auto gap = [](double a, double b) { return std::abs(a - b); };
    double best = std::numeric_limits<double>::max();
    for (size_t i = 0; i < x.size(); i++)
        for (size_t j = i + 1; j < x.size(); j++)
            if (gap(x[i], x[j]) < best) best = gap(x[i], x[j]);
    return best;
}
"""
    found = [f for f in findings(source, "closest", mode="openmp", language="cpp") if f.kind == "parallel_loop"]
    assert found and found[0].clauses == ("reduction(min:best)",)


def test_a_prefix_sum_loop_is_offered_a_two_pass_scan():
    source = """
void prefix(double *x, int n) {
    for (int i = 1; i < n; i++)
        x[i] = x[i] + x[i - 1];
}
"""
    info = find_function(source, "c", name="prefix")
    keys = [s.key for s in analyse(info, source, "openmp", SETTINGS, remarks=False).strategies]
    assert keys == ["parallel_scan"]

"""Extraction of candidate code from model replies: real raw outputs and each repair on its own."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from perfalign.server import cparse
from perfalign.server.optimize._extract import dedupe_key, extract, normalize

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "fixtures" / "raw_outputs"

ROW_SUMS = (REPO / "examples" / "c" / "row_sums.c").read_text()
FAST_ROW_SUMS = """void row_sums(const double *a, double *sums, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        sums[i] = s;
    }
}"""


def _info(source: str = ROW_SUMS, name: str = "row_sums", language: str = "c") -> cparse.FunctionInfo:
    return cparse.find_function(source, language, name=name)


def _corpus() -> list[Path]:
    return sorted(CORPUS.glob("*/*.txt"))


def _example_for(raw: Path) -> tuple[str, str, str]:
    folder, name = raw.stem.split("-")[0], raw.stem.split("-")[1]
    source = next((REPO / "examples" / folder).glob(f"{name}.c*"))
    return source.read_text(), name, cparse.language_for(source)


def test_corpus_is_present() -> None:
    files = _corpus()
    assert len(files) >= 20, "tests/fixtures/raw_outputs holds the real model outputs"
    assert (CORPUS / "expected.json").is_file()


@pytest.mark.parametrize("raw", _corpus(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_real_outputs(raw: Path) -> None:
    """Every real reply gives a candidate that defines the function with its signature, or a reason."""
    expected = json.loads((CORPUS / "expected.json").read_text())
    source, name, language = _example_for(raw)
    info = _info(source, name, language)
    result = extract(raw.read_text(), info, original_source=source)
    key = f"{raw.parent.name}/{raw.name}"
    assert ("candidate" if result.ok else "none") == expected[key], result.reason
    if result.candidate is None:
        assert result.reason
        return
    cand = cparse.find_function(result.candidate.code, language, name=name)
    assert " ".join(cand.signature.split()) == " ".join(info.signature.split())
    assert normalize(result.candidate.function_code) != normalize(info.text)
    assert "```" not in result.candidate.code


def test_prose_around_the_code() -> None:
    raw = f"Sure! The loop order is bad.\n\n```c\n{FAST_ROW_SUMS}\n```\n\nThis walks memory contiguously."
    result = extract(raw, _info(), original_source=ROW_SUMS)
    assert result.candidate is not None
    assert normalize(result.candidate.function_code) == normalize(FAST_ROW_SUMS)
    assert result.candidate.includes == []


def test_original_then_rewrite_takes_the_rewrite() -> None:
    original = _info().text
    raw = f"Original:\n```c\n{original}\n```\nOptimized:\n```c\n{FAST_ROW_SUMS}\n```\n"
    result = extract(raw, _info(), original_source=ROW_SUMS)
    assert result.candidate is not None
    assert normalize(result.candidate.function_code) == normalize(FAST_ROW_SUMS)
    assert any("2 times" in note for note in result.candidate.notes)


def test_identical_to_the_original_is_not_a_suggestion() -> None:
    original = _info().text
    spaced = "/* rewritten */\n" + original.replace("    ", "        ").replace("\n", "\n\n")
    result = extract(f"```c\n{spaced}\n```", _info(), original_source=ROW_SUMS)
    assert result.candidate is None
    assert "identical" in result.reason


def test_no_code_at_all() -> None:
    assert "no C or C++ function" in extract("I am sorry, I cannot do that.", _info()).reason
    assert "returned nothing" in extract("   \n", _info()).reason
    wrong = "```c\nint helper(int x) { return x; }\n```"
    assert extract(wrong, _info()).candidate is None


def test_changed_name_is_renamed_back() -> None:
    raw = "```c\n" + FAST_ROW_SUMS.replace("row_sums(", "row_sums_optimized(") + "\n```"
    result = extract(raw, _info(), original_source=ROW_SUMS)
    assert result.candidate is not None
    assert "row_sums(" in result.candidate.function_code and "optimized" not in result.candidate.function_code
    assert any("renamed" in note for note in result.candidate.notes)


def test_pragma_above_the_function_moves_onto_its_loop() -> None:
    source = (REPO / "examples" / "c" / "saxpy.c").read_text()
    info = _info(source, "saxpy")
    raw = """```c
#include <omp.h>

#pragma omp parallel for
void saxpy(float a, const float *x, float *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None
    lines = [line.strip() for line in result.candidate.function_code.splitlines()]
    assert lines[1] == "#pragma omp parallel for" and lines[2].startswith("for")
    assert result.candidate.includes == []  # pragmas alone need no header
    cparse.find_function(result.candidate.code, "c", name="saxpy")


def test_missing_include_is_added() -> None:
    source = (REPO / "examples" / "c" / "count_in_range.c").read_text()
    info = _info(source, "count_in_range")
    raw = """```c
int count_in_range(const double *x, int n, double lo, double hi) {
    int count = 0;
    #pragma omp parallel for reduction(+:count) num_threads(omp_get_max_threads())
    for (int i = 0; i < n; i++)
        count += (x[i] >= lo) & (x[i] <= hi);
    return count;
}
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None
    assert result.candidate.includes == ["#include <omp.h>"]
    assert result.candidate.code.startswith("#include <omp.h>\n")


def test_helpers_the_file_has_are_dropped_and_new_ones_kept() -> None:
    source = (REPO / "tests" / "cases" / "helper" / "original.c").read_text()
    info = _info(source, "eval_all")
    raw = """```c
static const double coeffs[DEGREE + 1] = {1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125, 0.015625};

double poly(double x) { return 0.0; }

static inline double horner(double x) {
    double y = coeffs[DEGREE];
    for (int k = DEGREE - 1; k >= 0; k--)
        y = y * x + coeffs[k];
    return y;
}

void eval_all(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = horner(x[i]);
}

int main(void) { return 0; }
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None
    assert "horner" in result.candidate.code
    assert "double poly(" not in result.candidate.code and "main" not in result.candidate.code


def test_cpp_function_in_a_namespace() -> None:
    source = (REPO / "examples" / "cpp" / "count_unique.cpp").read_text()
    info = _info(source, "count_unique", "cpp")
    raw = """Use a hash set:
```cpp
#include <unordered_set>
#include <vector>

int count_unique(const std::vector<int> &v) {
    std::unordered_set<int> seen(v.begin(), v.end());
    return static_cast<int>(seen.size());
}
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None
    assert result.candidate.includes == ["#include <unordered_set>"]


def test_an_ordered_set_without_its_include_gets_it_and_compiles() -> None:
    source = (REPO / "examples" / "cpp" / "count_unique.cpp").read_text()
    info = _info(source, "count_unique", "cpp")
    raw = """```cpp
int count_unique(const std::vector<int> &v) {
    std::set<int> seen(v.begin(), v.end());
    return static_cast<int>(seen.size());
}
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None and result.candidate.includes == ["#include <set>"]
    program = source + "\n" + result.candidate.code.replace("count_unique", "count_unique_2")
    compiled = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-x", "c++", "-"], input=program, text=True,
                              capture_output=True, check=False)
    assert compiled.returncode == 0, compiled.stderr


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_every_header_the_extractor_adds_exists(language: str) -> None:
    from perfalign.server.optimize._extract import NEEDS

    compiler, flag = ("gcc", "c") if language == "c" else ("g++", "c++")
    program = "".join(f"{include}\n" for _, include in NEEDS[language])
    compiled = subprocess.run([compiler, "-fopenmp", "-fsyntax-only", "-x", flag, "-"], input=program, text=True,
                              capture_output=True, check=False)
    assert compiled.returncode == 0, compiled.stderr


def test_unterminated_fence_still_yields_the_code() -> None:
    raw = f"```c\n{FAST_ROW_SUMS}\n"
    result = extract(raw, _info(), original_source=ROW_SUMS)
    assert result.candidate is not None


def test_dedupe_ignores_comments_and_spacing() -> None:
    a = extract(f"```c\n{FAST_ROW_SUMS}\n```", _info(), original_source=ROW_SUMS).candidate
    b = extract(f"```c\n// fast\n{FAST_ROW_SUMS.replace('    ', '  ')}\n```", _info(), original_source=ROW_SUMS).candidate
    assert a is not None and b is not None
    assert dedupe_key(a) == dedupe_key(b)


def test_test_code_and_its_headers_are_dropped() -> None:
    source = (REPO / "examples" / "c" / "count_in_range.c").read_text()
    info = _info(source, "count_in_range")
    raw = """Here you go:
```c
#include <stdio.h>
#include <omp.h>

int count_in_range(const double *x, int n, double lo, double hi) {
    int count = 0;
    #pragma omp parallel for reduction(+:count)
    for (int i = 0; i < n; i++)
        if (x[i] >= lo && x[i] <= hi)
            count++;
    return count;
}

int main() {
    double x[] = {1.0, 2.0};
    printf("%d\\n", count_in_range(x, 2, 0.0, 1.5));
    return 0;
}
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None
    assert result.candidate.includes == []
    assert "main" not in result.candidate.code and "printf" not in result.candidate.code


def test_macros_the_rewrite_uses_come_along() -> None:
    raw = "```c\n#define BLOCK 64\n#define UNUSED 1\n\n" + FAST_ROW_SUMS.replace("j < n; j++)", "j < n; j++) /* BLOCK */").replace(
        "double s = 0.0;", "double s = 0.0 * BLOCK;") + "\n```"
    result = extract(raw, _info(), original_source=ROW_SUMS)
    assert result.candidate is not None
    assert "#define BLOCK 64" in result.candidate.code and "UNUSED" not in result.candidate.code
    assert result.candidate.replacement.startswith("#define BLOCK 64")
    cparse.find_function(result.candidate.code, "c", name="row_sums")


def _compiles_in(source: str, candidate_code: str, name: str, language: str) -> subprocess.CompletedProcess[str]:
    """The file with its function replaced by the candidate, as the verifier builds it, checked by the compiler."""
    info = _info(source, name, language)
    program = source.replace(info.text, candidate_code)
    compiler, flag = ("gcc", "c") if language == "c" else ("g++", "c++")
    return subprocess.run([compiler, "-fopenmp", "-fsyntax-only", "-x", flag, "-"], input=program, text=True,
                          capture_output=True, check=False)


def test_a_reply_with_only_the_body_is_put_under_the_signature() -> None:
    source = (REPO / "examples" / "cpp" / "heat_3d.cpp").read_text()
    info = _info(source, "heat_3d", "cpp")
    raw = """Only the loop nest needs to change:
```cpp
const int plane = n * n;
#pragma omp parallel for collapse(2) schedule(static)
for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
        const double *row = u + (i * n + j) * n;
        for (int k = 0; k < n; k++) {
            bool edge = i == 0 || j == 0 || k == 0 || i == n - 1 || j == n - 1 || k == n - 1;
            v[row - u + k] = edge ? row[k] : row[k] + 0.1 * (row[k - plane] + row[k + plane] + row[k - n]
                + row[k + n] + row[k - 1] + row[k + 1] - 6.0 * row[k]);
        }
    }
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None, result.reason
    assert result.candidate.function_code.startswith("void heat_3d(const double *u, double *v, int n) {\n")
    assert "    #pragma omp parallel for" in result.candidate.function_code
    assert any("only the body" in note for note in result.candidate.notes)
    compiled = _compiles_in(source, result.candidate.code, "heat_3d", "cpp")
    assert compiled.returncode == 0, compiled.stderr


def test_prose_or_a_broken_fragment_is_not_taken_for_a_body() -> None:
    for raw in ("Use a better loop order and it will be faster.",
                "```c\nfor (int i = 0; i < n; i++) {\n    sums[i] += \n```",
                "```c\n#include <math.h>\n```"):
        result = extract(raw, _info(), original_source=ROW_SUMS)
        assert result.candidate is None and "no C or C++ function" in result.reason


MOVING_AVERAGE = (REPO / "examples" / "c" / "moving_average.c").read_text()


def test_file_scope_variables_the_rewrite_uses_come_along() -> None:
    info = _info(MOVING_AVERAGE, "moving_average")
    raw = """```c
#include <stdio.h>
static const int WINDOW = 32;
static double window[WINDOW];
static int unused_counter = 0;
typedef struct { double sum; int count; } running;

void moving_average(const double *x, double *y, int n) {
    running r = {0.0, 0};
    for (int i = 0; i < n; i++) {
        window[i % WINDOW] = x[i];
        r.sum += x[i];
        r.count++;
        if (i >= WINDOW) { r.sum -= x[i - WINDOW]; r.count--; }
        y[i] = r.sum / (double)r.count;
    }
}

int main(void) { double x[4] = {0}, y[4]; moving_average(x, y, 4); printf("%f", y[0]); return unused_counter; }
```"""
    result = extract(raw, info, original_source=MOVING_AVERAGE)
    assert result.candidate is not None, result.reason
    replacement = result.candidate.replacement
    assert "static double window[WINDOW];" in replacement and "typedef struct" in replacement
    assert "unused_counter" not in replacement  # only main uses it
    assert "static const int WINDOW" not in replacement  # the file defines WINDOW already
    assert replacement.index("typedef struct") < replacement.index("void moving_average")
    notes = " ".join(result.candidate.notes)
    assert "kept 2 file-scope declaration(s)" in notes and "dropped declarations the file already has" in notes
    compiled = _compiles_in(MOVING_AVERAGE, result.candidate.code, "moving_average", "c")
    assert compiled.returncode == 0, compiled.stderr


def test_a_declaration_used_only_through_another_comes_along_in_order() -> None:
    source = (REPO / "examples" / "cpp" / "count_unique.cpp").read_text()
    info = _info(source, "count_unique", "cpp")
    raw = """```cpp
struct bucket { int key; bool used; };
static std::vector<bucket> table_;

int count_unique(const std::vector<int> &v) {
    table_.assign(v.size() * 2 + 1, bucket{0, false});
    int count = 0;
    for (int x : v) {
        std::size_t h = static_cast<unsigned>(x) % table_.size();
        while (table_[h].used && table_[h].key != x)
            h = (h + 1) % table_.size();
        if (!table_[h].used) { table_[h] = bucket{x, true}; count++; }
    }
    return count;
}
```"""
    result = extract(raw, info, original_source=source)
    assert result.candidate is not None, result.reason
    assert result.candidate.helpers[:2] == ["struct bucket { int key; bool used; };",
                                            "static std::vector<bucket> table_;"]
    compiled = _compiles_in(source, result.candidate.code, "count_unique", "cpp")
    assert compiled.returncode == 0, compiled.stderr


def test_a_loop_alone_is_not_taken_for_the_whole_body() -> None:
    for fragment in ("for (int i = 0; i < n; i++) {\n    double s = 0.0;\n}",  # sums and a are never named
                     "for (int i = 0; i < n; i++) {\n    double s = 0.0;\n    for (int j = 0; j < n; j++)\n"
                     "        s += a[i * n + j];\n}"):
        result = extract(f"```c\n{fragment}\n```", _info(), original_source=ROW_SUMS)
        assert result.candidate is None and "no C or C++ function" in result.reason
    source = (REPO / "examples" / "c" / "count_in_range.c").read_text()
    no_return = "int count = 0;\nfor (int i = 0; i < n; i++)\n    count += x[i] >= lo && x[i] <= hi;"
    result = extract(f"```c\n{no_return}\n```", _info(source, "count_in_range"), original_source=source)
    assert result.candidate is None  # the original returns a value; these lines do not
    result = extract(f"```c\n{no_return}\nreturn count;\n```", _info(source, "count_in_range"), original_source=source)
    assert result.candidate is not None

"""benchmarks/outside_bench.py on constructed input: the problems it reads, the files it writes, the driver's
output it parses, and when its control has settled (no model, no LLM4PP snapshot)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "outside_bench.py"


@pytest.fixture(scope="module")
def bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("outside_bench", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["outside_bench"] = module
    spec.loader.exec_module(module)
    return module


CPU_CC = """// Driver for 99_demo_scale
#include "utilities.hpp"
#include "generated-code.hpp"
#include "baseline.hpp"

struct Context { std::vector<double> x; };

void NO_OPTIMIZE compute(Context *ctx) {
    double s = scaleSum(ctx->x, 2.0);
}

void NO_OPTIMIZE best(Context *ctx) {
    double s = correctScaleSum(ctx->x, 2.0);
}
"""

SRC = "#pragma once\n#include <vector>\n\nstruct Pair { double a, b; };\n\n" \
      "double scaleSum(std::vector<double> const& x, double k) {\n    double s = 0;\n" \
      "    for (double v : x) s += k * v;\n    return s;\n}\n"


def _pareval(tmp_path: Path) -> Path:
    root = tmp_path / "llm4pp" / "model_eval" / "ParEval"
    bench = root / "drivers" / "cpp" / "benchmarks" / "demo" / "99_demo_scale"
    bench.mkdir(parents=True)
    (bench / "cpu.cc").write_text(CPU_CC)
    missing = root / "drivers" / "cpp" / "benchmarks" / "demo" / "98_demo_other"
    missing.mkdir(parents=True)
    (missing / "cpu.cc").write_text(CPU_CC.replace("scaleSum(ctx", "otherName(ctx"))
    (root / "prompts").mkdir(parents=True)
    entries = [{"name": "99_demo_scale", "problem_type": "demo", "parallelism_model": "serial", "src_code": SRC},
               {"name": "98_demo_other", "problem_type": "demo", "parallelism_model": "serial", "src_code": SRC}]
    (root / "prompts" / "code_opt.json").write_text(json.dumps(entries))
    return tmp_path / "llm4pp"


def test_pareval_problems_are_the_drivers_function_in_a_file_of_its_own(  # type: ignore[no-untyped-def]
        bench, tmp_path: Path) -> None:
    llm4pp = _pareval(tmp_path)
    problems, skipped = bench.load_set("pareval-openmp", llm4pp, "serial")
    assert [(p.name, p.function, p.mode) for p in problems] == [("99_demo_scale", "scaleSum", "openmp")]
    assert skipped == ["98_demo_other: its driver's function is not defined in its src_code"]
    text = problems[0].text
    assert text.startswith("#include <bits/stdc++.h>\n") and "#pragma once" not in text and "struct Pair" in text
    work = tmp_path / "work"
    path = bench.write_source(problems[0], work)
    assert path == work / "sources" / "pareval" / "99_demo_scale.cpp" and path.read_text() == text
    polybench, why = bench.load_set("polybench", llm4pp, "serial")
    assert polybench == [] and "not in this snapshot" in why[0]


def test_driver_callees_and_the_files_given_to_the_driver(bench) -> None:  # type: ignore[no-untyped-def]
    assert bench.driver_callees(CPU_CC) == ("scaleSum", "correctScaleSum")
    original = "double f(int x) {\n    return x;\n}"
    text = f"#include <bits/stdc++.h>\n\n{original}\n"
    code = "#include <omp.h>\n\ndouble f(int x) {\n    return x + 0.0;\n}\n"
    assert bench.candidate_file(text, original, code) == f"#include <bits/stdc++.h>\n\n{code}\n"
    with pytest.raises(ValueError):
        bench.candidate_file(text, "double g() {}", code)
    generated = bench.driver_source("void fft(std::vector<std::complex<double>> &x) {}\nvoid ifft(x) { fft(x); }")
    assert generated.startswith("#include <bits/stdc++.h>\n#include <immintrin.h>\n")
    assert "void fft_helper(" in generated and "void ifft(x) { fft_helper(x); }" in generated


def test_driver_output_and_when_the_control_has_settled(bench) -> None:  # type: ignore[no-untyped-def]
    run = bench.parse_driver_output("Validation: PASS\nTime: 0.25\nBestSequential: 1.000000000000000\n")
    assert run.valid and run.speedup == pytest.approx(4.0)
    assert bench.parse_driver_output("Validation: FAIL\n").valid is False
    assert bench.parse_driver_output("Segmentation fault\n").speedup is None

    def runs(*pairs):  # type: ignore[no-untyped-def]
        out = [(bench.DriverRun(True, 1.0, c), bench.DriverRun(True, 1.0, x)) for c, x in pairs]
        return lambda i: out[i]

    settled = bench.settle(runs((1.39, 3.0), (0.97, 2.0)), repeats=5)
    assert (settled.status, settled.settled, settled.speedup, len(settled.pairs)) == ("confirmed", True, 2.0, 2)
    assert bench.settle(runs((1.01, 0.9)), repeats=5).status == "below_1"
    never = bench.settle(runs((1.2, 2.0), (0.8, 1.0), (1.3, 3.0)), repeats=3)
    assert (never.status, never.settled, never.speedup) == ("unsettled", False, 2.0)
    wrong = bench.settle(lambda i: (bench.DriverRun(True, 1.0, 1.0), bench.DriverRun(False, None, None)), 5)
    assert wrong.status == "incorrect"

"""The harness plan: roles, size hypotheses from loops, annotations and their error messages."""
from __future__ import annotations

import pytest

from perfalign.server.cparse import find_function, parse_annotations
from perfalign.server.errors import HarnessError
from perfalign.server.verify._plan import Kind, make_plan
from perfalign.server.verify._units import glue_source, top_level_names, unit_source

MATMUL = """
void matmul(const double *a, const double *b, double *c, int m, int n, int k) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++)
                s += a[i * k + p] * b[p * n + j];
            c[i * n + j] = s;
        }
}
"""


def plan_for(source: str, name: str, language: str = "c", config: dict | None = None):  # type: ignore[no-untyped-def]
    return make_plan(find_function(source, language, name=name), config)


def test_sizes_are_inferred_from_the_loops_that_index_each_array() -> None:
    plan = plan_for(MATMUL, "matmul")
    first = {pp.param.name: pp.hypotheses[0] for pp in plan.arrays}
    assert [pp.kind for pp in plan.params] == [Kind.IN, Kind.IN, Kind.OUT, Kind.VALUE, Kind.VALUE, Kind.VALUE]
    # Evaluate the inferred C expressions for m=2, n=3, k=5: a is m*k, b is k*n, c is m*n.
    values = {"m": 2, "n": 3, "k": 5}
    def evaluate(expr: str) -> int:
        return int(eval(expr.replace("perfalign_max", "max"), {}, dict(values)))  # noqa: S307 - our own expression
    assert evaluate(first["a"]) == 10 and evaluate(first["b"]) == 15 and evaluate(first["c"]) == 6
    assert [pp.param.name for pp in plan.lengths] == ["m", "n", "k"]


def test_generic_guesses_follow_when_nothing_can_be_inferred() -> None:
    src = "double total(const double *p, int n) { double s = 0; while (n--) s += *p++; return s; }"
    plan = plan_for(src, "total")
    assert plan.params[0].hypotheses[:3] == ["n", "n + 1", "n * n"]


def test_annotations_parse_into_tables() -> None:
    notes = parse_annotations(" perfalign: size(z)=2*n*n, size(out)=n*n, min(n)=1, range(idx)=0..n-1, "
                              "value(k)=3, type(T)=float, tolerance=1e-4 ")
    assert notes == {"size": {"z": "2*n*n", "out": "n*n"}, "min": {"n": "1"}, "range": {"idx": "0..n-1"},
                     "value": {"k": "3"}, "type": {"T": "float"}, "tolerance": 1e-4}


def test_stated_sizes_win_and_unknown_items_are_reported() -> None:
    src = "/* perfalign: size(a)=n*n */\nvoid f(double *a, int n) { for (int i = 0; i < n; i++) a[i] = 0; }\n"
    assert plan_for(src, "f").params[0].hypotheses == ["n*n"]
    bad = "/* perfalign: sise(a)=n */\nvoid f(double *a, int n) { a[0] = n; }\n"
    with pytest.raises(HarnessError, match="cannot read the perfalign annotation"):
        plan_for(bad, "f")
    wrong_name = "/* perfalign: size(b)=n */\nvoid f(double *a, int n) { a[0] = n; }\n"
    with pytest.raises(HarnessError, match=r"size\(b\) names no parameter"):
        plan_for(wrong_name, "f")


def test_perfalign_toml_tables_merge_with_annotations() -> None:
    src = "void f(double *a, int n) { for (int i = 0; i < n; i++) a[i] = 0; }\n"
    plan = plan_for(src, "f", config={"size": {"a": "n + 2"}, "tolerance": 1e-3})
    assert plan.params[0].hypotheses == ["n + 2"] and plan.tolerance == 1e-3
    with pytest.raises(HarnessError, match="perfalign.toml"):
        plan_for(src, "f", config={"sizes": {"a": "n"}})


@pytest.mark.parametrize(
    "source, words",
    [
        ("double f(double ***cube, int n) { return cube[0][0][0]; }", "pointer to pointer"),
        ("struct s; double f(struct s *p) { return 0; }", "does not see the definition of 'struct s'"),
        ("struct s { double a; int id; };\ndouble f(const struct s *p, int n) { return p[n].a; }",
         r"fields of struct s are of different types \(double, int\)"),
        ("double *f(double *a, int n) { return a; }", "returns"),
        ("#include <stdarg.h>\ndouble f(int n, ...) { return n; }", "variadic"),
    ],
)
def test_unsupported_functions_say_why(source: str, words: str) -> None:
    with pytest.raises(HarnessError, match=words):
        plan_for(source, "f")


def test_class_methods_are_refused_with_the_fix() -> None:
    src = "struct G { void s(double *a, int n); };\nvoid G::s(double *a, int n) { for (int i = 0; i < n; i++) a[i] = 0; }\n"
    with pytest.raises(HarnessError, match="free function"):
        plan_for(src, "G::s", "cpp")


def test_units_rename_every_exported_name_and_drop_what_the_candidate_redefines() -> None:
    src = "#include <math.h>\nint calls;\ndouble helper(double x) { return sqrt(x); }\n" \
          "void f(double *a, int n) { for (int i = 0; i < n; i++) a[i] = helper(a[i]) + calls; }\n"
    info = find_function(src, "c", name="f")
    plan = make_plan(info)
    candidate = "double helper(double x) { return x * x; }\nvoid f(double *a, int n) { for (int i = 0; i < n; i++) a[i] = helper(a[i]); }\nint main(void) { return 0; }\n"
    unit = unit_source(plan, candidate, context=info.context)
    for name in ("f", "helper", "calls"):
        assert f"#define {name} perfalign_w_{name}" in unit
    assert "sqrt" not in unit  # the context's helper gave way to the candidate's
    assert "int main" not in unit
    assert set(top_level_names(candidate, "c")) == {"helper", "f", "main"}
    # The glue is made from the original's context alone: no function of either side is in it.
    glue = glue_source(plan)
    assert "#define helper perfalign_g_helper" in glue and "perfalign_fill" in glue
    assert "return x * x" not in glue and "perfalign_call" not in glue


def test_functions_that_write_globals_are_refused() -> None:
    src = "double out[64];\nvoid f(const double *a, int n) { for (int i = 0; i < n; i++) out[i] = a[i]; }\n"
    with pytest.raises(HarnessError, match="writes the global 'out'"):
        plan_for(src, "f")
    local = "void g(double *a, int n) { static int calls; double t[2]; calls++; for (int i = 0; i < n; i++) { t[0] = a[i]; a[i] = t[0] * 2; } }\n"
    assert plan_for(local, "g").params[0].kind == Kind.OUT


def test_a_helper_that_writes_a_global_is_refused_too() -> None:
    src = "static double total;\nstatic void add(double x) { total += x; }\n" \
          "void f(const double *a, int n) { for (int i = 0; i < n; i++) add(a[i]); }\n"
    with pytest.raises(HarnessError, match="through its helper add"):
        plan_for(src, "f")

"""The harness plan: roles, size hypotheses from loops, annotations and their error messages."""
from __future__ import annotations

import pytest

from perfalign.server.cparse import find_function, parse_annotations
from perfalign.server.errors import HarnessError
from perfalign.server.verify.harness._plan import Kind, make_plan
from perfalign.server.verify.harness._units import glue_source, top_level_names, unit_source

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
        ("double f(double a[][8], int n) { return n ? a[0][0] : 0; }", "an array of arrays"),
        ("struct s; double f(struct s *p) { return 0; }", "does not see the definition of 'struct s'"),
        ("struct s { double a; int bits : 4; };\ndouble f(const struct s *p, int n) { return p[n].a; }",
         r"the field 'int bits : 4' of struct s is a bit-field"),
        ("double *f(double *a, int n) { return a; }", "returns"),
        ("#include <stdarg.h>\ndouble f(int n, ...) { return n; }", "variadic"),
    ],
)
def test_unsupported_functions_say_why(source: str, words: str) -> None:
    with pytest.raises(HarnessError, match=words):
        plan_for(source, "f")


def test_a_record_of_mixed_types_is_planned_field_by_field() -> None:
    src = ("struct V { double x, y; };\nstruct s { struct V at; double c[2]; int id; unsigned char flag; };\n"
           "double f(const struct s *p, int n) { return n ? p[0].at.x : 0; }\n")
    pp = plan_for(src, "f").params[0]
    assert pp.record == "struct s" and pp.ctype == "struct s" and pp.width == 1
    assert pp.fields == ["at.x", "at.y", "c[0]", "c[1]", "id", "flag"]
    assert pp.mixed == ["double", "double", "double", "double", "int", "unsigned char"]
    assert pp.label(4 * 6 + 4) == "[4].id"


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


def test_a_loop_that_runs_backwards_makes_its_start_a_length() -> None:
    src = "void f(const double *a, double *out, int n) { for (int i = n - 1; i >= 0; i--) out[i] = a[i]; }"
    plan = plan_for(src, "f")
    assert [pp.param.name for pp in plan.lengths] == ["n"]
    assert plan.params[1].hypotheses[0] == "n"


@pytest.mark.parametrize(
    "source, size",
    [
        ("void f(const unsigned char *d, int n, int *h) { for (int b = 0; b < 256; b++) h[b] = 0; "
         "for (int i = 0; i < n; i++) h[d[i]]++; }", "256"),
        ("#define BINS 64\nvoid f(int *h) { for (int b = 0; b < BINS; b++) h[b] = 0; }", "BINS"),
        ("enum { N = 16 };\nvoid f(int *h) { for (int b = 0; b < N; b++) h[b] = 0; }", "N"),
        ("static const int lut[5] = {1, 2, 3, 4, 5};\n"
         "void f(int *h) { for (unsigned b = 0; b < sizeof lut / sizeof lut[0]; b++) h[b] = lut[b]; }",
         "sizeof lut / sizeof lut[0]"),
        ("void f(const unsigned char *d, int n, long *h) { for (int i = 0; i < n; i++) h[d[i]]++; }", "256"),
    ],
)
def test_constant_bounds_and_byte_indices_give_sizes(source: str, size: str) -> None:
    plan = plan_for(source, "f")
    hist = next(pp for pp in plan.arrays if pp.param.name == "h")
    assert hist.hypotheses[0] == size


def test_an_index_array_gets_values_inside_the_array_it_indexes() -> None:
    src = "void f(const double *x, const int *idx, double *y, int n) { for (int i = 0; i < n; i++) y[i] = x[idx[i]]; }"
    plan = plan_for(src, "f")
    assert plan.params[1].range == ("0", "perfalign_max((n) - 1, 0)")
    assert plan.params[0].range is None  # floating point: no index


def test_locals_set_once_from_loop_variables_size_their_arrays() -> None:
    src = """void f(const double *u, double *v, int n) {
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
            int c = i * n + j;
            v[c] = u[c - n] + u[c + n];
        }
}"""
    plan = plan_for(src, "f")
    # c reaches (n - 2) * n + (n - 2): u[c + n] needs n * n - 1 elements, u[c - n] fewer (tried first).
    assert plan.params[0].hypotheses[:2] == ["perfalign_max(n * n - 2 * n - 1, 2)", "perfalign_max(n * n - 1, 2)"]
    assert plan.params[1].hypotheses[0] == "n * n - n - 1"


def test_records_are_runs_of_numbers_named_by_field() -> None:
    src = "typedef struct { double x, y, z; float m[0]; } Bad;\n" \
          "struct Particle { double pos[3]; double vel[3]; };\n" \
          "void f(struct Particle *p, int n) { for (int i = 0; i < n; i++) p[i].pos[0] += p[i].vel[0]; }"
    plan = plan_for(src, "f")
    pp = plan.params[0]
    assert (pp.record, pp.ctype, pp.width) == ("struct Particle", "double", 6)
    assert pp.label(8) == "[1].pos[2]"


def test_a_local_built_by_a_constructor_call_is_no_global() -> None:
    src = """#include <vector>
int f(const std::vector<int> &v, int n) {
    std::vector<bool> seen(n, false);
    std::vector<int> copy(v);
    for (int x : v) { if (x >= 0 && x < n) seen[x] = true; copy[0] = x; }
    return (int)seen.size() + copy[0];
}"""
    plan = make_plan(find_function(src, "cpp", name="f"))
    assert plan.params[0].kind is Kind.VEC_IN

"""cparse: finding functions, their exact ranges, parameter roles, context and annotations."""
from __future__ import annotations

from pathlib import Path

import pytest

from perfalign.server import cparse
from perfalign.server.cparse import CParseError, Role, find_function, language_for, list_functions
from perfalign.server.verdict import Status

CPP = """#include <vector>
#include <cstddef>
#define SCALE 2.0
typedef double real_t;

namespace geo {
namespace detail {
static inline double sq(double x) { return x * x; }
}

// perfalign: size(out)=n, min(n)=1
template <typename T>
T norm2(const std::vector<T> &v, T *out, int n) {
    T s = 0;
    for (int i = 0; i < n; i++) { out[i] = detail::sq(v[i]); s += out[i]; }
    return s;
}
}  // namespace geo

struct Grid {
    double step;
    void smooth(double *a, int n) const;
};

void Grid::smooth(double *a, int n) const {
    for (int i = 1; i + 1 < n; i++)
        a[i] = (a[i - 1] + a[i + 1]) * 0.5 * step;
}

double unrelated(double x) { return x; }

void fill(std::vector<double> &out, double value, double &last) {
    for (std::size_t i = 0; i < out.size(); i++) out[i] = value * SCALE;
    last = value;
}

int main() { return 0; }
"""

C = """#include <math.h>
#include <string.h>

static double weight(double x) { return exp(-x); }
double unused(double x) { return x; }

/* Weighted copy. */
static inline void apply(const double *restrict in, double *out, size_t n, double scale, const char *tag) {
    for (size_t i = 0; i < n; i++)
        out[i] = weight(in[i]) * scale + (double)strlen(tag);
}
"""


def test_language_follows_the_extension_and_header_content(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text("double f(double);\n")
    (tmp_path / "b.h").write_text("#include <vector>\nnamespace x { int g(); }\n")
    assert language_for(tmp_path / "x.c") == "c"
    assert language_for(tmp_path / "x.cpp") == "cpp"
    assert language_for(tmp_path / "x.cc") == "cpp"
    assert language_for(tmp_path / "a.h") == "c"
    assert language_for(tmp_path / "b.h") == "cpp"


def test_list_functions_finds_namespaced_templates_methods_and_statics() -> None:
    names = [f.qualified_name for f in list_functions(CPP, "cpp")]
    assert names == ["geo::detail::sq", "geo::norm2", "Grid::smooth", "unrelated", "fill", "main"]


def test_byte_range_is_exact_and_includes_the_template_prefix() -> None:
    f = find_function(CPP, "cpp", name="geo::norm2")
    data = CPP.encode()
    assert data[f.start_byte:f.end_byte].decode() == f.text
    assert f.text.startswith("template <typename T>") and f.text.endswith("return s;\n}")
    assert CPP.splitlines()[f.start_line].startswith("template") and f.start_col == 0
    assert CPP.splitlines()[f.end_line] == "}"
    assert f.template_params == ["T"] and f.namespaces == ["geo"]


def test_find_by_unqualified_name_and_by_line() -> None:
    by_name = find_function(CPP, "cpp", name="norm2")
    line = CPP.splitlines().index("    T s = 0;")
    by_line = find_function(CPP, "cpp", line=line)
    assert by_name.qualified_name == by_line.qualified_name == "geo::norm2"
    method = find_function(CPP, "cpp", name="Grid::smooth")
    assert method.is_method and method.name == "smooth"


def test_parameter_roles_c() -> None:
    f = find_function(C, "c", name="apply")
    roles = {p.name: p.role for p in f.params}
    assert roles == {"in": Role.IN_ARRAY, "out": Role.OUT_ARRAY, "n": Role.LENGTH, "scale": Role.SCALAR, "tag": Role.STRING}
    assert f.is_static and f.is_inline
    assert f.params[0].is_const and f.params[0].element_type == "double"
    assert f.return_type == "void"


def test_parameter_roles_cpp_vectors_and_references() -> None:
    f = find_function(CPP, "cpp", name="fill")
    roles = {p.name: p.role for p in f.params}
    assert roles == {"out": Role.VECTOR_OUT, "value": Role.SCALAR, "last": Role.REF_OUT}
    g = find_function(CPP, "cpp", name="geo::norm2")
    assert [p.role for p in g.params] == [Role.VECTOR_IN, Role.INOUT_ARRAY, Role.LENGTH]  # out is read back
    assert g.params[0].element_type == "T"


def test_context_holds_what_the_function_needs_and_not_other_functions() -> None:
    f = find_function(C, "c", name="apply")
    assert "#include <math.h>" in f.context and "static double weight" in f.context
    assert "unused" not in f.context and "apply" not in f.context
    g = find_function(CPP, "cpp", name="geo::norm2")
    assert "namespace detail" in g.context and "sq(double x)" in g.context
    assert "unrelated" not in g.context and "int main" not in g.context
    assert "typedef double real_t;" in g.context and "#define SCALE" in g.context


def test_annotation_comment_above_the_function_is_parsed() -> None:
    g = find_function(CPP, "cpp", name="geo::norm2")
    assert g.annotations == {"size": {"out": "n"}, "min": {"n": "1"}}
    f = find_function(C, "c", name="apply")
    assert f.annotations == {}


def test_missing_function_and_syntax_errors_are_unsupported_with_a_reason() -> None:
    with pytest.raises(CParseError) as missing:
        find_function(C, "c", name="nope")
    assert missing.value.status is Status.UNSUPPORTED and "apply" in missing.value.message
    broken = "void f(int n) { for (int i = 0; i < n; i++ { } }\n"
    with pytest.raises(CParseError) as bad:
        find_function(broken, "c", name="f")
    assert "syntax error at line 1" in bad.value.message
    with pytest.raises(CParseError):
        find_function(C, "c", line=0)


def test_listing_is_cheap_enough_for_every_code_action() -> None:
    import time

    big = C + "\n".join(f"double f{i}(double x) {{ return x * {i}; }}" for i in range(2000))
    start = time.perf_counter()
    functions = list_functions(big, "c")
    elapsed = time.perf_counter() - start
    assert len(functions) == 2003
    assert elapsed < 2.0


def test_a_function_inside_a_conditional_block_keeps_its_branch_only() -> None:
    src = """#include <stdlib.h>
#ifdef USE_KERNELS
static double sq(double x) { return x * x; }
void squares(const double *a, double *out, int n) { for (int i = 0; i < n; i++) out[i] = sq(a[i]); }
#else
#define FACTOR 1.0
void squares(const double *a, double *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] * a[i] * FACTOR; }
#endif
"""
    first = find_function(src, "c", line=3)
    assert "static double sq" in first.context and "#ifdef" not in first.context and "FACTOR" not in first.context
    second = find_function(src, "c", line=6)
    assert "#define FACTOR 1.0" in second.context and "sq(" not in second.context and "#endif" not in second.context
    with pytest.raises(CParseError) as twice:
        find_function(src, "c", name="squares")
    assert "more than once" in twice.value.message


def test_file_scope_declarations_list_variables_and_types_not_prototypes() -> None:
    text = """#define W 4
static double window[W] = {0};
static int count_, *last_ = 0;
int helper(int);
typedef struct { int x; } point;
struct cell { double v; };
enum mode { FAST, SLOW = 2 };
int helper(int x) { return x + window[0]; }
"""
    found = {d.names: d.text for d in cparse.file_scope_declarations(text, "c")}
    assert found == {
        ("window",): "static double window[W] = {0};",
        ("count_", "last_"): "static int count_, *last_ = 0;",
        ("point",): "typedef struct { int x; } point;",
        ("cell",): "struct cell { double v; };",
        ("mode", "FAST", "SLOW"): "enum mode { FAST, SLOW = 2 };",
    }


def test_body_span_splits_a_definition_before_its_body() -> None:
    assert cparse.body_span("template <class T> T twice(T x) { return 2 * x; }", "cpp") == (
        "template <class T> T twice(T x) ", "{ return 2 * x; }")
    assert cparse.body_span("int prototype(int);", "c") is None

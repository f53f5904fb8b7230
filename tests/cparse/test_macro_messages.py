"""Valid C that perfalign cannot read before preprocessing is named for what it is, with how to verify it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from perfalign.server.cparse import CParseError, find_function

PERFALIGN = str(Path(sys.executable).parent / "perfalign")

MADE_BY_MACRO = """#define DEFINE_SUM(T) T sum_##T(const T *a, int n) \\
    { T s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
DEFINE_SUM(int)
DEFINE_SUM(double)
"""

STATEMENT_ARGUMENT = """#define CHECK(cond, action) if (!(cond)) action

double total(const double *a, int n) {
    double s = 0;
    CHECK(n > 0, return 0.0;);
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}
"""

KR = """int add(a, b)
    int a;
    long b;
{
    return a + (int)b;
}
"""


def test_a_function_made_by_a_macro_is_named_as_such() -> None:
    with pytest.raises(CParseError) as caught:
        find_function(MADE_BY_MACRO, "c", name="sum_double")
    message = caught.value.message
    assert message.startswith("sum_double is produced by the macro DEFINE_SUM (called at line 4)")
    assert "gcc -E -P" in message and "does not parse" not in message


def test_a_statement_passed_to_a_macro_is_named_as_such() -> None:
    with pytest.raises(CParseError) as caught:
        find_function(STATEMENT_ARGUMENT, "c", name="total")
    message = caught.value.message
    assert message.startswith("total passes a statement to the macro CHECK at line 5")
    assert "[project]" in message and "gcc -E -P" in message


def test_a_real_syntax_error_is_still_a_syntax_error() -> None:
    with pytest.raises(CParseError, match=r"total does not parse \(syntax error at line 5\)"):
        find_function(STATEMENT_ARGUMENT.replace("CHECK(n > 0, return 0.0;);", "s = = 1;"), "c", name="total")


def test_a_k_and_r_definition_is_named_with_its_typed_form(tmp_path: Path) -> None:
    source, candidate = tmp_path / "add.c", tmp_path / "cand.c"
    source.write_text(KR)
    candidate.write_text("int add(int a, long b) { return a + (int)b; }\n")
    result = subprocess.run([PERFALIGN, "verify", str(source), "-f", "add", "-c", str(candidate), "--json"],
                            capture_output=True, text=True, timeout=120, check=False)
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "unsupported"
    assert "add: it is a K&R-style definition" in verdict["detail"]
    assert "int add(int a, long b)" in verdict["detail"]

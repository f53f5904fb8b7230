"""The screen rejects candidates that do more than compute, and allows what the original needed."""
from __future__ import annotations

from pathlib import Path

import pytest

from perfalign.server.verify.judging._screen import screen

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"

ORIGINAL_C = """double sum(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}"""

BODY = "double sum(const double *a, int n)\n{{\n    {stmt}\n    return 0;\n}}"

UNSAFE_C = {
    "system": ('system("rm -rf ~");', "system"),
    "popen": ('popen("id", "r");', "popen"),
    "fork": ("fork();", "fork"),
    "execve": ('execve("/bin/sh", 0, 0);', "execve"),
    "fopen": ('fopen("/etc/passwd", "r");', "fopen"),
    "open": ('open("/root/.ssh/id_rsa", 0);', "open"),
    "unlink": ('unlink("/home/user/data");', "unlink"),
    "socket": ("socket(2, 1, 0);", "socket"),
    "connect": ("connect(3, 0, 0);", "connect"),
    "dlopen": ('dlopen("libevil.so", 2);', "dlopen"),
    "mmap": ("mmap(0, 4096, 7, 0x22, -1, 0);", "mmap"),
    "function pointer": ('int (*run)(const char *) = system; run("id");', "system"),
    "getenv": ('getenv("AWS_SECRET_ACCESS_KEY");', "getenv"),
}

PROTOTYPES = {
    "system": "int system(const char *);",
    "fork": "extern int fork(void);",
    "socket": "int socket(int, int, int);",
}


@pytest.mark.parametrize("name", sorted(PROTOTYPES))
def test_declaring_an_unsafe_function_yourself_does_not_help(name: str) -> None:
    candidate = PROTOTYPES[name] + "\n" + BODY.format(stmt=f"{name}(0);" if name != "socket" else "socket(2, 1, 0);")
    reason = screen(candidate, ORIGINAL_C, "c")
    assert reason is not None and name in reason


@pytest.mark.parametrize("case", sorted(UNSAFE_C))
def test_unsafe_calls_are_rejected_with_the_name(case: str) -> None:
    stmt, name = UNSAFE_C[case]
    reason = screen(BODY.format(stmt=stmt), ORIGINAL_C, "c")
    assert reason is not None
    assert name in reason and "original" in reason


def test_correct_rewrites_pass() -> None:
    openmp = ORIGINAL_C.replace("    for (", "    #pragma omp parallel for reduction(+:s)\n    for (")
    assert screen(openmp, ORIGINAL_C, "c") is None
    unrolled = """#include <stddef.h>
#include <immintrin.h>
double sum(const double *restrict a, int n)
{
    double s0 = 0, s1 = 0;
    int i = 0;
    for (; i + 1 < n; i += 2) { s0 += a[i]; s1 += a[i + 1]; }
    for (; i < n; i++) s0 += a[i];
    return s0 + s1;
}"""
    assert screen(unrolled, ORIGINAL_C, "c") is None


def test_local_names_that_match_library_functions_are_fine() -> None:
    candidate = """double sum(const double *a, int n)
{
    double write = 0, open = 0;
    for (int i = 0; i < n; i++) { write += a[i]; open += 1; }
    return write + open * 0;
}"""
    assert screen(candidate, ORIGINAL_C, "c") is None


def test_comments_and_strings_do_not_count() -> None:
    candidate = ORIGINAL_C.replace("double s = 0;", 'double s = 0; /* no system() here */ const char *m = "fopen";')
    assert screen(candidate, ORIGINAL_C, "c") is None


def test_inline_assembly_is_rejected() -> None:
    for stmt in ('__asm__ volatile("" ::: "memory");', 'asm("nop");'):
        reason = screen(BODY.format(stmt=stmt), ORIGINAL_C, "c")
        assert reason is not None and "inline assembly" in reason


def test_unsafe_headers_are_rejected_safe_ones_pass() -> None:
    for header in ("sys/socket.h", "dlfcn.h", "unistd.h", "../../etc/passwd"):
        reason = screen(f"#include <{header}>\n" + ORIGINAL_C, ORIGINAL_C, "c")
        assert reason is not None and header in reason
    assert screen("#include <math.h>\n#include <omp.h>\n" + ORIGINAL_C, ORIGINAL_C, "c") is None


def test_habitual_stdio_include_passes_but_its_file_functions_do_not() -> None:
    assert screen("#include <stdio.h>\n#include <stdlib.h>\n" + ORIGINAL_C, ORIGINAL_C, "c") is None
    candidate = "#include <stdio.h>\n" + BODY.format(stmt='FILE *f = fopen("/etc/passwd", "r");')
    reason = screen(candidate, ORIGINAL_C, "c")
    assert reason is not None and "fopen" in reason


def test_macro_that_names_an_unsafe_function_is_rejected() -> None:
    candidate = "#define RUN system\n" + BODY.format(stmt='RUN("id");')
    reason = screen(candidate, ORIGINAL_C, "c")
    assert reason is not None and "system" in reason


def test_what_the_original_uses_is_allowed() -> None:
    original = """#include <stdio.h>
void dump(const double *a, int n)
{
    FILE *f = fopen("out.txt", "w");
    for (int i = 0; i < n; i++) fprintf(f, "%g\\n", a[i]);
    fclose(f);
}"""
    candidate = original.replace('fprintf(f, "%g\\n", a[i]);', 'fprintf(f, "%.6g\\n", a[i]);')
    assert screen(candidate, original, "c") is None
    with_asm = BODY.format(stmt='__asm__ volatile("" ::: "memory");')
    assert screen(with_asm, with_asm, "c") is None


def test_cpp_file_and_process_apis_are_rejected() -> None:
    original = "#include <vector>\ndouble total(const std::vector<double>& v) { double s = 0; for (double x : v) s += x; return s; }"
    cases = {
        "ofstream": '#include <vector>\ndouble total(const std::vector<double>& v) { std::ofstream f("/tmp/x"); return 0; }',
        "system": '#include <cstdlib>\ndouble total(const std::vector<double>& v) { std::system("id"); return 0; }',
        "filesystem": 'double total(const std::vector<double>& v) { std::filesystem::remove_all("/"); return 0; }',
        "fstream": "#include <fstream>\n#include <vector>\ndouble total(const std::vector<double>& v) { return 0; }",
    }
    for name, candidate in cases.items():
        reason = screen(candidate, original, "cpp")
        assert reason is not None and name in reason, (name, reason)
    good = "#include <numeric>\n#include <vector>\ndouble total(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }"
    assert screen(good, original, "cpp") is None


@pytest.mark.parametrize("name", ["connect.c", "write_home.c", "read_secrets.c", "daemon.c"])
def test_hostile_programs_are_screened(name: str) -> None:
    assert screen((HOSTILE / name).read_text(), ORIGINAL_C, "c") is not None


def test_std_remove_algorithm_is_not_the_file_function() -> None:
    original = "#include <vector>\nvoid clean(std::vector<int>& v) { for (size_t i = 0; i < v.size();) if (v[i] == 0) v.erase(v.begin() + i); else i++; }"
    idiom = "#include <vector>\n#include <algorithm>\nvoid clean(std::vector<int>& v) { v.erase(std::remove(v.begin(), v.end(), 0), v.end()); }"
    assert screen(idiom, original, "cpp") is None
    deletes = '#include <vector>\nvoid clean(std::vector<int>& v) { std::remove("/home/user/data.bin"); }'
    reason = screen(deletes, original, "cpp")
    assert reason is not None and "remove" in reason

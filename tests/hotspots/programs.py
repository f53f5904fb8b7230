"""Small C programs with a known hot function, built with real gcc, for the profiling tests."""
from __future__ import annotations

import subprocess
from pathlib import Path

# hot() does forty passes over the array; warm() one; main() little else. hot must rank first.
BENCH = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double hot(const double *a, int n) {
    double s = 0;
    for (int r = 0; r < 40; r++)
        for (int i = 0; i < n; i++)
            s += a[i] * a[(i * 7) % n];
    return s;
}

double warm(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * 0.5;
    return s;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    const char *preload = getenv("LD_PRELOAD");
    if (argc > 2 && strcmp(argv[2], "fail") == 0) {
        fprintf(stderr, "bench: cannot open input.dat\n");
        return 2;
    }
    if (argc > 2 && strcmp(argv[2], "hang-when-profiled") == 0 && preload && strstr(preload, "vgpreload"))
        sleep(60);
    double *a = malloc(sizeof *a * (size_t)n);
    for (int i = 0; i < n; i++)
        a[i] = i % 13;
    printf("%f %f\n", hot(a, n), warm(a, n));
    free(a);
    return 0;
}
"""


def build(folder: Path, *, source: str = BENCH, name: str = "bench", debug: bool = True) -> Path:
    """Write ``bench.c`` into ``folder`` and build ``bench`` (with -g unless ``debug`` is False)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.c").write_text(source)
    flags = ["-O1", "-fno-inline"] + (["-g"] if debug else [])
    subprocess.run(["gcc", *flags, "-o", name, f"{name}.c"], cwd=folder, check=True)
    return folder / name


def many_functions(count: int) -> str:
    """A program with ``count`` small functions, each called once, and one hot function."""
    parts = ["#include <stdio.h>"]
    parts += [f"int f{i}(int x) {{ return x * {i % 7 + 1} + {i}; }}" for i in range(count)]
    parts.append("long hot(int n) { long s = 0; for (int r = 0; r < 200; r++) for (int i = 0; i < n; i++) "
                 "s += (long)i * r % 7; return s; }")
    calls = " ".join(f"s += f{i}(s & 7);" for i in range(count))
    parts.append(f"int main(void) {{ long s = 0; {calls} s += hot(20000); printf(\"%ld\\n\", s); return 0; }}")
    return "\n".join(parts) + "\n"


# C++: the hot work in a method defined inside its class, a namespaced free function beside it.
CPP_BENCH = r"""#include <cstdio>
#include <vector>
namespace k {
struct Acc {
    double total(const std::vector<double> &v) const {
        double s = 0;
        for (int r = 0; r < 40; r++)
            for (size_t i = 0; i < v.size(); i++) s += v[i] * v[(i * 7) % v.size()];
        return s;
    }
};
double helper(const std::vector<double> &v) { double s = 0; for (double x : v) s += x * x; return s; }
}  // namespace k
int main() {
    std::vector<double> v(20000, 1.5);
    k::Acc a;
    std::printf("%f %f\n", a.total(v), k::helper(v));
}
"""


def build_cpp(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "k.cpp").write_text(CPP_BENCH)
    subprocess.run(["g++", "-O1", "-fno-inline", "-g", "-o", "k", "k.cpp"], cwd=folder, check=True)
    return folder / "k"

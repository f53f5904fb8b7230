"""What every family template is built from: a variant, the language/style context, element types and names."""
from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Variant:
    """One generated function: the slow original and a known faster rewrite of it (same signature)."""

    name: str
    language: str  # "c" or "cpp"
    original: str
    reference: str
    knobs: dict[str, str] = field(default_factory=dict)  # what was varied, for the manifest


FLOATS = ("double", "float")
INTS = ("int", "long", "short")
WIDE = {"int": "long", "long": "long", "short": "int", "unsigned": "unsigned long", "double": "double",
        "float": "double", "long long": "long long", "unsigned char": "unsigned", "unsigned short": "unsigned"}
SHORT = {"double": "f64", "float": "f32", "int": "i32", "long": "i64", "short": "i16", "unsigned": "u32",
         "unsigned char": "u8", "unsigned short": "u16", "long long": "i64"}


def lit(t: str, value: float | int) -> str:
    """``value`` written as a literal of type ``t``."""
    if t == "float":
        return f"{float(value)!r}f"
    if t == "double":
        return repr(float(value))
    return str(int(value))


@dataclass(frozen=True)
class Ctx:
    """Language and spelling choices shared by one variant."""

    lang: str  # "c" or "cpp"
    idx: str  # index type
    vec: bool = False  # C++ std::vector parameters instead of pointers

    @staticmethod
    def pick(rng: random.Random, vec_ok: bool = True, cpp_share: float = 0.45) -> Ctx:
        lang = "cpp" if rng.random() < cpp_share else "c"
        if lang == "c":
            return Ctx("c", rng.choice(["int", "long", "size_t"]))
        vec = vec_ok and rng.random() < 0.6
        return Ctx("cpp", "std::size_t" if vec else rng.choice(["int", "long", "std::size_t"]), vec)

    @property
    def ext(self) -> str:
        return ".c" if self.lang == "c" else ".cpp"

    @property
    def unsigned_idx(self) -> bool:
        return "size_t" in self.idx

    def cast(self, t: str, expr: str) -> str:
        return f"({t})({expr})" if self.lang == "c" else f"static_cast<{t}>({expr})"

    def inp(self, t: str, name: str) -> str:
        return f"const std::vector<{t}> &{name}" if self.vec else f"const {t} *{name}"

    def out(self, t: str, name: str) -> str:
        return f"std::vector<{t}> &{name}" if self.vec else f"{t} *{name}"

    def math(self, fn: str, t: str) -> str:
        """``sqrt`` -> ``sqrtf`` for float in C, ``std::sqrt`` in C++."""
        if self.lang == "cpp":
            return f"std::{fn}"
        return fn + ("f" if t == "float" else "")

    def headers(self, *, math: bool = False, extra: tuple[str, ...] = ()) -> str:
        if self.lang == "c":
            names = ["stddef.h"] + (["math.h"] if math else []) + [e for e in extra if e.endswith(".h")]
        else:
            names = ["cstddef"] + (["cmath"] if math else []) + (["vector"] if self.vec else [])
            names += [e for e in extra if not e.endswith(".h")]
        return "".join(f"#include <{h}>\n" for h in dict.fromkeys(names)) + "\n"

    def comment(self, text: str) -> str:
        if self.lang == "c":
            lines = text.split("\n")
            if len(lines) == 1:
                return f"/* {text} */\n"
            return "/* " + "\n * ".join(lines) + "\n */\n"
        return "".join(f"// {line}\n" for line in text.split("\n"))

    def length_param(self, n: str) -> str:
        """``, int n`` for pointer style; nothing for vectors (the size comes from the vector)."""
        return "" if self.vec else f", {self.idx} {n}"

    def length_decl(self, n: str, vector: str) -> str:
        return f"    const std::size_t {n} = {vector}.size();\n" if self.vec else ""

    def size_output(self, out: str, n: str, t: str) -> str:
        return f"    {out}.assign({n}, {lit(t, 0)});\n" if self.vec else ""

    def down(self, var: str, start: str, stop: str = "0") -> str:
        """A loop header for ``var`` from ``start - 1`` down to ``stop`` that is right for unsigned indices."""
        return f"for ({self.idx} {var} = {start}; {var}-- > {stop};)"


def pick_name(rng: random.Random, stems: list[str], t: str | None = None) -> str:
    stem = rng.choice(stems)
    return f"{stem}_{SHORT[t]}" if t and rng.random() < 0.5 else stem

"""What the preprocessor does that the parser cannot see: functions made by macros, statements passed to macros.

perfalign parses the source as written, before the preprocessor runs. A
function written out by a macro (``DEFINE_SUM(int)`` making ``sum_int``) is
not in that text, and a statement passed as a macro's argument
(``CHECK(n > 0, return 0;)``) is not C until the macro is expanded. These
helpers find both, so the user is told what happened and how to verify such
a function anyway, instead of "no such function" or "does not parse".
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.MULTILINE)
_PASTED = re.compile(r"\w+(?:\s*##\s*\w+)*")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")

# perfalign parses the source before the preprocessor runs: what to do instead.
PREPROCESSED = "verify it on a preprocessed copy of the file (gcc -E -P FILE -o FILE.i.c)"
PROJECT = "through the project's own build (a [project] table in perfalign.toml, docs/safety.md)"


@dataclass(frozen=True)
class Macro:
    """A function-like macro defined in the file."""

    name: str
    params: tuple[str, ...]
    body: str
    line: int  # 0-based line of its #define


def function_macros(text: str) -> dict[str, Macro]:
    """Every function-like macro the file defines, by name."""
    found: dict[str, Macro] = {}
    for m in _DEFINE.finditer(text):
        params = tuple(p.strip() for p in m.group(2).split(",") if p.strip())
        body = m.group(3).replace("\\\n", " ")
        found[m.group(1)] = Macro(m.group(1), params, body, text.count("\n", 0, m.start()))
    return found


def _arguments(text: str, open_paren: int) -> tuple[list[str], int] | None:
    """The comma-separated arguments of the call whose ``(`` is at ``open_paren``, and where the call ends."""
    depth, start, args = 0, open_paren + 1, []
    for i in range(open_paren, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                return args, i + 1
        elif ch == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
    return None


def _calls(text: str, macros: dict[str, Macro]) -> list[tuple[Macro, list[str], int, int]]:
    """Calls of the file's macros outside #define lines: (macro, arguments, start, end)."""
    calls = []
    for m in _CALL.finditer(text):
        macro = macros.get(m.group(1))
        line_start = text.rfind("\n", 0, m.start()) + 1
        if macro is None or text[line_start : m.start()].lstrip().startswith("#"):
            continue
        found = _arguments(text, m.end() - 1)
        if found is not None:
            calls.append((macro, found[0], m.start(), found[1]))
    return calls


def produced_by(text: str, name: str) -> tuple[Macro, int] | None:
    """The macro whose expansion defines function ``name`` here, and the 0-based line of that call."""
    wanted = name.split("::")[-1].strip()
    macros = {n: m for n, m in function_macros(text).items() if "{" in m.body}
    for macro, args, start, _ in _calls(text, macros):
        values = dict(zip(macro.params, (a.strip() for a in args)))
        for token in _PASTED.findall(macro.body):
            parts = [values.get(p.strip(), p.strip()) for p in token.split("##")]
            if "".join(parts) == wanted and (len(parts) > 1 or token.strip() in values):
                return macro, text.count("\n", 0, start)
    for macro in macros.values():  # the name written in the macro's body itself
        if re.search(rf"\b{re.escape(wanted)}\s*\(", macro.body):
            calls = [s for m, _, s, _ in _calls(text, {macro.name: macro})]
            if calls:
                return macro, text.count("\n", 0, calls[0])
    return None


def statement_argument(text: str, line: int) -> str | None:
    """The macro called on 0-based ``line`` with a statement (``;`` or a block) as an argument, or None."""
    macros = function_macros(text)
    for m in _CALL.finditer(text):
        name = m.group(1)
        if name not in macros and not (name.isupper() and len(name) > 1):
            continue
        found = _arguments(text, m.end() - 1)
        if found is None:
            continue
        first, last = text.count("\n", 0, m.start()), text.count("\n", 0, found[1])
        if first <= line <= last and any(";" in a or "{" in a for a in found[0]):
            return name
    return None


def produced_message(name: str, macro: Macro, call_line: int) -> str:
    return (f"{name} is produced by the macro {macro.name} (called at line {call_line + 1}) and perfalign reads the "
            f"source before preprocessing; {PREPROCESSED}")


def statement_message(function: str, line: int, macro: str) -> str:
    return (f"{function} passes a statement to the macro {macro} at line {line + 1}, which is C only once the macro "
            f"is expanded, and perfalign reads the source before preprocessing; verify it {PROJECT}, or "
            f"{PREPROCESSED.removeprefix('verify it ')}")

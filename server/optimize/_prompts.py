"""Prompt templates for the two tasks, versioned in one place.

Change a template, change ``PROMPT_VERSION``: the store records the version
with every candidate, and the training package groups data by it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..settings import Settings

PROMPT_VERSION = "2026-11-30.2"
MODES = ("serial", "openmp")
# Sampling stops at a closing fence followed by a blank line: the explanation models
# write after the code costs time and is never used.
STOP = ["\n```\n\n"]

SYSTEM = (
    "You are an expert in high-performance C and C++. You rewrite one function at a time so that it "
    "runs faster while computing exactly the same results for every input, including edge cases such "
    "as n == 0. You keep the function's name, parameters and return type, you never change what the "
    "caller sees, and you answer with the whole rewritten function in one code block."
)

TASKS = {
    "serial": (
        "Optimize this function for speed on one core. Look for: loop order that walks memory with a "
        "large stride, work repeated inside loops that can be hoisted, quadratic algorithms where a "
        "linear one computes the same values, redundant calls, and branches or divisions in hot loops. "
        "Do not use OpenMP or threads."
    ),
    "openmp": (
        "Parallelize this function with OpenMP for {threads} threads. Put each `#pragma omp` directive "
        "inside the function body, right before the loop it applies to, so that the result is the same as "
        "the serial code: no data races, and every scalar that the iterations add up or combine is in a "
        "reduction clause. Variables declared inside the loop are already private. Never put a pointer, "
        "an array or an array section in a private or reduction clause, and never reduce into an array "
        "element; loops whose iterations write different elements need no clause at all. Use only "
        "`parallel for`, `reduction`, `collapse` and `schedule`, and keep the loop bodies as they are "
        "unless a loop must be restructured to parallelize. Do not call omp_set_num_threads."
    ),
}

USER = """\
{task}

Compiler: {compiler} {flags}{openmp_flag}
Language: {language_name}
Function: {name}

Declarations the function uses (already in the file; do not repeat them):
```{fence}
{context}
```

The function:
```{fence}
{code}
```

Reply with the complete rewritten `{name}` function, with the same signature `{signature}`, in one ```{fence} code block, and nothing after it. Keep any helpers it calls unchanged; do not write a main function."""


class FunctionLike(Protocol):
    name: str
    language: str
    text: str
    context: str
    signature: str


@dataclass(frozen=True)
class Prompt:
    messages: list[dict[str, str]]
    version: str = PROMPT_VERSION


def _compiler(language: str, settings: Settings) -> str:
    return settings.cxx if language == "cpp" else settings.cc


def build_messages(function_info: FunctionLike, mode: str, settings: Settings) -> list[dict[str, str]]:
    """The chat messages asking for a faster (``serial``) or parallel (``openmp``) rewrite."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    language = function_info.language
    fence = "cpp" if language == "cpp" else "c"
    context = function_info.context.strip() or "/* nothing beyond the standard headers */"
    user = USER.format(
        task=TASKS[mode].format(threads=settings.threads),
        compiler=_compiler(language, settings),
        flags=" ".join(settings.cflags),
        openmp_flag=" -fopenmp" if mode == "openmp" else "",
        language_name="C++" if language == "cpp" else "C",
        name=function_info.name,
        fence=fence,
        context=context,
        code=function_info.text.strip(),
        signature=" ".join(function_info.signature.split()),
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def build_prompt(function_info: FunctionLike, mode: str, settings: Settings) -> Prompt:
    return Prompt(build_messages(function_info, mode, settings))

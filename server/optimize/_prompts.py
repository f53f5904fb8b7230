"""Prompt templates for the two tasks and for the feedback rounds, versioned in one place.

Change a first-round template, change ``PROMPT_VERSION``; change a feedback
template (repair or improvement), change ``FEEDBACK_PROMPT_VERSION``: the store
records the version with every candidate, and the training package groups data
by it. A feedback turn continues the first round's conversation: the model's
candidate as its answer, then what the verifier found and the request for a
corrected (repair) or faster (improvement) whole function.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from ..records import with_strategy
from ..settings import Settings
from ..verdict import Status, Verdict
from .analysis import Strategy

PROMPT_VERSION = "2026-12-06.1"
FEEDBACK_PROMPT_VERSION = "feedback-2026-12-05.3"
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
        "reduction clause. Variables declared inside the loop are already private. Unless a strategy below "
        "allows more: never put a pointer, an array or an array section in a private or reduction clause, "
        "never reduce into an array element, and use only `parallel for`, `reduction`, `collapse` and "
        "`schedule`. Loops whose iterations write different elements need no clause at all. Keep the loop "
        "bodies as they are unless a loop must be restructured to parallelize. Do not call "
        "omp_set_num_threads."
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


def _fence(language: str) -> str:
    return "cpp" if language == "cpp" else "c"


def build_messages(function_info: FunctionLike, mode: str, settings: Settings,
                   strategy: Strategy | None = None) -> list[dict[str, str]]:
    """The chat messages asking for a faster (``serial``) or parallel (``openmp``) rewrite; with a ``strategy``,
    its paragraph stands before the request for the reply (:func:`~perfalign.server.records.with_strategy`)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    language = function_info.language
    fence = _fence(language)
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
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    return with_strategy(messages, strategy.paragraph()) if strategy is not None else messages


def build_prompt(function_info: FunctionLike, mode: str, settings: Settings) -> Prompt:
    return Prompt(build_messages(function_info, mode, settings))


# -- feedback rounds

REPAIR_STATUSES = frozenset({Status.COMPILE_ERROR, Status.INCORRECT, Status.CRASH})
IMPROVE_STATUSES = frozenset({Status.NOT_SIGNIFICANT, Status.SLOWER})

REPAIR = {
    Status.COMPILE_ERROR: "Your rewrite does not compile ({compiler} {flags}{openmp_flag}, {language_name}). "
                          "The compiler's first error:\n```\n{detail}\n```",
    Status.INCORRECT: "Your rewrite compiles, but it computes something different from the original. "
                      "The first mismatch the checker found: {detail}.",
    Status.CRASH: "Your rewrite compiles, but it crashed when called: {detail}.",
}


@dataclass(frozen=True)
class Hint:
    """What a compiler error usually means, for a mistake models make often.

    ``message`` is matched against the compiler's first error; ``line``, when set, against the candidate's line
    the error names (a clause the message does not mention, such as a malformed ``reduction``). ``text`` may
    name ``{quoted}``, the first name the message quotes.
    """

    text: str
    message: str = ""
    line: str = ""


HINTS = (
    Hint("A reduction clause here may name only scalar variables, declared before the `#pragma omp` line and "
         "written as `reduction(+:sum)`: not `*y`, `y[i]`, an array section or a vector. Add up into a local "
         "scalar and store it after the loop, or let each iteration write its own element, which needs no clause.",
         message=r"user defined reduction not found|reduction variable .* (array|pointer)|not a scalar"
                 r"|has invalid type for .reduction",
         line=r"\breduction\s*\("),
    Hint("C has no `{quoted}` function: write the comparison out, as in `(a > b ? a : b)`, or use `fmax`/`fmin` for "
         "doubles.",
         message=r"(undefined reference to|implicit declaration of function) .(max|min)\b|.(max|min). undeclared"),
    Hint("`{quoted}` is not declared where it is used: declare it before its first use (before the `#pragma omp` "
         "line when a clause names it), or use the variables the original declares; a loop variable does not exist "
         "outside its loop.",
         message=r"has not been declared|undeclared|was not declared"),
    Hint("collapse(n) needs n loops nested directly in each other with nothing between them; drop collapse or use "
         "it only on such loops.",
         message=r"not enough (perfectly nested |for )?loops|not perfectly nested"),
    Hint("`#pragma omp parallel for` must be followed directly by a for loop.",
         message=r"for statement expected|expected .for."),
    Hint("An OpenMP loop must have the form `for (int i = a; i < b; i++)` with bounds that do not change in the loop.",
         message=r"invalid controlling predicate|invalid increment expression|initializer expression refers to "
                 r"iteration|may not appear on non-rectangular"),
    Hint("Write only the function itself: the declarations it uses are already in the file, and library functions "
         "such as `sqrt` must not be defined again.",
         message=r"conflicting types|redefinition|redeclared|follows non-static declaration"),
    Hint("The assignment writes to something declared `const` (a const parameter, or a variable you declared "
         "const): write only where the original writes, and use a new local variable for anything else.",
         message=r"assignment of read-only|read-only (variable|location)"),
    Hint("A name you used as a variable is a macro the file defines (`#define`): use the macro as it is, without "
         "declaring a variable of that name.",
         message=r"expected identifier or .\(. before numeric constant"),
    Hint("An index must be an integer: index arrays and pointers with an integer expression, not with a pointer, "
         "an iterator or a floating-point value.",
         message=r"array subscript is not an integer|subscripted value is neither"),
)

# A small failing case, written out by the verifier (the call, its inputs and both sides' outputs).
EXAMPLE = "The call where they differ:\n```\n{example}\n```"

# A reply with no whole function in it (a loop, a fragment, only the changed lines).
NO_CODE = (
    "Your reply does not hold a complete `{name}` function that can replace the original ({detail}). Write the "
    "whole function: the signature `{signature}`, then the complete body, not only the lines that change."
)

REPAIR_ASK = (
    "Fix the rewrite so that it compiles and computes exactly what the original computes{goal}. Reply with the "
    "complete corrected `{name}` function, with the same signature `{signature}`, in one ```{fence} code block, "
    "and nothing after it."
)

IMPROVE = {
    "serial": (
        "Your rewrite is correct, but it is not faster: the original takes {baseline} and your rewrite {candidate} "
        "({ratio}). Find a change that makes a real difference on one core (memory access order, work hoisted out "
        "of loops, a better algorithm), still without OpenMP or threads."
    ),
    "openmp": (
        "Your parallel rewrite is correct, but it is not faster: with {threads} threads it takes {candidate}, and "
        "the original on 1 thread takes {baseline} ({ratio}). Make it scale: parallelize the outermost loop that "
        "does most of the work, keep enough work per thread, avoid critical sections and atomics in hot loops, and "
        "use only `parallel for`, `reduction`, `collapse` and `schedule`."
    ),
}

IMPROVE_ASK = (
    "Reply with the complete faster `{name}` function, with the same signature `{signature}`, in one ```{fence} "
    "code block, and nothing after it."
)


@dataclass(frozen=True)
class FeedbackTurn:
    """A follow-up turn: ``kind`` is ``repair`` or ``improve``; ``text`` what the model is told."""

    kind: str
    text: str
    messages: list[dict[str, str]]


def feedback_kind(verdict: Verdict) -> str | None:
    """``repair`` for a candidate that failed, ``improve`` for a correct one not verified faster, else None."""
    if verdict.status in REPAIR_STATUSES:
        return "repair"
    if verdict.status in IMPROVE_STATUSES and verdict.speedup is not None:
        return "improve"
    return None


def build_feedback(first_messages: list[dict[str, str]], function_info: FunctionLike, mode: str,
                   settings: Settings, code: str, verdict: Verdict, raw: str = "") -> FeedbackTurn | None:
    """The follow-up turn for one candidate and its verdict, or None when there is nothing to ask for.

    ``code`` is the extracted candidate; when there is none, a reply (``raw``) that held no whole
    function is sent back as it was, with a request for the whole function.
    """
    kind = feedback_kind(verdict)
    no_code = not code.strip()
    if kind is None or (no_code and not (kind == "repair" and raw.strip()
                                         and verdict.detail.startswith("no usable code"))):
        return None
    language = function_info.language
    fields = {
        "name": function_info.name,
        "signature": " ".join(function_info.signature.split()),
        "fence": _fence(language),
        "compiler": _compiler(language, settings),
        "flags": " ".join(settings.cflags),
        "openmp_flag": " -fopenmp" if mode == "openmp" else "",
        "language_name": "C++" if language == "cpp" else "C",
        "threads": verdict.threads,
    }
    if no_code:
        detail = _short(verdict.detail.removeprefix("no usable code: "))
        parts = [NO_CODE.format(detail=detail, **fields), REPAIR_ASK.format(goal="", **fields)]
    elif kind == "repair":
        detail = _short(_without_seed(verdict.detail))
        parts = [REPAIR[verdict.status].format(detail=detail, **fields)]
        if verdict.status is Status.INCORRECT and verdict.example:
            parts.append(EXAMPLE.format(example=verdict.example))
        hint = _hint(detail, code) if verdict.status is Status.COMPILE_ERROR else None
        if hint:
            parts.append(hint)
        goal = " in parallel with OpenMP" if mode == "openmp" else ""
        parts.append(REPAIR_ASK.format(goal=goal, **fields))
    else:
        parts = [IMPROVE[mode].format(baseline=_ms(verdict.baseline_ms), candidate=_ms(verdict.candidate_ms),
                                      ratio=_ratio(verdict.speedup), **fields),
                 IMPROVE_ASK.format(**fields)]
    text = "\n\n".join(parts)
    if no_code:
        answer = {"role": "assistant", "content": raw.strip()[:4000]}
    else:
        answer = {"role": "assistant", "content": f"```{fields['fence']}\n{code.strip()}\n```"}
    return FeedbackTurn(kind, text, [*first_messages, answer, {"role": "user", "content": text}])


def _without_seed(detail: str) -> str:
    """A checker's message without the case's seed, which tells the model nothing."""
    return re.sub(r", seed -?\d+(?=\))", "", detail)


def _short(detail: str, limit: int = 400) -> str:
    line = " ".join(detail.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _hint(detail: str, code: str) -> str | None:
    """The hint for the compiler's first error, by its message or by the candidate's line it names."""
    named = re.match(r"line (\d+):", detail)
    lines = code.splitlines()
    line = lines[int(named.group(1)) - 1] if named and 0 < int(named.group(1)) <= len(lines) else ""
    quoted = re.search(r"[‘'`]([A-Za-z_]\w*)[’']", detail)
    if quoted and re.search(r"has not been declared|undeclared|was not declared", detail):
        outside = _outside_its_loop(quoted.group(1), lines, int(named.group(1)) if named else 0)
        if outside:
            return outside
    # what the message says first; then what the line holds, for a message that does not say it
    found = next((h for h in HINTS if h.message and re.search(h.message, detail, re.IGNORECASE)), None) \
        or next((h for h in HINTS if h.line and re.search(h.line, line)), None)
    return found.text.format(quoted=quoted.group(1) if quoted else "the name") if found else None


def _outside_its_loop(variable: str, lines: list[str], used_at: int) -> str | None:
    """The hint for a loop variable used outside the loop that declares it, naming both lines; else None."""
    declares = re.compile(rf"\bfor\s*\(\s*[\w:<>\s]*?\b{re.escape(variable)}\s*(=|:)")
    loops = [n for n, text in enumerate(lines, 1) if declares.search(text)]
    if not loops or not 0 < used_at <= len(lines):
        return None
    loop = min(loops, key=lambda n: abs(n - used_at))
    header = " ".join(lines[loop - 1].split())
    use = " ".join(lines[used_at - 1].split())
    where = "before" if used_at < loop else "after"
    return (f"`{variable}` exists only inside the loop that declares it (line {loop}: `{header}`), but line {used_at} "
            f"(`{use}`) uses it {where} that loop. Move that statement into the loop, or compute it per `{variable}` "
            f"inside a loop over `{variable}` as the original does; do not hoist work that depends on `{variable}` "
            f"out of its loop.")


def _ms(value: float | None) -> str:
    if value is None:
        return "an unknown time"
    return f"{value:.3g} ms" if value >= 0.01 else f"{value * 1000:.3g} µs"


def _ratio(speedup: float | None) -> str:
    if not speedup:
        return "no measurable difference"
    if speedup >= 1.0:
        return f"{speedup:.2f}× as fast, within the noise"
    return f"{1 / speedup:.2f}× slower"

"""Size expressions: the corners an index reaches over its loops, and the element count that holds them.

An array's size hypotheses are C expressions of the length parameters (and
the problem size ``PF_N``). :func:`max_index` substitutes each loop
variable's lowest and highest value into an index (``a[i*n + j]``) and
gives the corners; :func:`size_of` turns corners into an element count,
written as a plain polynomial of the lengths (``n * n``) when one corner is
the largest for every length, else as nested ``perfalign_max`` calls that
the glue evaluates.
"""
from __future__ import annotations

import ast
import re

from ... import cparse

PROBLEM_SIZE = "PF_N"  # the problem size, for sizes that no length parameter gives
IDENT = re.compile(r"[A-Za-z_]\w*")
_C_WORDS = {"sizeof", "int", "long", "unsigned", "size_t", "double", "float", "char"}


def max_index(expr: str, loops: dict[str, cparse.LoopRange], allowed: set[str], depth: int = 0,
               local: dict[str, str] | None = None) -> list[str] | None:
    """The corners of ``expr`` over the loop ranges, or None when it uses something else.

    A local set once from the loop variables (``int c = (i*n + j)*n + k;``) stands for its value.
    """
    if depth > 6:
        return None
    for ident in IDENT.findall(expr):
        if local and ident in local and ident not in loops:
            return max_index(re.sub(rf"\b{re.escape(ident)}\b", f"({local[ident]})", expr), loops, allowed, depth + 1,
                              {k: v for k, v in local.items() if k != ident})
        if ident in loops:
            r = loops[ident]
            out: list[str] = []
            for bound in (r.lo, r.hi):
                sub = re.sub(rf"\b{re.escape(ident)}\b", f"({bound})", expr)
                corners = max_index(sub, loops, allowed, depth + 1, local)
                if corners is None:
                    return None
                out.extend(corners)
                if len(out) > 32:
                    return None
            return out
        if ident not in allowed and not ident.isupper() and ident not in _C_WORDS:
            return None
    return [expr]


def size_of(corners: list[str]) -> str:
    """The element count that holds every corner: the largest corner plus one (as plain a polynomial as may be)."""
    symbolic = [c for c in corners if IDENT.search(c)]
    sizes = list(dict.fromkeys(_plus_one(c) for c in dict.fromkeys(symbolic or corners)))
    return _dominant(sizes) or _max_expr(sizes)


Poly = dict[tuple[str, ...], int]  # monomial (sorted names) -> coefficient


def _poly(node: ast.AST) -> Poly:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return {(): node.value}
    if isinstance(node, ast.Name):
        return {(node.id,): 1}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return {k: -v for k, v in _poly(node.operand).items()}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        x, y = _poly(node.left), _poly(node.right)
        out: Poly = {}
        if isinstance(node.op, ast.Mult):
            for kx, vx in x.items():
                for ky, vy in y.items():
                    key = tuple(sorted(kx + ky))
                    out[key] = out.get(key, 0) + vx * vy
        else:
            sign = 1 if isinstance(node.op, ast.Add) else -1
            out = dict(x)
            for k, v in y.items():
                out[k] = out.get(k, 0) + sign * v
        return {k: v for k, v in out.items() if v}
    raise ValueError("not a polynomial")


def _poly_at(poly: Poly, values: dict[str, int]) -> int:
    total = 0
    for names, coef in poly.items():
        term = coef
        for n in names:
            term *= values[n]
        total += term
    return total


def _poly_text(poly: Poly) -> str:
    if not poly:
        return "0"
    parts = []
    for names, coef in sorted(poly.items(), key=lambda kv: (-len(kv[0]), kv[0])):
        factors = list(names) if abs(coef) == 1 and names else [str(abs(coef)), *names]
        parts.append(("- " if coef < 0 else "+ ") + " * ".join(factors))
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _dominant(sizes: list[str]) -> str | None:
    """One of ``sizes`` at least as large as every other for all lengths of 1 or more (and the constants beside it)."""
    try:
        polys = [_poly(ast.parse(size, mode="eval").body) for size in sizes]
    except (SyntaxError, ValueError, RecursionError):
        return None
    names = sorted({n for poly in polys for key in poly for n in key})
    best = None
    for low in (1, 4):  # lengths from 1 up; else from 4 up (loops such as i = 1; i < n - 1 run from n = 3)
        points = [dict.fromkeys(names, v) for v in (low, low + 1, low + 2, 7, 64)]
        points += [{n: (k * 7 + i * 3) % 9 + low for i, n in enumerate(names)} for k in range(12)]
        best = next((p for p in polys if all(_poly_at(p, pt) >= _poly_at(q, pt) for q in polys for pt in points)),
                    None)
        if best is not None:
            break
    if best is None:
        return None
    # With a length of 0 a loop does not run, but an index outside every loop (a[0]) still needs its element.
    constants = [poly.get((), 0) for poly in polys if all(key == () for key in poly)]
    text = _poly_text(best)
    if constants and max(constants) > 0 and best != {(): max(constants)}:
        return f"perfalign_max({text}, {max(constants)})"
    return text


def value_at(expr: str, lengths: set[str]) -> int | None:
    """``expr`` with every length (and the problem size) at 11, when it is whole-number arithmetic of them."""
    text = expr.replace("perfalign_max", "max").replace(PROBLEM_SIZE, "11")
    try:
        return _evaluate(ast.parse(text, mode="eval").body, lengths)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _evaluate(node: ast.AST, lengths: set[str]) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name) and node.id in lengths:
        return 11
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, lengths)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        x, y = _evaluate(node.left, lengths), _evaluate(node.right, lengths)
        ops = {ast.Add: x + y, ast.Sub: x - y, ast.Mult: x * y}
        return ops[type(node.op)] if type(node.op) in ops else int(x / y)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "max" and node.args:
        return max(_evaluate(a, lengths) for a in node.args)
    raise ValueError("not whole-number arithmetic of the lengths")


def _simplify(expr: str) -> str:
    prev = None
    while prev != expr:
        prev = expr
        expr = re.sub(r"\(\s*(\w+)\s*\)", r"\1", expr)
        expr = re.sub(r"^\((.*)\)$", lambda m: m.group(1) if _balanced(m.group(1)) else m.group(0), expr)
    return expr


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _plus_one(expr: str) -> str:
    expr = _simplify(expr)
    m = re.fullmatch(r"(.+?)\s*-\s*1", expr)
    if m and _balanced(m.group(1)):
        return _simplify(m.group(1))
    return f"{expr} + 1"


def _max_expr(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return f"perfalign_max({_max_expr(items[:mid])}, {_max_expr(items[mid:])})"

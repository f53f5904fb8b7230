"""What a function's body does, read off its tree: loop ranges, subscripts, writes to names outside it."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ._info import FunctionInfo
from ._params import base_name, subscript_parts
from ._tree import node_text, parse, walk


@dataclass
class LoopRange:
    """The lowest and highest value of a loop variable, as C expressions."""

    lo: str
    hi: str


def loop_ranges(info: FunctionInfo) -> dict[str, LoopRange]:
    """Loop variables of ``for`` loops and their lowest and highest values, as C expressions."""
    tree = parse(info.text, info.language)
    ranges: dict[str, LoopRange] = {}
    for node in walk(tree.root_node):
        if node.type != "for_statement":
            continue
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        upd = node.child_by_field_name("update")
        if init is None or cond is None or upd is None:
            continue
        var, start = _loop_init(init)
        if var is None or start is None:
            continue
        upd_text = node_text(upd).replace(" ", "")
        increasing = upd_text in {f"{var}++", f"++{var}"} or upd_text.startswith(f"{var}+=")
        decreasing = upd_text in {f"{var}--", f"--{var}"} or upd_text.startswith(f"{var}-=")
        bound = _loop_bound(cond, var)
        if bound is None:
            continue
        op, expr = bound
        if increasing and op in {"<", "!="}:
            ranges.setdefault(var, LoopRange(start, f"({expr}) - 1"))
        elif increasing and op == "<=":
            ranges.setdefault(var, LoopRange(start, f"({expr})"))
        elif decreasing and op == ">=":
            ranges.setdefault(var, LoopRange(f"({expr})", start))
        elif decreasing and op == ">":
            ranges.setdefault(var, LoopRange(f"({expr}) + 1", start))
    return ranges


def _loop_init(init: Any) -> tuple[str | None, str | None]:
    if init.type == "declaration":
        d = init.child_by_field_name("declarator")
        if d is not None and d.type == "init_declarator":
            name = d.child_by_field_name("declarator")
            value = d.child_by_field_name("value")
            if name is not None and value is not None:
                return node_text(name), f"({node_text(value)})"
    if init.type == "assignment_expression":
        left = init.child_by_field_name("left")
        right = init.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier":
            return node_text(left), f"({node_text(right)})"
    if init.type == "comma_expression" or init.type == "expression_statement":
        first = init.named_children[0] if init.named_children else None
        if first is not None:
            return _loop_init(first)
    return None, None


def _loop_bound(cond: Any, var: str) -> tuple[str, str] | None:
    for node in walk(cond):
        if node.type != "binary_expression":
            continue
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        if left is None or right is None or op is None:
            continue
        o = node_text(op)
        flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
        if o not in flip:
            continue
        if node_text(left) == var:
            return o, node_text(right)
        if node_text(right) == var:
            return flip[o], node_text(left)
    return None



def local_definitions(info: FunctionInfo) -> dict[str, str]:
    """Locals declared once with a value and never assigned again (``int c = (i*n + j)*n + k;``): name -> value."""
    tree = parse(info.text, info.language)
    values: dict[str, list[str]] = {}
    assigned: set[str] = set()
    for node in walk(tree.root_node):
        if node.type == "init_declarator":
            name = node.child_by_field_name("declarator")
            value = node.child_by_field_name("value")
            if name is not None and name.type == "identifier" and value is not None and value.type != "argument_list":
                values.setdefault(node_text(name), []).append(node_text(value))
        elif node.type in {"assignment_expression", "update_expression"}:
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            if target is not None and target.type == "identifier":
                assigned.add(node_text(target))
    return {k: v[0] for k, v in values.items() if len(v) == 1 and k not in assigned}


def _one_index_subscripts(info: FunctionInfo) -> Iterator[tuple[Any, str]]:
    """Every subscript with one index in the function: the subscripted node and the index as written."""
    for node in walk(parse(info.text, info.language).root_node):
        if node.type != "subscript_expression":
            continue
        arg, idxs = subscript_parts(node)
        if arg is not None and len(idxs) == 1:
            yield arg, node_text(idxs[0])


def index_expressions(info: FunctionInfo, name: str) -> list[str]:
    """The index of every one-index subscript ``name[i]`` in the function, as written."""
    return [index for arg, index in _one_index_subscripts(info) if node_text(arg) == name]


def column_expressions(info: FunctionInfo, name: str) -> list[str]:
    """The second index of every ``name[i][j]`` in the function, as written."""
    out: list[str] = []
    for arg, index in _one_index_subscripts(info):
        if arg.type != "subscript_expression":
            continue
        inner, _ = subscript_parts(arg)
        if inner is not None and node_text(inner) == name:
            out.append(index)
    return out


def global_writes(info: FunctionInfo) -> list[str]:
    """Names outside the function (globals) that its body assigns to."""
    tree = parse(info.text, info.language)
    local = {p.name for p in info.params}
    assigned: list[str] = []
    for node in walk(tree.root_node):
        if node.type in {"declaration", "parameter_declaration", "for_range_loop"}:
            for d in walk(node):
                if d.type == "identifier" and d.parent is not None and d.parent.type in {
                    "init_declarator", "declaration", "pointer_declarator", "array_declarator", "reference_declarator",
                    "parameter_declaration", "for_range_loop", "function_declarator",
                }:
                    # A local built by a constructor call (std::vector<bool> visited(n, false); T x(y);) reads
                    # to tree-sitter as the declaration of a function: its name is a local all the same.
                    if d.parent.type not in {"init_declarator", "function_declarator"} or (
                        d.parent.child_by_field_name("declarator") == d
                    ):
                        local.add(node_text(d))
        elif node.type in {"assignment_expression", "update_expression"}:
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            base = base_name(target)
            if base is not None:
                assigned.append(base)
    return list(dict.fromkeys(n for n in assigned if n not in local and n != info.name))

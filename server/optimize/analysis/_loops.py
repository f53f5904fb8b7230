"""A function's loops as a tree, and what the code inside a loop reads, writes and calls, read off tree-sitter.

Lines are the file's, counted from 1, so that a finding can say where it is.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...cparse import FunctionInfo, base_name, node_text, parse, subscript_parts, walk

LOOP_TYPES = frozenset({"for_statement", "while_statement", "do_statement", "for_range_loop"})
_COMPOUND = ("+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=")


@dataclass
class Loop:
    """One loop: its variable (of a counted ``for``), its header as written, where it is, the loops inside it."""

    node: Any
    var: str | None
    header: str
    line: int
    bound: str | None  # the bound of a counted loop's condition, e.g. ``n`` in ``i < n``
    start: str | None  # the variable's first value, e.g. ``0``
    parent: Loop | None = None
    children: list[Loop] = field(default_factory=list)

    @property
    def body(self) -> Any:
        if self.node.type == "for_range_loop":
            return self.node.child_by_field_name("body")
        body = self.node.child_by_field_name("body")
        return body if body is not None else self.node

    @property
    def name(self) -> str:
        """``the loop over `i``` or ``the loop at line 12``."""
        return f"the loop over `{self.var}`" if self.var else f"the loop at line {self.line}"

    @property
    def innermost(self) -> bool:
        return not self.children

    def enclosing(self) -> list[Loop]:
        """The loops around this one, innermost first."""
        out, loop = [], self.parent
        while loop is not None:
            out.append(loop)
            loop = loop.parent
        return out


@dataclass
class FunctionTree:
    """The parsed function: its root node, its loops (outermost first, each with its children), its line offset."""

    info: FunctionInfo
    root: Any
    loops: list[Loop]
    first_line: int  # the file's line (from 1) of the function's first line

    def line_of(self, node: Any) -> int:
        return self.first_line + node.start_point[0]

    def all_loops(self) -> Iterator[Loop]:
        stack = list(reversed(self.loops))
        while stack:
            loop = stack.pop()
            yield loop
            stack.extend(reversed(loop.children))

    def lambdas(self) -> set[str]:
        """Names the function gives lambdas it defines (``auto area = [](…) {…};``)."""
        out = set()
        for n in walk(self.root):
            if n.type == "init_declarator":
                value = n.child_by_field_name("value")
                name = n.child_by_field_name("declarator")
                if value is not None and value.type == "lambda_expression" and name is not None:
                    out.add(node_text(name))
        return out

    def locals_declared_in(self, node: Any) -> set[str]:
        """Names declared inside ``node`` (so private to each iteration of a loop whose body it is)."""
        return {name for n in walk(node) if n.type == "declaration" for name in _declared(n)}


def function_tree(info: FunctionInfo) -> FunctionTree:
    """Parse the function and find its loops."""
    root = parse(info.text, info.language).root_node
    tree = FunctionTree(info, root, [], info.start_line + 1)
    _collect(root, None, tree)
    return tree


def _collect(node: Any, parent: Loop | None, tree: FunctionTree) -> None:
    for child in node.named_children:
        if child.type in LOOP_TYPES:
            loop = _loop(child, parent, tree)
            (parent.children if parent is not None else tree.loops).append(loop)
            _collect(child, loop, tree)
        else:
            _collect(child, parent, tree)


def _loop(node: Any, parent: Loop | None, tree: FunctionTree) -> Loop:
    var = start = bound = None
    if node.type == "for_statement":
        init = node.child_by_field_name("initializer")
        var, start = _init_var(init)
        cond = node.child_by_field_name("condition")
        if var is not None and cond is not None:
            bound = _bound(cond, var)
    elif node.type == "for_range_loop":
        declarator = node.child_by_field_name("declarator")
        var = _declarator_name(declarator) if declarator is not None else None
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None and node.type != "do_statement" else node.end_byte
    header = " ".join(node.text[: end - node.start_byte].decode("utf-8", "replace").split())
    if node.type == "do_statement":
        header = "do … while"
    return Loop(node=node, var=var, header=header, line=tree.line_of(node), bound=bound, start=start, parent=parent)


def _init_var(init: Any | None) -> tuple[str | None, str | None]:
    if init is None:
        return None, None
    if init.type == "declaration":
        for d in init.named_children:
            if d.type == "init_declarator":
                name = d.child_by_field_name("declarator")
                value = d.child_by_field_name("value")
                if name is not None and name.type == "identifier":
                    return node_text(name), node_text(value) if value is not None else None
        return None, None
    if init.type == "assignment_expression":
        left, right = init.child_by_field_name("left"), init.child_by_field_name("right")
        if left is not None and left.type == "identifier":
            return node_text(left), node_text(right) if right is not None else None
    return None, None


def _bound(cond: Any, var: str) -> str | None:
    if cond.type != "binary_expression":
        return None
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if left is None or right is None:
        return None
    if node_text(left) == var:
        return node_text(right)
    if node_text(right) == var:
        return node_text(left)
    return None


def _declarator_name(node: Any) -> str | None:
    while node is not None and node.type not in {"identifier", "field_identifier"}:
        node = node.child_by_field_name("declarator") or (node.named_children[-1] if node.named_children else None)
    return node_text(node) if node is not None else None


def _declared(declaration: Any) -> list[str]:
    names = []
    for d in declaration.named_children:
        if d.type in {"init_declarator", "identifier", "pointer_declarator", "array_declarator", "reference_declarator"}:
            name = _declarator_name(d.child_by_field_name("declarator") if d.type == "init_declarator" else d)
            if name:
                names.append(name)
    return names


# --- what code reads, writes and calls ----------------------------------------------------------------


def identifiers(node: Any) -> set[str]:
    """The variable names an expression or statement mentions (not fields, types or called functions' names)."""
    out = set()
    for n in walk(node):
        if n.type == "identifier" and not _is_called_name(n):
            out.add(node_text(n))
    return out


def _is_called_name(node: Any) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node


@dataclass(frozen=True)
class Write:
    """An assignment or update inside a loop: the target, its base name, the operator, the value (when any)."""

    node: Any
    target: Any
    name: str | None
    op: str  # "=", "+=", ..., "++", "--"
    value: Any | None


def writes(node: Any) -> list[Write]:
    """Every assignment, compound assignment, ``++`` and ``--`` under ``node``."""
    out = []
    for n in walk(node):
        if n.type == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            op = _operator(n, left, right)
            out.append(Write(n, left, base_name(left), op, right))
        elif n.type == "update_expression":
            arg = n.child_by_field_name("argument")
            op = "++" if "++" in node_text(n) else "--"
            out.append(Write(n, arg, base_name(arg), op, None))
    return out


def _operator(node: Any, left: Any, right: Any) -> str:
    for child in node.children:
        if not child.is_named:
            text = node_text(child)
            if text == "=" or text in _COMPOUND:
                return text
    return "="


def assigned_names(node: Any) -> set[str]:
    """The names written under ``node`` (the variable itself or the array it writes into) and declared there."""
    names = {w.name for w in writes(node) if w.name}
    for n in walk(node):
        if n.type == "declaration":
            names.update(_declared(n))
    return names


def calls(node: Any) -> list[tuple[Any, str, list[Any]]]:
    """``(call, function name as written, arguments)`` for every call under ``node``."""
    out = []
    for n in walk(node):
        if n.type == "call_expression":
            function = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            out.append((n, node_text(function) if function is not None else "",
                        list(args.named_children) if args is not None else []))
    return out


@dataclass(frozen=True)
class Access:
    """An array access: the whole expression, the array's name and the index expressions, outermost first."""

    node: Any
    name: str
    indices: list[Any]
    written: bool


def accesses(node: Any) -> list[Access]:
    """Every outermost subscript chain under ``node`` (``a[i][j]`` once, not also ``a[i]``)."""
    written = {w.target.id for w in writes(node) if w.target is not None}
    out = []
    for n in walk(node):
        if n.type != "subscript_expression":
            continue
        if n.parent is not None and n.parent.type == "subscript_expression" \
                and n.parent.child_by_field_name("argument") == n:
            continue  # the inner part of a chain
        indices: list[Any] = []
        current = n
        while current is not None and current.type == "subscript_expression":
            arg, idx = subscript_parts(current)
            indices = idx + indices
            current = arg
        name = base_name(n)
        if name is not None:
            out.append(Access(n, name, indices, n.id in written))
    return out


def terms(expression: Any) -> list[Any]:
    """The top-level terms of a sum: ``k*cols + i`` gives ``k*cols`` and ``i``."""
    return _operands(expression, {"+", "-"})


def factors(term: Any) -> list[Any]:
    """The factors of a product: ``k*cols`` gives ``k`` and ``cols``."""
    return _operands(term, {"*"})


def _operands(expression: Any, operators: set[str]) -> list[Any]:
    """The operands of a chain of ``operators`` (parentheses looked through), left to right."""
    node = expression
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node.type == "binary_expression":
        op = next((node_text(c) for c in node.children if not c.is_named), "")
        if op in operators:
            return (_operands(node.child_by_field_name("left"), operators)
                    + _operands(node.child_by_field_name("right"), operators))
    return [node]


def is_literal(node: Any) -> bool:
    return node.type in {"number_literal", "char_literal", "true", "false"} or (
        node.type == "sizeof_expression")


def inside(node: Any, ancestor: Any) -> bool:
    return ancestor.start_byte <= node.start_byte and node.end_byte <= ancestor.end_byte

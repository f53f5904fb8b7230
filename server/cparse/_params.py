"""Parameters of a function and their roles: what is read, written, or used as a length."""
from __future__ import annotations

import re
from typing import Any

from ._info import Param, Role
from ._tree import function_declarator, node_text, walk
from ._types import (
    FLOAT_WORDS, INTEGER_WORDS, RECORD_NAME, RESTRICT, container_of, is_integer_type, normalize_type, strip_qualifiers,
)


def read_params(node: Any, language: str, template_params: list[str]) -> list[Param]:
    fdecl = function_declarator(node)
    plist = fdecl.child_by_field_name("parameters") if fdecl is not None else None
    params: list[Param] = []
    if plist is None:
        return params
    for index, p in enumerate(c for c in plist.named_children if c.type != "comment"):
        if p.type == "variadic_parameter" or node_text(p) == "...":
            params.append(Param(name="...", type="...", role=Role.UNSUPPORTED, reason="variadic functions cannot be harnessed"))
            continue
        if p.type == "identifier":
            params.append(Param(name=node_text(p), type="", role=Role.UNSUPPORTED, reason=_kr_reason(node)))
            continue
        if p.type not in {"parameter_declaration", "optional_parameter_declaration"}:
            params.append(Param(name=f"arg{index}", type=node_text(p), role=Role.UNSUPPORTED, reason=f"parameter {node_text(p)!r} is not supported"))
            continue
        type_node = p.child_by_field_name("type")
        base = node_text(type_node) if type_node is not None else ""
        leading_quals = [node_text(c) for c in p.children if c.type == "type_qualifier"]
        decl = p.child_by_field_name("declarator")
        depth = 0
        ref = False
        inner_const = False
        restrict = False
        arrays = 0
        while decl is not None and decl.type in {"pointer_declarator", "reference_declarator", "array_declarator", "abstract_pointer_declarator"}:
            if decl.type == "pointer_declarator":
                depth += 1
                restrict = restrict or any(node_text(c) in RESTRICT for c in decl.children if c.type == "type_qualifier")
                if any(node_text(c) == "const" for c in decl.children if c.type == "type_qualifier") and depth > 1:
                    inner_const = True
            elif decl.type == "reference_declarator":
                ref = True
            else:
                arrays += 1
            decl = decl.child_by_field_name("declarator") or next(
                (c for c in decl.named_children if "declarator" in c.type or c.type == "identifier"), None
            )
        name = node_text(decl) if decl is not None and decl.type == "identifier" else f"arg{index}"
        is_const = "const" in leading_quals or bool(re.search(r"\bconst\b", base))
        elem = strip_qualifiers(base)
        if arrays:
            depth += arrays
        type_text = normalize_type(" ".join(leading_quals + [base]) + " " + "*" * depth + ("&" if ref else ""))
        param = Param(name=name, type=type_text, is_const=is_const, element_type=elem, pointer_depth=depth, is_reference=ref,
                      is_restrict=restrict)
        _classify(param, language, template_params, inner_const)
        if arrays > 1 and param.role is not Role.UNSUPPORTED:
            param.role = Role.UNSUPPORTED  # T a[][N] is no T **: one flat array serves
            param.reason = (f"{name}: {param.type!r} (an array of arrays) cannot be generated; "
                            "pass a flat array with its sizes (a[i*n + j])")
        params.append(param)
    if len(params) == 1 and params[0].type == "void" and params[0].pointer_depth == 0:
        return []
    return params



def _kr_reason(node: Any) -> str:
    """Why a K&R-style definition (``int add(a, b) int a; int b; {...}``) cannot be harnessed, and how to write it."""
    fdecl = function_declarator(node)
    name_node = fdecl.child_by_field_name("declarator") if fdecl is not None else None
    name = node_text(name_node) if name_node is not None else "the function"
    declared: dict[str, str] = {}
    for decl in (c for c in node.children if c.type == "declaration"):
        type_node = decl.child_by_field_name("type")
        for d in decl.children_by_field_name("declarator"):
            ident = next((n for n in walk(d) if n.type == "identifier"), None)
            if type_node is not None and ident is not None:
                declared[node_text(ident)] = f"{node_text(type_node)} {node_text(d)}"
    plist = fdecl.child_by_field_name("parameters") if fdecl is not None else None
    names = [node_text(c) for c in plist.named_children if c.type == "identifier"] if plist is not None else []
    typed = ", ".join(declared.get(n, f"int {n}") for n in names)
    ret = node.child_by_field_name("type")
    example = f"{node_text(ret) + ' ' if ret is not None else ''}{name}({typed})"
    return (f"{name}: it is a K&R-style definition (its parameter types are declared between the parameter "
            f"list and the body); write it with typed parameters, {example}, to verify it")


def _classify(param: Param, language: str, template_params: list[str], inner_const: bool) -> None:
    elem = param.element_type
    held = container_of(elem)
    if held is not None:
        container, inner, extent = held
        inner_held = container_of(inner)
        if container == "vector" and inner_held is not None and inner_held[0] == "string":
            # Strings, one after the other: the plan gives each a slot of its own.
            param.element_type, param.container = "char", "strings"
            param.role = Role.VECTOR_OUT if param.is_reference and not param.is_const else Role.VECTOR_IN
            if param.pointer_depth:
                param.role = Role.UNSUPPORTED
                param.reason = f"{param.name}: pointers to a vector are not supported; pass the vector by reference"
            return
        if container == "vector" and inner_held is not None and inner_held[0] == "vector" and (
            _is_plain(inner_held[1], template_params)
        ):
            # Rows of numbers: generated square, N rows of N.
            param.element_type, param.container = inner_held[1], "nested"
            param.role = Role.VECTOR_OUT if param.is_reference and not param.is_const else Role.VECTOR_IN
            if param.pointer_depth:
                param.role = Role.UNSUPPORTED
                param.reason = f"{param.name}: pointers to a vector are not supported; pass the vector by reference"
            return
        if inner_held is not None:
            param.role = Role.UNSUPPORTED
            param.reason = (f"{param.name}: {container}s of {inner} (nested containers) cannot be generated; "
                            "pass one flat vector and its sizes (a[i*n + j])")
            return
        if not _is_plain(inner, template_params) and not RECORD_NAME.match(inner):
            param.role = Role.UNSUPPORTED
            param.reason = f"{param.name}: {container}s of {inner} cannot be generated; use {container}s of numbers"
            return
        param.element_type = inner
        param.container = container
        param.extent = extent
        param.record = not _is_plain(inner, template_params)
        if param.pointer_depth:
            param.role = Role.UNSUPPORTED
            param.reason = (f"{param.name}: pointers to a {container} are not supported; "
                            f"pass the {container} by reference")
        elif param.is_reference and not param.is_const:
            param.role = Role.VECTOR_OUT
        else:
            param.role = Role.VECTOR_IN
        return
    plain = _is_plain(elem, template_params)
    if not plain and RECORD_NAME.match(elem) and elem not in {"void", "FILE"} and param.pointer_depth <= 1:
        param.record = True  # a struct or std::pair/tuple/complex: the plan reads its fields
        plain = True
    if param.pointer_depth == 0:
        if not plain:
            param.role = Role.UNSUPPORTED
            param.reason = f"{param.name}: parameters of type {param.type!r} cannot be generated"
        elif param.is_reference and not param.is_const:
            param.role = Role.REF_OUT
        else:
            param.role = Role.SCALAR
        return
    if param.pointer_depth == 2 and elem == "char" and param.is_const and not param.is_reference:
        param.container = "strings"  # const char **names with a count: strings the function reads
        param.role = Role.IN_ARRAY
        return
    if param.pointer_depth == 2 and plain and not param.record and not param.is_reference and elem != "char":
        param.container = "rows"  # T **a: rows of numbers, a[i][j], with their sizes as parameters
        param.role = Role.IN_ARRAY if param.is_const else Role.INOUT_ARRAY
        return
    if param.pointer_depth > 1 or param.is_reference:
        param.role = Role.UNSUPPORTED
        param.reason = (
            f"{param.name}: {param.type!r} (pointer to pointer) cannot be generated; "
            "pass a flat array with its sizes (a[i*n + j])"
        )
        return
    if not plain:
        param.role = Role.UNSUPPORTED
        param.reason = f"{param.name}: arrays of {elem!r} cannot be generated; arrays of numbers and strings can"
        return
    if elem == "char" and param.is_const:
        param.role = Role.STRING
        return
    param.role = Role.IN_ARRAY if param.is_const else Role.INOUT_ARRAY


def _is_plain(elem: str, template_params: list[str]) -> bool:
    """A number type (or a template parameter, or a typedef that can be resolved at compile time)."""
    words = elem.split()
    if elem in FLOAT_WORDS or elem in template_params:
        return True
    if all(w in INTEGER_WORDS for w in words):
        return True
    if re.fullmatch(r"[A-Za-z_]\w*(_t|_type)?", elem) and elem not in {"void", "FILE"} and not elem[0].isupper():
        return True  # a typedef such as real_t; resolved when compiled
    return bool(re.fullmatch(r"[A-Za-z_]\w*", elem)) and elem in template_params



def subscript_parts(node: Any) -> tuple[Any | None, list[Any]]:
    arg = node.child_by_field_name("argument")
    idx = node.child_by_field_name("index")
    if idx is not None:
        return arg, [idx]
    lst = next((c for c in node.children if c.type == "subscript_argument_list"), None)
    if lst is not None:
        return arg, [c for c in lst.named_children]
    return arg, []


def base_name(node: Any | None) -> str | None:
    while node is not None and node.type in {"parenthesized_expression", "subscript_expression", "field_expression", "pointer_expression"}:
        if node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "pointer_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "field_expression":
            node = node.child_by_field_name("argument")
        else:
            node = node.named_children[0] if node.named_children else None
    return node_text(node) if node is not None and node.type == "identifier" else None


def assign_roles(params: list[Param], body: Any) -> None:
    """Refine roles from the body: arrays written, integers used as loop bounds or indices."""
    names = {p.name: p for p in params}
    written: set[str] = set()
    read: set[str] = set()
    index_use: set[str] = set()
    deref_only: dict[str, bool] = {}
    pure_targets: set[int] = set()
    for node in walk(body):
        if node.type in {"assignment_expression", "update_expression"}:
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            base = base_name(target)
            if base in names and target is not None and target.type != "identifier":
                written.add(base)
                op = node.child_by_field_name("operator")
                if node.type == "update_expression" or (op is not None and node_text(op) != "="):
                    read.add(base)
                else:
                    pure_targets.add(target.id)
        elif node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            fn = node.child_by_field_name("function")
            for a in args.named_children if args is not None else []:
                base = base_name(a)
                if base in names and names[base].pointer_depth and not names[base].is_const:
                    written.add(base)  # passed on to a helper that may write it
                    read.add(base)
            if fn is not None and fn.type == "field_expression":
                base = base_name(fn.child_by_field_name("argument"))
                method = fn.child_by_field_name("field")
                if base in names and method is not None and node_text(method) in {
                    "push_back", "emplace_back", "resize", "clear", "assign", "insert", "erase", "swap", "pop_back", "fill"
                }:
                    written.add(base)
        elif node.type == "subscript_expression":
            arg, idxs = subscript_parts(node)
            base = base_name(arg)
            if base in names:
                if node.id not in pure_targets:
                    read.add(base)
                deref_only[base] = False
            for idx in idxs:
                for n in walk(idx):
                    if n.type == "identifier" and node_text(n) in names:
                        index_use.add(node_text(n))
        elif node.type == "pointer_expression" and node.child_by_field_name("operator") is not None:
            base = base_name(node.child_by_field_name("argument"))
            if base in names and node_text(node).startswith("*"):
                if node.id not in pure_targets:
                    read.add(base)
                deref_only.setdefault(base, True)
        elif node.type == "for_statement":
            # The bound is in the condition; a loop that runs backwards starts from it (i = n - 1; i >= 0; i--).
            parts = ["condition", "initializer"] if _runs_backwards(node) else ["condition"]
            for part in parts:
                n0 = node.child_by_field_name(part)
                for n in walk(n0) if n0 is not None else []:
                    if n.type == "identifier" and node_text(n) in names:
                        index_use.add(node_text(n))
        elif node.type in {"while_statement", "do_statement"}:
            cond = node.child_by_field_name("condition")
            for n in walk(cond) if cond is not None else []:
                if n.type == "identifier" and node_text(n) in names:
                    index_use.add(node_text(n))
        elif node.type == "field_expression":
            base = base_name(node.child_by_field_name("argument"))
            field_node = node.child_by_field_name("field")
            if base in names and field_node is not None and node_text(field_node) in {"data", "begin", "end"}:
                written.add(base) if not names[base].is_const else None
    for p in params:
        if p.role is Role.INOUT_ARRAY:
            if p.name in written and p.name not in read:
                p.role = Role.OUT_ARRAY
            elif p.name not in written:
                p.role = Role.INOUT_ARRAY if p.name in read else Role.INOUT_ARRAY
            if deref_only.get(p.name):
                p.size_expr = "1"
        elif p.role is Role.SCALAR and is_integer_type(p.type) and p.name in index_use:
            p.role = Role.LENGTH


def _runs_backwards(loop: Any) -> bool:
    """A ``for`` loop whose update decrements its variable (``i--``, ``--i``, ``i -= k``)."""
    update = loop.child_by_field_name("update")
    text = node_text(update).replace(" ", "") if update is not None else ""
    return text.endswith("--") or text.startswith("--") or "-=" in text

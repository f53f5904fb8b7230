"""The file-scope text a function needs to compile on its own."""
from __future__ import annotations

from typing import Any

from ._info import FunctionInfo
from ._tree import definitions, function_declarator, node_text, walk

_KEEP_TYPES = {
    "preproc_include", "preproc_def", "preproc_function_def", "preproc_call", "type_definition",
    "struct_specifier", "union_specifier", "enum_specifier", "class_specifier", "alias_declaration",
    "using_declaration", "namespace_alias_definition", "static_assert_declaration", "concept_definition",
}


def _identifiers(node: Any) -> set[str]:
    return {node_text(n) for n in walk(node) if n.type in {"identifier", "type_identifier", "field_identifier"}}


def _definition_name(node: Any) -> str | None:
    fdecl = function_declarator(node) if node.type == "function_definition" else None
    if fdecl is None:
        return None
    nm = fdecl.child_by_field_name("declarator")
    if nm is None:
        return None
    return node_text(nm).replace(" ", "").split("::")[-1]


def file_context(tree: Any, source: bytes, target: Any, info: FunctionInfo, language: str) -> str:
    """File-scope text the function needs: everything but other functions, plus the helpers it calls."""
    functions: dict[str, list[Any]] = {}
    for node in definitions(tree.root_node):
        if node is target or node.end_byte == target.end_byte:
            continue
        nm = _definition_name(node)
        if nm is not None:
            functions.setdefault(nm, []).append(node)
    needed: set[int] = set()
    todo = [target]
    seen_names: set[str] = set()
    while todo:
        node = todo.pop()
        for ident in _identifiers(node):
            if ident in functions and ident not in seen_names and ident != "main":
                seen_names.add(ident)
                for fn in functions[ident]:
                    needed.add(fn.end_byte)
                    todo.append(fn)
    out: list[str] = []
    _emit(tree.root_node, source, target, needed, out)
    return "\n".join(s for s in out if s.strip()) + "\n"


def _emit(node: Any, source: bytes, target: Any, needed: set[int], out: list[str]) -> None:
    _emit_children(node.children, source, target, needed, out)


def _emit_children(children: list[Any], source: bytes, target: Any, needed: set[int], out: list[str]) -> None:
    previous: Any = None
    for child in children:
        t = child.type
        if t == ";" and previous is not None and previous.type in {
            "struct_specifier", "union_specifier", "enum_specifier", "class_specifier"
        } and out:
            out[-1] += ";"  # a type definition's semicolon is a separate node
        previous = child
        if child.end_byte == target.end_byte or (t == "template_declaration" and child.end_byte == target.end_byte):
            continue
        if t == "function_definition" or (t == "template_declaration" and any(c.type == "function_definition" for c in child.children)):
            fn = child if t == "function_definition" else next(c for c in child.children if c.type == "function_definition")
            if fn.end_byte in needed:
                out.append(node_text(child))
            continue
        if t == "namespace_definition":
            name = child.child_by_field_name("name")
            body = child.child_by_field_name("body")
            inner: list[str] = []
            if body is not None:
                _emit(body, source, target, needed, inner)
            head = f"namespace {node_text(name)} {{" if name is not None else "namespace {"
            out.append(head + "\n" + "\n".join(inner) + "\n}")
            continue
        if t == "linkage_specification":
            body = child.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                inner = []
                _emit(body, source, target, needed, inner)
                value = child.child_by_field_name("value")
                out.append(f"extern {node_text(value) if value is not None else chr(34) + 'C' + chr(34)} {{\n" + "\n".join(inner) + "\n}")
            elif body is not None:
                if body.type != "function_definition" or body.end_byte in needed:
                    out.append(node_text(child))
            continue
        if t in {"preproc_if", "preproc_ifdef"}:
            if child.start_byte <= target.start_byte < child.end_byte:
                _emit_branch(child, source, target, needed, out)
            elif not any(n.type == "function_definition" and _definition_name(n) == "main" for n in walk(child)):
                out.append(node_text(child))
            continue
        if t in {"declaration", "template_declaration", "field_declaration"} or t in _KEEP_TYPES:
            out.append(node_text(child))
        elif t in {"{", "}", "comment", "ERROR", ";"}:
            continue
        elif t.startswith("preproc"):
            out.append(node_text(child))
        elif t in {"expression_statement"}:
            continue
        else:
            out.append(node_text(child))


_DIRECTIVES = {"#if", "#ifdef", "#ifndef", "#elif", "#elifdef", "#elifndef", "#else", "#endif", "\n"}


def _emit_branch(node: Any, source: bytes, target: Any, needed: set[int], out: list[str]) -> None:
    """A conditional block holding the function: keep the branch it is in (assumed active), drop the others."""
    alternative = node.child_by_field_name("alternative")
    if alternative is not None and alternative.start_byte <= target.start_byte < alternative.end_byte:
        _emit_branch(alternative, source, target, needed, out)
        return
    skip = {id(n) for n in (node.child_by_field_name("name"), node.child_by_field_name("condition"), alternative) if n is not None}
    spans = {(n.start_byte, n.end_byte) for n in (node.child_by_field_name("name"), node.child_by_field_name("condition"), alternative) if n is not None}
    kept = [c for c in node.children if c.type not in _DIRECTIVES and (c.start_byte, c.end_byte) not in spans and id(c) not in skip]
    _emit_children(kept, source, target, needed, out)

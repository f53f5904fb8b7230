"""What a piece of code declares at file scope besides functions (variables, types); a definition's body."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._tree import definitions, node_text, parse

# Declarator wrappers between a declaration and the name it declares.
_WRAPPERS = frozenset({
    "init_declarator", "array_declarator", "pointer_declarator", "reference_declarator",
    "parenthesized_declarator", "attributed_declarator",
})
_TYPE_SPECIFIERS = frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"})


@dataclass(frozen=True)
class FileScopeDeclaration:
    """A variable or type declared at file scope: the names it declares and its text (with its ``;``)."""

    names: tuple[str, ...]
    text: str
    start_byte: int


def _declared_name(declarator: Any) -> str | None:
    """The identifier a declarator declares; None for a function declarator (a prototype)."""
    node = declarator
    while node is not None and node.type in _WRAPPERS:
        node = node.child_by_field_name("declarator") or next(
            (c for c in node.named_children if c.type not in {"attribute_declaration", "type_qualifier"}), None)
    if node is None or node.type == "function_declarator":
        return None
    if node.type in {"identifier", "type_identifier", "field_identifier"}:
        return node_text(node)
    return None


def _type_names(specifier: Any) -> list[str]:
    """What a struct/union/enum/class specifier with a body defines: its tag, and an enum's constants."""
    if specifier is None or specifier.type not in _TYPE_SPECIFIERS:
        return []
    body = specifier.child_by_field_name("body")
    if body is None:
        return []
    name = specifier.child_by_field_name("name")
    names = [node_text(name)] if name is not None else []
    if specifier.type == "enum_specifier":
        names += [node_text(e.child_by_field_name("name")) for e in body.named_children
                  if e.type == "enumerator" and e.child_by_field_name("name") is not None]
    return names


def file_scope_declarations(text: str, language: str) -> list[FileScopeDeclaration]:
    """Variables, typedefs and struct/union/enum/class definitions at the top level of ``text``, in order.

    Function prototypes, ``using`` lines, namespaces and templates are not listed.
    """
    root = parse(text, language).root_node
    out: list[FileScopeDeclaration] = []
    children = root.children
    for i, node in enumerate(children):
        if node.has_error:
            continue
        names: list[str] = []
        end = node.end_byte
        if node.type in {"declaration", "type_definition"}:
            names += _type_names(node.child_by_field_name("type"))
            for declarator in node.children_by_field_name("declarator"):
                name = _declared_name(declarator)
                if name:
                    names.append(name)
        elif node.type in _TYPE_SPECIFIERS:
            names += _type_names(node)
            if i + 1 < len(children) and children[i + 1].type == ";":
                end = children[i + 1].end_byte
        if names:
            source = text.encode("utf-8")
            out.append(FileScopeDeclaration(tuple(names), source[node.start_byte:end].decode("utf-8", "replace"),
                                            node.start_byte))
    return out


def body_span(function_text: str, language: str) -> tuple[str, str] | None:
    """A function definition's text split before its body's ``{``: (header, body); None if it is not one."""
    node = next(definitions(parse(function_text, language).root_node), None)
    body = node.child_by_field_name("body") if node is not None else None
    if body is None:
        return None
    source = function_text.encode("utf-8")
    return (source[:body.start_byte].decode("utf-8", "replace"),
            source[body.start_byte:].decode("utf-8", "replace"))

"""Find function definitions in a file: a cheap listing, or one function fully analysed."""
from __future__ import annotations

import re
from typing import Any

from ..errors import CParseError
from ..verdict import Status
from ._annotations import comment_above, parse_annotations
from ._context import file_context
from ._info import FunctionInfo
from ._macros import produced_by, produced_message, statement_argument, statement_message
from ._params import assign_roles, read_params
from ._tree import definitions, first_error_line, function_declarator, node_text, parser_for
from ._types import normalize_type


def _scope_of(node: Any) -> tuple[list[str], Any, list[str]]:
    """Enclosing namespaces, the outermost node of the definition (template prefix included) and template params."""
    namespaces: list[str] = []
    outer = node
    template_params: list[str] = []
    parent = node.parent
    if parent is not None and parent.type == "template_declaration":
        outer = parent
        plist = parent.child_by_field_name("parameters")
        if plist is not None:
            for p in plist.named_children:
                ident = next((c for c in p.named_children if c.type == "type_identifier"), None)
                if p.type in {"type_parameter_declaration", "optional_type_parameter_declaration"} and ident is not None:
                    template_params.append(node_text(ident))
    p = outer.parent
    while p is not None:
        if p.type == "namespace_definition":
            name = p.child_by_field_name("name")
            namespaces.insert(0, node_text(name) if name is not None else "")
        p = p.parent
    return namespaces, outer, template_params



def _char_col(line_bytes: bytes, col: int) -> int:
    return len(line_bytes[:col].decode("utf-8", errors="replace"))


def _basic_info(node: Any, source: bytes, lines: list[bytes], language: str) -> FunctionInfo | None:
    fdecl = function_declarator(node)
    if fdecl is None:
        return None
    name_node = fdecl.child_by_field_name("declarator")
    if name_node is None:
        return None
    written = node_text(name_node)
    if name_node.type in {"parenthesized_declarator"}:
        return None
    namespaces, outer, template_params = _scope_of(node)
    parts = [p for p in written.replace(" ", "").split("::") if p]
    if not parts:
        return None
    name = parts[-1]
    qualified = "::".join([n for n in namespaces if n] + parts)
    is_method = len(parts) > 1 and name_node.type == "qualified_identifier" and not _is_namespace_prefix(parts[:-1], source)
    body = node.child_by_field_name("body")
    body_start = body.start_byte if body is not None else node.end_byte
    specifiers = {node_text(c) for c in node.children if c.type == "storage_class_specifier"}
    specifiers |= {node_text(c) for c in node.children if c.type in {"inline", "virtual"}}
    sig_text = source[outer.start_byte:body_start].decode("utf-8", errors="replace").strip()
    type_node = node.child_by_field_name("type")
    ret = node_text(type_node) if type_node is not None else ""
    quals = [node_text(c) for c in node.children if c.type == "type_qualifier"]
    decl = node.child_by_field_name("declarator")
    stars = ""
    while decl is not None and decl.type in {"pointer_declarator", "reference_declarator"}:
        stars += "*" if decl.type == "pointer_declarator" else "&"
        decl = decl.child_by_field_name("declarator") or next(
            (c for c in decl.named_children if "declarator" in c.type), None
        )
    return_type = normalize_type(" ".join(quals + [ret]) + (" " + stars if stars else ""))
    sl, sc = outer.start_point
    el, ec = node.end_point
    return FunctionInfo(
        name=name,
        qualified_name=qualified,
        language=language,
        start_byte=outer.start_byte,
        end_byte=node.end_byte,
        start_line=sl,
        end_line=el,
        start_col=_char_col(lines[sl] if sl < len(lines) else b"", sc),
        end_col=_char_col(lines[el] if el < len(lines) else b"", ec),
        text=source[outer.start_byte:node.end_byte].decode("utf-8", errors="replace"),
        signature=normalize_type(sig_text),
        return_type=return_type,
        namespaces=[n for n in namespaces if n],
        template_params=template_params,
        is_method=is_method,
        is_static="static" in specifiers,
        is_inline="inline" in specifiers,
        body_start_byte=body_start,
    )


def _is_namespace_prefix(prefix: list[str], source: bytes) -> bool:
    """True when ``a::b`` in ``a::b::f`` names namespaces of this file rather than a class."""
    text = source.decode("utf-8", errors="replace")
    return all(re.search(rf"\bnamespace\s+{re.escape(p)}\b", text) for p in prefix)


def list_functions(text: str, language: str) -> list[FunctionInfo]:
    """Every function definition in ``text`` with its name and byte/line range (no deep analysis)."""
    source = text.encode("utf-8")
    tree = parser_for(language).parse(source)
    lines = source.split(b"\n")
    out = []
    for node in definitions(tree.root_node):
        info = _basic_info(node, source, lines, language)
        if info is not None:
            out.append(info)
    out.sort(key=lambda f: f.start_byte)
    return out


def _may_be(node: Any, name: str | None, line: int | None) -> bool:
    """Whether the definition ``node`` can be the one asked for, from its declarator's text and its lines alone."""
    if name is not None:
        fdecl = function_declarator(node)
        name_node = fdecl.child_by_field_name("declarator") if fdecl is not None else None
        last = name.replace(" ", "").split("::")[-1]
        return name_node is not None and last in node_text(name_node).replace(" ", "")
    assert line is not None
    parent = node.parent
    outer = parent if parent is not None and parent.type == "template_declaration" else node
    return outer.start_point[0] <= line <= node.end_point[0]


def _node_for(tree: Any, info: FunctionInfo) -> Any:
    for node in definitions(tree.root_node):
        if node.end_byte == info.end_byte:
            return node
    raise CParseError(Status.UNSUPPORTED, f"cannot locate {info.qualified_name} in the parse tree")


def _matches(info: FunctionInfo, name: str) -> bool:
    name = name.replace(" ", "")
    return info.qualified_name == name or info.name == name or info.qualified_name.endswith("::" + name)


def find_function(text: str, language: str, *, name: str | None = None, line: int | None = None) -> FunctionInfo:
    """The function named ``name`` (``f``, ``ns::f``, ``Class::method``) or the one containing 0-based ``line``."""
    if name is None and line is None:
        raise CParseError(Status.UNSUPPORTED, "say which function: give its name or a line inside it")
    source = text.encode("utf-8")
    tree = parser_for(language).parse(source)
    lines = source.split(b"\n")
    nodes = list(definitions(tree.root_node))
    # Only the definitions that may match are analysed (a file may hold tens of thousands of functions).
    may_match = [n for n in nodes if _may_be(n, name, line)]
    infos = [i for n in may_match if (i := _basic_info(n, source, lines, language))]
    if name is not None:
        found = [i for i in infos if _matches(i, name)]
        exact = [i for i in found if i.qualified_name == name.replace(" ", "")]
        found = exact or found
        if line is not None and len(found) > 1:
            found = [i for i in found if i.start_line <= line <= i.end_line] or found
    else:
        assert line is not None
        found = [i for i in infos if i.start_line <= line <= i.end_line]
        found.sort(key=lambda i: i.end_byte - i.start_byte)
        found = found[:1]
    if not found and name is not None and (made := produced_by(text, name)) is not None:
        raise CParseError(Status.UNSUPPORTED, produced_message(name, *made))
    if not found:
        infos = [i for n in nodes if (i := _basic_info(n, source, lines, language))]  # named in the message
        where = f"named {name!r}" if name is not None else f"at line {line + 1}" if line is not None else ""
        hint = ""
        if tree.root_node.has_error:
            err = first_error_line(tree.root_node)
            hint = f"; the file does not parse (syntax error at line {err + 1})" if err is not None else ""
        names = ", ".join(sorted({i.qualified_name for i in infos})[:12])
        known = f"; functions defined here: {names}" if names and not hint else ""
        raise CParseError(Status.UNSUPPORTED, f"no function {where} in this file{hint}{known}")
    if len(found) > 1:
        places = ", ".join(f"line {i.start_line + 1}" for i in found)
        raise CParseError(
            Status.UNSUPPORTED, f"{name!r} is defined more than once ({places}); give a line inside the one you mean"
        )
    info = found[0]
    node = _node_for(tree, info)
    if node.has_error:
        err = first_error_line(node)
        macro = statement_argument(text, err) if err is not None else None
        if macro is not None and err is not None:
            raise CParseError(Status.UNSUPPORTED, statement_message(info.qualified_name, err, macro))
        raise CParseError(
            Status.UNSUPPORTED,
            f"{info.qualified_name} does not parse (syntax error at line {(err or info.start_line) + 1}); fix it first",
        )
    info.params = read_params(node, language, info.template_params)
    body = node.child_by_field_name("body")
    if body is not None:
        assign_roles(info.params, body)
    info.annotations = parse_annotations(comment_above(source, info.start_byte))
    info.context = file_context(tree, source, node, info, language)
    return info

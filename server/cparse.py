"""Find a C or C++ function, its parameters and what it needs to compile on its own.

Built on tree-sitter. ``list_functions`` is cheap (one parse, no analysis of
bodies) so the language server can call it on every code-action request;
``find_function`` adds the parameter roles, the file-scope context and the
``perfalign:`` annotation comment above the function.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from perfalign.server.verdict import Status

C_EXTENSIONS = {".c"}
CPP_EXTENSIONS = {".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".C"}
_CPP_HINTS = re.compile(
    r"^\s*(namespace\b|template\s*<|class\s+\w+|using\s+namespace\b|#include\s*<(vector|string|algorithm|iostream|cmath|cstdlib|cstddef|cstdint|numeric|array|memory|map|unordered_map)>)",
    re.MULTILINE,
)
INTEGER_WORDS = {
    "int", "long", "short", "unsigned", "signed", "size_t", "ssize_t", "ptrdiff_t", "char",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "std::size_t", "std::ptrdiff_t", "std::int32_t", "std::int64_t", "std::uint32_t", "std::uint64_t",
    "intptr_t", "uintptr_t", "bool", "_Bool",
}
FLOAT_WORDS = {"float", "double", "long double"}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__"}


class Role(StrEnum):
    IN_ARRAY = "in_array"
    OUT_ARRAY = "out_array"
    INOUT_ARRAY = "inout_array"
    LENGTH = "length"
    SCALAR = "scalar"
    VECTOR_IN = "vector_in"
    VECTOR_OUT = "vector_out"
    REF_OUT = "ref_out"
    STRING = "string"
    UNSUPPORTED = "unsupported"


class CParseError(Exception):
    """A function that cannot be found or analysed; ``status`` and a one-line ``message``."""

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Param:
    name: str
    type: str  # as written, normalised spacing: "const double *", "std::vector<double> &"
    role: Role = Role.SCALAR
    is_const: bool = False  # the pointed-to / referenced value is const
    element_type: str = ""  # "double" for "const double *" and "std::vector<double> &"; the type for scalars
    size_expr: str | None = None  # element count as a C expression of the other parameters, when known
    pointer_depth: int = 0
    is_reference: bool = False
    reason: str = ""  # why the role is UNSUPPORTED


@dataclass
class FunctionInfo:
    name: str
    qualified_name: str
    language: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    start_col: int  # columns count characters, 0-based
    end_col: int
    text: str
    signature: str
    return_type: str
    params: list[Param] = field(default_factory=list)
    context: str = ""
    annotations: dict[str, Any] = field(default_factory=dict)
    namespaces: list[str] = field(default_factory=list)  # enclosing namespaces, outermost first
    template_params: list[str] = field(default_factory=list)  # type parameter names of a template
    is_method: bool = False  # defined out of line as Class::name
    is_static: bool = False
    is_inline: bool = False
    body_start_byte: int = 0  # the opening brace of the body


# --------------------------------------------------------------------------- parsing


@lru_cache(maxsize=2)
def _parser(language: str) -> Any:
    from tree_sitter import Language, Parser

    if language == "c":
        import tree_sitter_c as grammar
    elif language == "cpp":
        import tree_sitter_cpp as grammar  # type: ignore[no-redef]
    else:
        raise CParseError(Status.UNSUPPORTED, f"unknown language {language!r}; perfalign handles 'c' and 'cpp'")
    return Parser(Language(grammar.language()))


def parse(text: str, language: str) -> Any:
    """The tree-sitter tree of ``text``."""
    return _parser(language).parse(text.encode("utf-8"))


def language_for(path: Path) -> str:
    """"c" or "cpp" from the file extension; a ``.h`` header is C unless it holds C++."""
    suffix = path.suffix
    if suffix in CPP_EXTENSIONS or suffix.lower() in {s.lower() for s in CPP_EXTENSIONS if s != ".C"}:
        return "cpp"
    if suffix.lower() == ".h":
        try:
            head = path.read_text(encoding="utf-8", errors="replace")[:200_000]
        except OSError:
            return "c"
        return "cpp" if _CPP_HINTS.search(head) else "c"
    return "c"


def _txt(node: Any) -> str:
    return node.text.decode("utf-8", errors="replace")


def _norm(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([*&<>,])\s*", r" \1 ", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = text.replace("> >", ">>").replace("* *", "**").replace("& &", "&&")
    text = text.replace(" ,", ",").replace(" <", "<").replace("< ", "<").replace(" >", ">")
    return text


def _function_declarator(node: Any) -> Any | None:
    """The function_declarator inside a definition's declarator (through pointers and references)."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        if decl.type in {"pointer_declarator", "reference_declarator", "parenthesized_declarator", "attributed_declarator"}:
            inner = decl.child_by_field_name("declarator")
            if inner is None:
                inner = next((c for c in decl.named_children if "declarator" in c.type or c.type == "function_declarator"), None)
            decl = inner
        else:
            return None
    return decl


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
                    template_params.append(_txt(ident))
    p = outer.parent
    while p is not None:
        if p.type == "namespace_definition":
            name = p.child_by_field_name("name")
            namespaces.insert(0, _txt(name) if name is not None else "")
        p = p.parent
    return namespaces, outer, template_params


def _iter_definitions(root: Any) -> Iterator[Any]:
    """function_definition nodes at file scope, in namespaces, extern "C" blocks and templates (not in class bodies)."""
    stack = [root]
    while stack:
        node = stack.pop()
        for child in reversed(node.children):
            if child.type == "function_definition":
                yield child
            elif child.type in {
                "namespace_definition", "declaration_list", "linkage_specification", "template_declaration",
                "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "translation_unit",
            }:
                stack.append(child)


def _char_col(line_bytes: bytes, col: int) -> int:
    return len(line_bytes[:col].decode("utf-8", errors="replace"))


def _basic_info(node: Any, source: bytes, lines: list[bytes], language: str) -> FunctionInfo | None:
    fdecl = _function_declarator(node)
    if fdecl is None:
        return None
    name_node = fdecl.child_by_field_name("declarator")
    if name_node is None:
        return None
    written = _txt(name_node)
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
    specifiers = {_txt(c) for c in node.children if c.type == "storage_class_specifier"}
    specifiers |= {_txt(c) for c in node.children if c.type in {"inline", "virtual"}}
    sig_text = source[outer.start_byte:body_start].decode("utf-8", errors="replace").strip()
    type_node = node.child_by_field_name("type")
    ret = _txt(type_node) if type_node is not None else ""
    quals = [_txt(c) for c in node.children if c.type == "type_qualifier"]
    decl = node.child_by_field_name("declarator")
    stars = ""
    while decl is not None and decl.type in {"pointer_declarator", "reference_declarator"}:
        stars += "*" if decl.type == "pointer_declarator" else "&"
        decl = decl.child_by_field_name("declarator") or next(
            (c for c in decl.named_children if "declarator" in c.type), None
        )
    return_type = _norm(" ".join(quals + [ret]) + (" " + stars if stars else ""))
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
        signature=_norm(sig_text),
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
    tree = _parser(language).parse(source)
    lines = source.split(b"\n")
    out = []
    for node in _iter_definitions(tree.root_node):
        info = _basic_info(node, source, lines, language)
        if info is not None:
            out.append(info)
    out.sort(key=lambda f: f.start_byte)
    return out


def _node_for(tree: Any, info: FunctionInfo) -> Any:
    for node in _iter_definitions(tree.root_node):
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
    tree = _parser(language).parse(source)
    lines = source.split(b"\n")
    infos = [i for n in _iter_definitions(tree.root_node) if (i := _basic_info(n, source, lines, language))]
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
    if not found:
        where = f"named {name!r}" if name is not None else f"at line {line + 1}" if line is not None else ""
        hint = ""
        if tree.root_node.has_error:
            err = _first_error(tree.root_node)
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
        err = _first_error(node)
        raise CParseError(
            Status.UNSUPPORTED,
            f"{info.qualified_name} does not parse (syntax error at line {(err or info.start_line) + 1}); fix it first",
        )
    info.params = _params(node, language, info.template_params)
    body = node.child_by_field_name("body")
    if body is not None:
        _assign_roles(info.params, body)
    info.annotations = parse_annotations(_comment_above(source, info.start_byte))
    info.context = _context(tree, source, node, info, language)
    return info


def _first_error(node: Any) -> int | None:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return int(n.start_point[0])
        if n.has_error:
            stack.extend(reversed(n.children))
    return None


# --------------------------------------------------------------------------- parameters


def _strip_quals(text: str) -> str:
    words = [w for w in _norm(text).split(" ") if w not in _QUALIFIERS]
    return " ".join(words).strip()


def _params(node: Any, language: str, template_params: list[str]) -> list[Param]:
    fdecl = _function_declarator(node)
    plist = fdecl.child_by_field_name("parameters") if fdecl is not None else None
    params: list[Param] = []
    if plist is None:
        return params
    for index, p in enumerate(c for c in plist.named_children if c.type != "comment"):
        if p.type == "variadic_parameter" or _txt(p) == "...":
            params.append(Param(name="...", type="...", role=Role.UNSUPPORTED, reason="variadic functions cannot be harnessed"))
            continue
        if p.type not in {"parameter_declaration", "optional_parameter_declaration"}:
            params.append(Param(name=f"arg{index}", type=_txt(p), role=Role.UNSUPPORTED, reason=f"parameter {_txt(p)!r} is not supported"))
            continue
        type_node = p.child_by_field_name("type")
        base = _txt(type_node) if type_node is not None else ""
        leading_quals = [_txt(c) for c in p.children if c.type == "type_qualifier"]
        decl = p.child_by_field_name("declarator")
        depth = 0
        ref = False
        inner_const = False
        arrays = 0
        while decl is not None and decl.type in {"pointer_declarator", "reference_declarator", "array_declarator", "abstract_pointer_declarator"}:
            if decl.type == "pointer_declarator":
                depth += 1
                if any(_txt(c) == "const" for c in decl.children if c.type == "type_qualifier") and depth > 1:
                    inner_const = True
            elif decl.type == "reference_declarator":
                ref = True
            else:
                arrays += 1
            decl = decl.child_by_field_name("declarator") or next(
                (c for c in decl.named_children if "declarator" in c.type or c.type == "identifier"), None
            )
        name = _txt(decl) if decl is not None and decl.type == "identifier" else f"arg{index}"
        is_const = "const" in leading_quals or bool(re.search(r"\bconst\b", base))
        elem = _strip_quals(base)
        if arrays:
            depth += arrays
        type_text = _norm(" ".join(leading_quals + [base]) + " " + "*" * depth + ("&" if ref else ""))
        param = Param(name=name, type=type_text, is_const=is_const, element_type=elem, pointer_depth=depth, is_reference=ref)
        _classify(param, language, template_params, inner_const)
        params.append(param)
    if len(params) == 1 and params[0].type == "void" and params[0].pointer_depth == 0:
        return []
    return params


_VECTOR = re.compile(r"^(?:std\s*::\s*)?vector\s*<\s*(.+?)\s*>$")


def _classify(param: Param, language: str, template_params: list[str], inner_const: bool) -> None:
    elem = param.element_type
    vec = _VECTOR.match(elem)
    if vec:
        inner = _strip_quals(vec.group(1))
        if _VECTOR.match(inner) or not _is_plain(inner, template_params):
            param.role = Role.UNSUPPORTED
            param.reason = f"{param.name}: vectors of {inner} cannot be generated; use vectors of numbers"
            return
        param.element_type = inner
        if param.pointer_depth:
            param.role = Role.UNSUPPORTED
            param.reason = f"{param.name}: pointers to vectors are not supported; pass the vector by reference"
        elif param.is_reference and not param.is_const:
            param.role = Role.VECTOR_OUT
        else:
            param.role = Role.VECTOR_IN
        return
    if param.pointer_depth == 0:
        if not _is_plain(elem, template_params):
            param.role = Role.UNSUPPORTED
            param.reason = f"{param.name}: parameters of type {param.type!r} cannot be generated"
        elif param.is_reference and not param.is_const:
            param.role = Role.REF_OUT
        else:
            param.role = Role.SCALAR
        return
    if param.pointer_depth > 1 or param.is_reference:
        param.role = Role.UNSUPPORTED
        param.reason = (
            f"{param.name}: {param.type!r} (pointer to pointer) cannot be generated; "
            "pass a flat array with its sizes (a[i*n + j])"
        )
        return
    if not _is_plain(elem, template_params):
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


def is_integer_type(type_text: str) -> bool:
    words = _strip_quals(type_text).replace("&", "").split()
    return bool(words) and all(w in INTEGER_WORDS for w in words)


def is_float_type(type_text: str) -> bool:
    return _strip_quals(type_text).replace("&", "").strip() in FLOAT_WORDS


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _subscript_parts(node: Any) -> tuple[Any | None, list[Any]]:
    arg = node.child_by_field_name("argument")
    idx = node.child_by_field_name("index")
    if idx is not None:
        return arg, [idx]
    lst = next((c for c in node.children if c.type == "subscript_argument_list"), None)
    if lst is not None:
        return arg, [c for c in lst.named_children]
    return arg, []


def _base_name(node: Any | None) -> str | None:
    while node is not None and node.type in {"parenthesized_expression", "subscript_expression", "field_expression", "pointer_expression"}:
        if node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "pointer_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "field_expression":
            node = node.child_by_field_name("argument")
        else:
            node = node.named_children[0] if node.named_children else None
    return _txt(node) if node is not None and node.type == "identifier" else None


def _assign_roles(params: list[Param], body: Any) -> None:
    """Refine roles from the body: arrays written, integers used as loop bounds or indices."""
    names = {p.name: p for p in params}
    written: set[str] = set()
    read: set[str] = set()
    index_use: set[str] = set()
    deref_only: dict[str, bool] = {}
    pure_targets: set[int] = set()
    for node in _walk(body):
        if node.type in {"assignment_expression", "update_expression"}:
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            base = _base_name(target)
            if base in names and target is not None and target.type != "identifier":
                written.add(base)
                op = node.child_by_field_name("operator")
                if node.type == "update_expression" or (op is not None and _txt(op) != "="):
                    read.add(base)
                else:
                    pure_targets.add(target.id)
        elif node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            fn = node.child_by_field_name("function")
            for a in args.named_children if args is not None else []:
                base = _base_name(a)
                if base in names and names[base].pointer_depth and not names[base].is_const:
                    written.add(base)  # passed on to a helper that may write it
                    read.add(base)
            if fn is not None and fn.type == "field_expression":
                base = _base_name(fn.child_by_field_name("argument"))
                method = fn.child_by_field_name("field")
                if base in names and method is not None and _txt(method) in {
                    "push_back", "emplace_back", "resize", "clear", "assign", "insert", "erase", "swap", "pop_back", "fill"
                }:
                    written.add(base)
        elif node.type == "subscript_expression":
            arg, idxs = _subscript_parts(node)
            base = _base_name(arg)
            if base in names:
                if node.id not in pure_targets:
                    read.add(base)
                deref_only[base] = False
            for idx in idxs:
                for n in _walk(idx):
                    if n.type == "identifier" and _txt(n) in names:
                        index_use.add(_txt(n))
        elif node.type == "pointer_expression" and node.child_by_field_name("operator") is not None:
            base = _base_name(node.child_by_field_name("argument"))
            if base in names and _txt(node).startswith("*"):
                if node.id not in pure_targets:
                    read.add(base)
                deref_only.setdefault(base, True)
        elif node.type == "for_statement":
            for part in ("condition", "initializer", "update"):
                n0 = node.child_by_field_name(part)
                if n0 is not None and part == "condition":
                    for n in _walk(n0):
                        if n.type == "identifier" and _txt(n) in names:
                            index_use.add(_txt(n))
        elif node.type in {"while_statement", "do_statement"}:
            cond = node.child_by_field_name("condition")
            for n in _walk(cond) if cond is not None else []:
                if n.type == "identifier" and _txt(n) in names:
                    index_use.add(_txt(n))
        elif node.type == "field_expression":
            base = _base_name(node.child_by_field_name("argument"))
            field_node = node.child_by_field_name("field")
            if base in names and field_node is not None and _txt(field_node) in {"data", "begin", "end"}:
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


# --------------------------------------------------------------------------- annotations

_ANNOTATION = re.compile(r"perfalign\s*:(.*)", re.DOTALL)
_ITEM = re.compile(r"\s*(\w+)\s*(?:\(\s*([\w:]+)\s*\))?\s*=\s*")


def _comment_above(source: bytes, start: int) -> str:
    """The comment block directly above ``start`` (blank lines allowed in between, nothing else)."""
    before = source[:start].decode("utf-8", errors="replace")
    text = before.rstrip()
    comments: list[str] = []
    while True:
        if text.endswith("*/"):
            open_at = text.rfind("/*")
            if open_at < 0:
                break
            comments.insert(0, text[open_at + 2 : -2])
            text = text[:open_at].rstrip()
            continue
        last_nl = text.rfind("\n")
        last_line = text[last_nl + 1 :]
        if last_line.lstrip().startswith("//"):
            comments.insert(0, last_line.lstrip()[2:])
            text = text[: max(last_nl, 0)].rstrip()
            if last_nl < 0:
                break
            continue
        break
    return "\n".join(comments)


def _split_items(text: str) -> list[str]:
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if (ch == "," or ch == ";" or ch == "\n") and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    return [i.strip().strip("*").strip() for i in items if i.strip().strip("*").strip()]


def parse_annotations(comment: str) -> dict[str, Any]:
    """Parse ``perfalign: size(a)=n*n, range(idx)=0..n-1, value(k)=3, min(n)=1, type(T)=float, tolerance=1e-6``.

    Returns ``{"size": {"a": "n*n"}, "range": {...}, "value": {...}, "min": {...}, "type": {...}, "tolerance": 1e-6}``;
    an item perfalign does not understand is kept under ``"unknown"`` so the verifier can say so.
    """
    out: dict[str, Any] = {}
    for m in _ANNOTATION.finditer(comment):
        body = m.group(1)
        for item in _split_items(body):
            im = _ITEM.match(item)
            if not im:
                out.setdefault("unknown", []).append(item)
                continue
            key, arg, value = im.group(1), im.group(2), item[im.end():].strip().rstrip("*/").strip()
            if key in {"size", "range", "value", "min", "type"} and arg:
                out.setdefault(key, {})[arg] = value
            elif key == "tolerance" and not arg:
                try:
                    out["tolerance"] = float(value)
                except ValueError:
                    out.setdefault("unknown", []).append(item)
            else:
                out.setdefault("unknown", []).append(item)
    return out


# --------------------------------------------------------------------------- context

_KEEP_TYPES = {
    "preproc_include", "preproc_def", "preproc_function_def", "preproc_call", "type_definition",
    "struct_specifier", "union_specifier", "enum_specifier", "class_specifier", "alias_declaration",
    "using_declaration", "namespace_alias_definition", "static_assert_declaration", "concept_definition",
}


def _identifiers(node: Any) -> set[str]:
    return {_txt(n) for n in _walk(node) if n.type in {"identifier", "type_identifier", "field_identifier"}}


def _definition_name(node: Any) -> str | None:
    fdecl = _function_declarator(node) if node.type == "function_definition" else None
    if fdecl is None:
        return None
    nm = fdecl.child_by_field_name("declarator")
    if nm is None:
        return None
    return _txt(nm).replace(" ", "").split("::")[-1]


def _context(tree: Any, source: bytes, target: Any, info: FunctionInfo, language: str) -> str:
    """File-scope text the function needs: everything but other functions, plus the helpers it calls."""
    functions: dict[str, list[Any]] = {}
    for node in _iter_definitions(tree.root_node):
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
                out.append(_txt(child))
            continue
        if t == "namespace_definition":
            name = child.child_by_field_name("name")
            body = child.child_by_field_name("body")
            inner: list[str] = []
            if body is not None:
                _emit(body, source, target, needed, inner)
            head = f"namespace {_txt(name)} {{" if name is not None else "namespace {"
            out.append(head + "\n" + "\n".join(inner) + "\n}")
            continue
        if t == "linkage_specification":
            body = child.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                inner = []
                _emit(body, source, target, needed, inner)
                value = child.child_by_field_name("value")
                out.append(f"extern {_txt(value) if value is not None else chr(34) + 'C' + chr(34)} {{\n" + "\n".join(inner) + "\n}")
            elif body is not None:
                if body.type != "function_definition" or body.end_byte in needed:
                    out.append(_txt(child))
            continue
        if t in {"preproc_if", "preproc_ifdef"}:
            if child.start_byte <= target.start_byte < child.end_byte:
                _emit_branch(child, source, target, needed, out)
            elif not any(n.type == "function_definition" and _definition_name(n) == "main" for n in _walk(child)):
                out.append(_txt(child))
            continue
        if t in {"declaration", "template_declaration", "field_declaration"} or t in _KEEP_TYPES:
            out.append(_txt(child))
        elif t in {"{", "}", "comment", "ERROR", ";"}:
            continue
        elif t.startswith("preproc"):
            out.append(_txt(child))
        elif t in {"expression_statement"}:
            continue
        else:
            out.append(_txt(child))


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


# --------------------------------------------------------------------------- compile_commands.json


def compile_flags_for(path: Path) -> list[str]:
    """Include paths, defines and language flags for ``path`` from the nearest compile_commands.json.

    Output, input and dependency-file arguments are dropped; -I paths are made absolute.
    """
    path = path.resolve()
    for folder in path.parents:
        for db_path in (folder / "compile_commands.json", folder / "build" / "compile_commands.json"):
            if db_path.is_file():
                return _flags_from_db(db_path, path)
    return []


def _flags_from_db(db_path: Path, source: Path) -> list[str]:
    try:
        entries = json.loads(db_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(entries, list):
        return []
    best = None
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        directory = Path(entry.get("directory", db_path.parent))
        file = Path(entry.get("file", ""))
        file = file if file.is_absolute() else directory / file
        try:
            if file.resolve() == source:
                best = entry
                break
        except OSError:
            continue
        if best is None and file.parent.resolve() == source.parent:
            best = entry
    if best is None:
        return []
    directory = Path(best.get("directory", db_path.parent))
    args = best.get("arguments") or shlex.split(best.get("command", ""))
    return _useful_flags(list(args[1:]), directory)


def _useful_flags(args: list[str], directory: Path) -> list[str]:
    out: list[str] = []
    skip_next = False
    take_next: str | None = None
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if take_next is not None:
            value = arg if take_next != "-I" or Path(arg).is_absolute() else str((directory / arg).resolve())
            out += [take_next, value]
            take_next = None
            continue
        if arg in {"-o", "-MF", "-MT", "-MQ"}:
            skip_next = True
        elif arg in {"-I", "-D", "-U", "-isystem", "-include"}:
            take_next = arg
        elif arg.startswith("-I"):
            p = arg[2:]
            out.append("-I" + (p if Path(p).is_absolute() else str((directory / p).resolve())))
        elif arg.startswith(("-D", "-U", "-std=", "-f", "-m")) and not arg.startswith(
            ("-fdiagnostics", "-fcolor", "-fsanitize", "-fprofile", "-fcoverage", "-ftest-coverage", "-fdebug-prefix")
        ):
            out.append(arg)
        elif arg.startswith("-isystem"):
            out.append(arg)
    return out

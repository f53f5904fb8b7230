"""The tree-sitter wrapper: parse C and C++, walk the tree, read a node's text."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from ..errors import CParseError
from ..verdict import Status

C_EXTENSIONS = {".c"}
CPP_EXTENSIONS = {".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".C"}
_CPP_HINTS = re.compile(
    r"^\s*(namespace\b|template\s*<|class\s+\w+|using\s+namespace\b|#include\s*<(vector|string|algorithm|iostream|cmath|cstdlib|cstddef|cstdint|numeric|array|memory|map|unordered_map)>)",
    re.MULTILINE,
)


@lru_cache(maxsize=2)
def parser_for(language: str) -> Any:
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
    return parser_for(language).parse(text.encode("utf-8"))


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


def node_text(node: Any) -> str:
    """The source text of a tree-sitter node."""
    return node.text.decode("utf-8", errors="replace")



def walk(node: Any) -> Iterator[Any]:
    """``node`` and every node below it, in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))



def first_error_line(node: Any) -> int | None:
    """The 0-based line of the first syntax error under ``node``, or None."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return int(n.start_point[0])
        if n.has_error:
            stack.extend(reversed(n.children))
    return None



def function_declarator(node: Any) -> Any | None:
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




def definitions(root: Any) -> Iterator[Any]:
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

"""Find a C or C++ function, its parameters and what it needs to compile on its own.

Built on tree-sitter. :func:`list_functions` is cheap (one parse, no analysis
of bodies) so the language server can call it on every code-action request;
:func:`find_function` adds the parameter roles, the file-scope context and the
``perfalign:`` annotation comment above the function. The tree helpers
(:func:`parse`, :func:`walk`, :func:`node_text`) and the body analysis
(:func:`loop_ranges`, :func:`index_expressions`, :func:`global_writes`) are
what the verifier's harness reads a function with.
"""
from ..errors import CParseError
from ._annotations import parse_annotations
from ._body import LoopRange, column_expressions, global_writes, index_expressions, local_definitions, loop_ranges
from ._info import FunctionInfo, Param, Role
from ._lookup import find_function, list_functions
from ._params import base_name, subscript_parts
from ._records import Record, record_layout
from ._scope import FileScopeDeclaration, body_span, file_scope_declarations
from ._tree import first_error_line, language_for, node_text, parse, walk
from ._types import container_of, is_float_type, is_integer_type, vector_element

__all__ = [
    "CParseError",
    "FileScopeDeclaration",
    "FunctionInfo",
    "LoopRange",
    "Param",
    "Record",
    "Role",
    "base_name",
    "body_span",
    "column_expressions",
    "container_of",
    "find_function",
    "file_scope_declarations",
    "first_error_line",
    "global_writes",
    "index_expressions",
    "is_float_type",
    "is_integer_type",
    "language_for",
    "list_functions",
    "local_definitions",
    "loop_ranges",
    "node_text",
    "parse",
    "parse_annotations",
    "record_layout",
    "subscript_parts",
    "vector_element",
    "walk",
]

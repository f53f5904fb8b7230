"""What cparse tells about a function: its place, signature, parameters and their roles."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


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
    is_restrict: bool = False  # a pointer declared ``restrict``: never given the same buffer as another parameter
    reason: str = ""  # why the role is UNSUPPORTED
    container: str = ""  # "vector", "array" (std::array<T, N>), "string" (std::string), "strings"
    # (std::vector<std::string>, const char **), "nested" (std::vector<std::vector<T>>), "rows" (T **); "" for others
    extent: str = ""  # N of std::array<T, N>, as written
    record: bool = False  # the element is no number: a struct, std::pair, std::tuple or std::complex (see records)


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

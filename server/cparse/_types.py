"""C and C++ type names as written: number types, qualifiers, std::vector."""
from __future__ import annotations

import re

INTEGER_WORDS = {
    "int", "long", "short", "unsigned", "signed", "size_t", "ssize_t", "ptrdiff_t", "char",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "std::size_t", "std::ptrdiff_t", "std::int32_t", "std::int64_t", "std::uint32_t", "std::uint64_t",
    "intptr_t", "uintptr_t", "bool", "_Bool",
}
FLOAT_WORDS = {"float", "double", "long double"}
QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__"}
RESTRICT = {"restrict", "__restrict", "__restrict__"}


_PUNCTUATION = re.compile(r"\s*([*&<>,])\s*")


def normalize_type(text: str) -> str:
    text = " ".join(text.split())
    if _PUNCTUATION.search(text):
        text = " ".join(_PUNCTUATION.sub(lambda m: f" {m.group(1)} ", text).split())
    text = text.replace("> >", ">>").replace("* *", "**").replace("& &", "&&")
    text = text.replace(" ,", ",").replace(" <", "<").replace("< ", "<").replace(" >", ">")
    return text



def strip_qualifiers(text: str) -> str:
    words = [w for w in normalize_type(text).split(" ") if w not in QUALIFIERS]
    return " ".join(words).strip()



VECTOR_TYPE = re.compile(r"^(?:std\s*::\s*)?vector\s*<\s*(.+?)\s*>$")
ARRAY_TYPE = re.compile(r"^(?:std\s*::\s*)?array\s*<\s*(.+)\s*,\s*([^,<>]+?)\s*>$")
STRING_TYPE = re.compile(r"^(?:std\s*::\s*)?(?:string|basic_string\s*<\s*char\s*>)$")
RECORD_NAME = re.compile(
    r"^(?:(?:struct|class)\s+)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*$|^(?:std\s*::\s*)?(?:pair|tuple|complex)\s*<.*>$"
)


def container_of(type_text: str) -> tuple[str, str, str] | None:
    """``("vector", T, "")``, ``("array", T, N)`` or ``("string", "char", "")`` for those types, else None."""
    text = strip_qualifiers(type_text)
    if STRING_TYPE.match(text):
        return "string", "char", ""
    match = VECTOR_TYPE.match(text)
    if match:
        return "vector", strip_qualifiers(match.group(1)), ""
    match = ARRAY_TYPE.match(text)
    if match:
        return "array", strip_qualifiers(match.group(1)), match.group(2)
    return None



def vector_element(type_text: str) -> str | None:
    """The element type of ``std::vector<T>`` (qualifiers dropped), or None for another type."""
    match = VECTOR_TYPE.match(strip_qualifiers(type_text))
    return strip_qualifiers(match.group(1)) if match else None


def is_integer_type(type_text: str) -> bool:
    words = strip_qualifiers(type_text).replace("&", "").split()
    return bool(words) and all(w in INTEGER_WORDS for w in words)


def is_float_type(type_text: str) -> bool:
    return strip_qualifiers(type_text).replace("&", "").strip() in FLOAT_WORDS

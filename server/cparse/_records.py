"""Records of numbers: structs and classes whose fields are numbers, and std::pair, std::tuple, std::complex of them.

A record is the list of its leaf numbers, each with its name and type:
``struct Point {double x, y;}`` is two doubles, ``struct Body {Vec3 pos;
double mass;}`` is ``pos.x``, ``pos.y``, ``pos.z`` and ``mass``, and
``struct P {double c[3]; int n;}`` is ``c[0]`` .. ``c[2]`` (doubles) and ``n``
(an int). A record qualifies when it has no base class and no virtual
function, and holds no union, bit-field, pointer or flexible array member.
:func:`record_layout` says what a record type is made of, or why it cannot be
generated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._tree import node_text, parse, walk
from ._types import FLOAT_WORDS, INTEGER_WORDS, normalize_type, strip_qualifiers

_STD_RECORD = re.compile(r"^(?:std\s*::\s*)?(pair|tuple|complex)\s*<(.*)>$")


@dataclass
class Record:
    """A record as a run of numbers, one per leaf field (nested records and arrays flattened); ``reason`` says why not.

    ``field_type`` is the number type when every leaf has the same one; when they differ it is empty and
    ``types`` holds each leaf's type (the harness then keeps the record's own layout and compares field by field).
    """

    type: str
    field_type: str = ""
    names: list[str] = field(default_factory=list)  # one per number: "x", "y", "pos.x", "c[0]", ...
    reason: str = ""
    types: list[str] = field(default_factory=list)  # one per number: its type as written

    @property
    def count(self) -> int:
        return len(self.names)

    @property
    def mixed(self) -> bool:
        """The leaf fields are of different number types (``struct {double x; int id;}``)."""
        return not self.reason and not self.field_type and bool(self.names)


def split_template_args(text: str) -> list[str]:
    """``"double, std::pair<int, int>"`` -> ``["double", "std::pair<int, int>"]``."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "<(["
        depth -= ch in ">)]"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def is_number_word(text: str, typedefs: set[str] | None = None) -> bool:
    """A built-in number type, or a name the caller knows to be one (a typedef or a template parameter)."""
    text = strip_qualifiers(text)
    if text in FLOAT_WORDS or (typedefs and text in typedefs):
        return True
    words = text.split()
    return bool(words) and all(w in INTEGER_WORDS for w in words)


MAX_LEAVES = 256  # numbers in one record, nested records and arrays counted out


def record_layout(type_text: str, context: str, language: str, numbers: set[str] | None = None,
                  _depth: int = 0) -> Record | None:
    """What the record ``type_text`` is made of; None when it is no record (a number, or unknown to the context).

    ``numbers`` names further types to take for numbers (template arguments, typedefs of numbers). Fields that
    are records themselves (``Vec3 pos;``) and fixed-size arrays (``double c[3];``) are counted out, so a record
    is the list of its leaf numbers, each with its type.
    """
    type_text = strip_qualifiers(type_text)
    std = _STD_RECORD.match(normalize_type(type_text))
    if std:
        kind, args = std.group(1), split_template_args(std.group(2))
        if kind == "complex":
            args = args[:1] * 2
            names = ["real", "imag"]
        else:
            # A tuple's elements need not lie in their order in memory: its numbers go unnamed.
            names = ["first", "second"] if kind == "pair" else [""] * len(args)
        return _finish(Record(type_text), list(zip(names, args)), numbers)
    if re.match(r"union\b", type_text):
        return Record(type_text, reason=_UNION.format(type_text))
    name = re.sub(r"^(struct|class)\s+", "", type_text).split("::")[-1]
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    node = _definition(context, language, name)
    if node is None:
        return None
    return _fields_of(node, type_text, context, language, numbers, _depth)


_UNION = "{} is a union; perfalign cannot tell which of its members holds a value"


def _fields_of(node: Any, type_text: str, context: str, language: str, numbers: set[str] | None,
               depth: int) -> Record:
    """The leaf numbers of the struct or class ``node`` defines (nested records counted out)."""
    if node.type == "union_specifier":
        return Record(type_text, reason=_UNION.format(type_text))
    if any(c.type == "base_class_clause" for c in node.children):
        return Record(type_text, reason=f"{type_text} derives from another class")
    body = node.child_by_field_name("body")
    fields: list[tuple[str, str]] = []
    for member in body.named_children if body is not None else []:
        if member.type != "field_declaration":
            if member.type in {"function_definition", "declaration"} and "virtual" in node_text(member).split("(")[0]:
                return Record(type_text, reason=f"{type_text} has virtual functions")
            continue
        text = node_text(member)
        if any(n.type == "function_declarator" for n in walk(member)):
            if re.search(r"\bvirtual\b", text):
                return Record(type_text, reason=f"{type_text} has virtual functions")
            continue
        if re.search(r"\bstatic\b", text):
            continue
        if any(c.type == "bitfield_clause" for c in member.children):
            return Record(type_text, reason=f"the field {text.rstrip(';').strip()!r} of {type_text} is a bit-field; "
                                            "perfalign cannot generate bit-fields")
        ftype = member.child_by_field_name("type")
        ftext = node_text(ftype) if ftype is not None else ""
        inline = ftype if ftype is not None and ftype.type in {"struct_specifier", "class_specifier",
                                                                "union_specifier"} else None
        if inline is not None and inline.child_by_field_name("body") is None:
            inline = None  # ``struct Vec3 pos;``: a named record, looked up below
        declarators = member.children_by_field_name("declarator")
        if not declarators and inline is not None:
            declarators = [None]  # an anonymous struct or union member: its fields are the record's own
        for decl in declarators:
            counts: list[int] = []
            while decl is not None and decl.type == "array_declarator":
                size = decl.child_by_field_name("size")
                value = _constant(node_text(size), context) if size is not None else None
                if size is None:
                    return Record(type_text, reason=f"the field {node_text(decl)!r} of {type_text} is a flexible "
                                                    "array member; perfalign cannot tell how many elements it has")
                if value is None:
                    return Record(type_text,
                                  reason=f"the array field {node_text(decl)!r} of {type_text} has no fixed size")
                counts.insert(0, value)
                decl = decl.child_by_field_name("declarator")
            if decl is not None and decl.type in {"pointer_declarator", "reference_declarator"}:
                return Record(type_text, reason=f"the field {text.rstrip(';').strip()!r} of {type_text} is a "
                                                "pointer; perfalign cannot tell what it points to")
            if decl is not None and decl.type != "field_identifier":
                return Record(type_text, reason=f"the field {text!r} of {type_text} is not a number")
            total = 1
            for c in counts:
                total *= c
            label = node_text(decl) if decl is not None else ""
            labels = [label] if total == 1 else [f"{label}[{k}]" for k in range(total)]
            if inline is not None and inline.type == "union_specifier":
                return Record(type_text, reason=f"the field {label or text.strip()!r} of {type_text} is a union; "
                                                "perfalign cannot tell which of its members holds a value")
            if inline is not None or not is_number_word(ftext, numbers):
                inner = (_fields_of(inline, ftext, context, language, numbers, depth + 1) if inline is not None
                         else record_layout(ftext, context, language, numbers, depth + 1) if depth < 8 else None)
                if inner is None:
                    return Record(type_text, reason=f"{type_text} holds a {ftext}, not a number")
                if inner.reason:
                    return Record(type_text, reason=inner.reason)
                for at in labels:
                    fields += [(_join(at, n), t) for n, t in zip(inner.names, inner.types)]
            else:
                fields += [(at, ftext) for at in labels]
            if len(fields) > MAX_LEAVES:
                return Record(type_text, reason=f"{type_text} holds more than {MAX_LEAVES} numbers")
    if not fields:
        return Record(type_text, reason=f"{type_text} has no fields")
    return _finish(Record(type_text), fields, numbers)


def _join(outer: str, inner: str) -> str:
    """``pos`` and ``x`` -> ``pos.x``; an anonymous member's fields keep their own names."""
    if not outer:
        return inner
    return f"{outer}.{inner}" if inner else ""


def _constant(text: str, context: str) -> int | None:
    """An array bound: a number, or a name the context defines as one (``#define DIM 3``, ``enum { DIM = 3 }``)."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not re.fullmatch(r"[A-Za-z_]\w*", text):
        return None
    found = re.search(rf"#\s*define\s+{text}[ \t]+\(?\s*(\d+)\s*\)?\s*$", context, re.MULTILINE) or re.search(
        rf"\b{text}\s*=\s*(\d+)\b", context)
    return int(found.group(1)) if found else None


def _finish(record: Record, fields: list[tuple[str, str]], numbers: set[str] | None) -> Record:
    types = [strip_qualifiers(t) for _, t in fields]
    if not all(is_number_word(t, numbers) for t in types):
        bad = next(t for t in types if not is_number_word(t, numbers))
        record.reason = f"{record.type} holds a {bad}, not a number"
        return record
    record.names = [n for n, _ in fields]
    record.types = types
    if len(set(types)) == 1:
        record.field_type = types[0]
    elif any(not n for n in record.names) and not record.type.startswith(("std::tuple", "tuple")):
        record.reason = f"{record.type} has unnamed fields of different types"
        record.names = record.types = []
    return record


def _definition(context: str, language: str, name: str) -> Any | None:
    """The struct or class specifier with a body that defines ``name`` (directly or through a typedef)."""
    tree = parse(context, language)
    for node in walk(tree.root_node):
        if (node.type in {"struct_specifier", "class_specifier", "union_specifier"}
                and node.child_by_field_name("body") is not None):
            tag = node.child_by_field_name("name")
            if tag is not None and node_text(tag) == name:
                return node
            parent = node.parent
            if parent is not None and parent.type == "type_definition":
                for d in parent.children_by_field_name("declarator"):
                    if node_text(d) == name:
                        return node
    return None

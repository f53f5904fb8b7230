"""Records of numbers: structs and classes whose fields are numbers, and std::pair, std::tuple, std::complex of them.

The verifier drives a record the way it drives an array: as a run of numbers
of one type (``struct Point {double x, y;}`` is two doubles), so a record
qualifies only when every field has the same number type, it has no base
class and no virtual function. :func:`record_layout` says what a record type
is made of, or why it cannot be generated.
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
    """A record as a run of ``count`` numbers of type ``field_type``; ``reason`` says why not, when empty."""

    type: str
    field_type: str = ""
    names: list[str] = field(default_factory=list)  # one per number: "x", "y", "pos[0]", ...
    reason: str = ""

    @property
    def count(self) -> int:
        return len(self.names)


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


def record_layout(type_text: str, context: str, language: str, numbers: set[str] | None = None) -> Record | None:
    """What the record ``type_text`` is made of; None when it is no record (a number, or unknown to the context).

    ``numbers`` names further types to take for numbers (template arguments, typedefs of numbers).
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
        return _uniform(Record(type_text), list(zip(names, args)), numbers)
    name = re.sub(r"^(struct|class)\s+", "", type_text).split("::")[-1]
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    node = _definition(context, language, name)
    if node is None:
        return None
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
        ftype = member.child_by_field_name("type")
        ftext = node_text(ftype) if ftype is not None else ""
        for decl in member.children_by_field_name("declarator"):
            counts: list[int] = []
            while decl is not None and decl.type == "array_declarator":
                size = decl.child_by_field_name("size")
                if size is None or not node_text(size).isdigit():
                    return Record(type_text,
                                  reason=f"the array field {node_text(decl)!r} of {type_text} has no fixed size")
                counts.insert(0, int(node_text(size)))
                decl = decl.child_by_field_name("declarator")
            if decl is None or decl.type != "field_identifier":
                return Record(type_text, reason=f"the field {node_text(member)!r} of {type_text} is not a number")
            total = 1
            for c in counts:
                total *= c
            label = node_text(decl)
            fields += [(label if total == 1 else f"{label}[{k}]", ftext) for k in range(total)]
    if not fields:
        return Record(type_text, reason=f"{type_text} has no fields")
    return _uniform(Record(type_text), fields, numbers)


def _uniform(record: Record, fields: list[tuple[str, str]], numbers: set[str] | None) -> Record:
    types = list(dict.fromkeys(strip_qualifiers(t) for _, t in fields))
    if not all(is_number_word(t, numbers) for t in types):
        bad = next(t for t in types if not is_number_word(t, numbers))
        record.reason = f"{record.type} holds a {bad}, not a number"
    elif len(types) > 1:
        record.reason = (f"the fields of {record.type} are of different types ({', '.join(types)}); "
                         "perfalign generates records whose fields are all of one number type")
    else:
        record.field_type = types[0]
        record.names = [n for n, _ in fields]
    return record


def _definition(context: str, language: str, name: str) -> Any | None:
    """The struct or class specifier with a body that defines ``name`` (directly or through a typedef)."""
    tree = parse(context, language)
    for node in walk(tree.root_node):
        if node.type in {"struct_specifier", "class_specifier"} and node.child_by_field_name("body") is not None:
            tag = node.child_by_field_name("name")
            if tag is not None and node_text(tag) == name:
                return node
            parent = node.parent
            if parent is not None and parent.type == "type_definition":
                for d in parent.children_by_field_name("declarator"):
                    if node_text(d) == name:
                        return node
    return None

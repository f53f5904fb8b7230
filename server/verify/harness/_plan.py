"""Plan how to drive one C or C++ function: each parameter's kind, its size hypotheses and its values.

The plan is what the rest of the verifier knows about the function's
interface: which parameters are inputs, outputs or lengths, how many elements
each array has (hypotheses, most likely first, confirmed later by running the
original under AddressSanitizer), the values of scalars, the return value's
kind, and what the ``perfalign:`` annotation or ``perfalign.toml`` states.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from ... import cparse
from ...cparse import FunctionInfo, Param, Role
from ...errors import CParseError, HarnessError
from ._sizes import IDENT, PROBLEM_SIZE, max_index, size_of, value_at


class Kind(IntEnum):
    """A parameter's kind as the driver sees it (the numbers are the driver's)."""

    VALUE = 0  # length or scalar: passed by value, nothing to compare
    IN = 1  # const array or string: must be left unchanged
    OUT = 2  # writable array: compared after the call
    VEC_IN = 3  # const std::vector: must be left unchanged
    VEC_OUT = 4  # writable std::vector: size and elements compared
    REF = 5  # T& scalar output: compared


class ReturnKind(IntEnum):
    """What the function returns, as the driver sees it (the numbers are the driver's)."""

    VOID = 0
    INTEGER = 1
    FLOAT = 2
    TYPEDEF = 3  # integer or floating point: decided when compiled
    VECTOR = 4  # a std::vector of numbers

ARRAY_ROLES = {Role.IN_ARRAY, Role.OUT_ARRAY, Role.INOUT_ARRAY, Role.STRING}
STRING_SLOT = 16  # the bytes each string of a list gets: up to 15 characters and the NUL



@dataclass
class ParamPlan:
    param: Param
    index: int
    kind: Kind
    ctype: str  # the element (or value) type with template parameters replaced
    hypotheses: list[str] = field(default_factory=list)  # element-count expressions, most likely first
    stated: bool = False  # the size came from an annotation or perfalign.toml
    value: str | None = None  # a fixed value for a scalar (C expression of the lengths)
    range: tuple[str, str] | None = None  # element values LO..HI
    record: str = ""  # a struct, std::pair, std::tuple or std::complex element, as the side glue names it
    fields: list[str] = field(default_factory=list)  # a record's numbers, one name each ("x", "y"); ctype is their type
    # A record whose numbers differ in type (``{double x; int id;}``): each number's type. The buffer then holds
    # the records themselves (ctype is the record), generated and compared field by field; padding never compared.
    mixed: list[str] = field(default_factory=list)
    field_ranges: dict[int, tuple[str, str]] = field(default_factory=dict)  # a record's integer used as an index
    container: str = ""  # "vector", "array" or "string" (from cparse), "" for pointers and values
    single: bool = False  # one record passed by value or reference (the function sees *buffer)
    rows: str = ""  # rows of a T ** or a nested vector, as a C expression of the lengths ("": square, N rows of N)

    @property
    def width(self) -> int:
        """Buffer elements per element: a uniform record's field count, a string's slot, else 1."""
        if self.container == "strings":
            return STRING_SLOT
        return 1 if self.mixed else max(1, len(self.fields))

    @property
    def element(self) -> str:
        """The element type as the function sees it: the record, or the number type."""
        return self.record or self.ctype

    def label(self, flat: int) -> str:
        """Where number ``flat`` of the buffer is, as the function sees it: ``[7]``, or ``[2].y`` in records."""
        if self.container in {"rows", "nested"}:
            return f" (element {flat} of its rows, one after the other)"
        if self.container == "strings":
            return f" (character {flat} of its strings, each followed by a NUL)"
        if not self.fields:
            return f"[{flat}]"
        where, k = divmod(flat, len(self.fields))
        name = self.fields[k]
        prefix = "" if self.single else f"[{where}]"
        return prefix + (f".{name}" if name else f" (number {k} of {self.record})")


@dataclass
class HarnessPlan:
    function: FunctionInfo
    language: str
    params: list[ParamPlan]
    return_type: str  # with template parameters replaced; "void" when none
    return_kind: ReturnKind
    template_args: list[str]
    tolerance: float | None
    min_lengths: dict[str, int]
    return_element: str = ""  # element type of a returned std::vector, or the number type of a returned record
    return_record: str = ""  # a returned struct, std::pair, std::tuple, std::complex or std::array, as written
    return_fields: list[str] = field(default_factory=list)  # a returned record's numbers, one name each
    return_mixed: list[str] = field(default_factory=list)  # a returned record's number types, when they differ
    noalias: bool = False  # the callers never pass one buffer for two parameters (annotation ``noalias``)
    target_size: int | None = None  # the problem size the user cares about (annotation or perfalign.toml)
    notes: list[str] = field(default_factory=list)
    # The smallest value of an integer parameter, learned from the original where it fails below it (``_probe``);
    # a stated ``min(k)`` wins over it.
    floors: dict[str, int] = field(default_factory=dict)

    @property
    def lengths(self) -> list[ParamPlan]:
        return [p for p in self.params if p.param.role is Role.LENGTH]

    @property
    def arrays(self) -> list[ParamPlan]:
        return [p for p in self.params if p.kind in {Kind.IN, Kind.OUT, Kind.VEC_IN, Kind.VEC_OUT, Kind.REF}]

    @property
    def bounded(self) -> list[ParamPlan]:
        """The integer parameters whose smallest value may be learned from the original: lengths and drawn integer
        scalars, unless an annotation states their minimum, value or range."""
        return [p for p in self.params if p.kind == Kind.VALUE and p.value is None and p.range is None
                and p.param.name not in self.min_lengths
                and (p.param.role is Role.LENGTH or p.param.role is Role.SCALAR and cparse.is_integer_type(p.ctype))]

    def lowest(self, pp: ParamPlan) -> int | None:
        """The smallest value ``pp`` may take: its stated ``min``, else the floor learned from the original."""
        name = pp.param.name
        return self.min_lengths[name] if name in self.min_lengths else self.floors.get(name)

    def describe_sizes(self, choice: list[int]) -> str:
        parts = [f"size({p.param.name})={p.hypotheses[choice[p.index]]}" for p in self.arrays if p.hypotheses]
        return ", ".join(parts).replace(PROBLEM_SIZE, "N")


def annotation_hint(info: FunctionInfo, example: str) -> str:
    return (
        f"in a comment above the function, /* perfalign: {example} */, "
        f'or in perfalign.toml under [functions."{info.qualified_name}"]'
    )


# --------------------------------------------------------------------------- planning


def make_plan(info: FunctionInfo, config: dict[str, Any] | None = None, *, headers: str = "") -> HarnessPlan:
    """Decide how to drive ``info``: kinds, size hypotheses, values. Raises HarnessError.

    ``headers`` is the text of the project headers the file includes: where its record types may be defined.
    """
    notes: dict[str, Any] = _merge_annotations(info.annotations, config or {})
    unknown = notes.get("unknown") or []
    if unknown:
        raise HarnessError(
            f"cannot read the perfalign annotation {unknown[0]!r}; items look like size(a)=n*n, range(idx)=0..n-1, "
            "value(k)=3, min(n)=1, type(T)=float, tolerance=1e-6, noalias, target_size=4096"
        )
    if info.is_method and not is_static_member(info):
        raise HarnessError(
            f"{info.qualified_name} is a class method; perfalign verifies free functions (move the loop into a "
            "free function taking arrays and sizes)"
        )
    bad = [p for p in info.params if p.role is Role.UNSUPPORTED]
    if bad:
        raise HarnessError(f"cannot generate inputs for {bad[0].reason}")
    for fn, written in [(info, cparse.global_writes(info)), *_helper_global_writes(info)]:
        if written:
            via = "" if fn is info else f" (through its helper {fn.name})"
            raise HarnessError(
                f"{info.name} writes the global '{written[0]}'{via}; perfalign compares only what a function returns "
                "or writes through its parameters (pass the array as a parameter)"
            )
    template_map = {}
    for t in info.template_params:
        template_map[t] = notes.get("type", {}).get(t, "double")
    names = {p.name for p in info.params}
    for key in ("size", "range", "value", "min"):
        for pname in notes.get(key, {}):
            if pname not in names:
                raise HarnessError(f"the perfalign annotation {key}({pname}) names no parameter of {info.name}")
    ret = _subst(info.return_type, template_map) or "void"
    ret_vec = cparse.vector_element(ret)
    ret_elem = ""
    if ret_vec is not None and _is_number(ret_vec, template_map):
        ret_elem = ret_vec
    types = f"{headers}\n{info.context}" if headers else info.context  # where record types are defined
    numbers = _number_names(types, template_map)
    ret_record, ret_fields, ret_mixed = "", [], []
    if not ret_elem and ret != "void" and not _is_number(ret, template_map):
        ret_elem, ret_record, ret_fields, ret_mixed = _returned_record(info, types, ret, numbers, template_map)
    returns = ("perfalign verifies functions that return a number, a std::vector of numbers, a struct of numbers "
               "or nothing")
    if "*" in ret or "&" in ret:
        raise HarnessError(f"{info.name} returns {ret!r}; {returns}")
    if ret_elem:
        ret_kind = ReturnKind.VECTOR
    elif ret in {"void"} or ret.endswith(" void"):
        ret_kind = ReturnKind.VOID
    elif cparse.is_float_type(ret) or ret in template_map.values() and cparse.is_float_type(ret):
        ret_kind = ReturnKind.FLOAT
    elif cparse.is_integer_type(ret):
        ret_kind = ReturnKind.INTEGER
    elif re.fullmatch(r"(const\s+)?[A-Za-z_]\w*", ret) and not ret[0].isupper():
        ret_kind = ReturnKind.TYPEDEF
    else:
        raise HarnessError(f"{info.name} returns {ret!r}; {returns}")
    plans: list[ParamPlan] = []
    for index, p in enumerate(info.params):
        ctype = _subst(p.element_type, template_map)
        kind = {
            Role.IN_ARRAY: Kind.IN, Role.STRING: Kind.IN, Role.OUT_ARRAY: Kind.OUT, Role.INOUT_ARRAY: Kind.OUT,
            Role.VECTOR_IN: Kind.VEC_IN, Role.VECTOR_OUT: Kind.VEC_OUT, Role.REF_OUT: Kind.REF,
        }.get(p.role, Kind.VALUE)
        plan = ParamPlan(param=p, index=index, kind=kind, ctype=ctype, container=p.container)
        layout = _record(info, types, p, ctype, numbers)
        if layout is not None:
            plan.record, plan.ctype, plan.fields = ctype, layout.field_type or ctype, list(layout.names)
            plan.mixed = list(layout.types) if layout.mixed else []
            if p.role in {Role.SCALAR, Role.LENGTH}:
                plan.kind, plan.single = Kind.IN, True  # one record by value or const reference
                p.role = Role.SCALAR
            elif p.role is Role.REF_OUT:
                plan.kind, plan.single = Kind.OUT, True  # one record by reference: written in place
        if p.name in notes.get("value", {}):
            plan.value = str(notes["value"][p.name])
            if p.role is Role.LENGTH:
                p.role = Role.SCALAR
        if p.name in notes.get("range", {}):
            lo, sep, hi = str(notes["range"][p.name]).partition("..")
            if not sep:
                raise HarnessError(f"range({p.name}) must look like LO..HI, e.g. range({p.name})=0..n-1")
            plan.range = (lo.strip(), hi.strip())
        plans.append(plan)
    lengths = [p for p in plans if p.param.role is Role.LENGTH]
    loops = cparse.loop_ranges(info)
    for plan in plans:
        if plan.kind == Kind.VALUE:
            continue
        p = plan.param
        if p.name in notes.get("size", {}):
            plan.hypotheses = [str(notes["size"][p.name])]
            plan.stated = True
            if p.role is Role.STRING:
                plan.hypotheses = [f"({plan.hypotheses[0]}) + 1"]
            continue
        if plan.kind == Kind.REF or plan.single:
            plan.hypotheses = ["1"]
            continue
        if plan.container == "array":
            plan.hypotheses = [f"({p.extent})"]  # std::array<T, N>: N elements, always
            continue
        if plan.container in {"rows", "nested"}:
            plan.rows, plan.hypotheses = _row_hypotheses(info, plan, plans, lengths, loops)
            continue
        plan.hypotheses = _hypotheses(info, plan, plans, lengths, loops)
    _index_ranges(info, plans, notes)
    min_lengths = {k: int(v) for k, v in (notes.get("min") or {}).items() if str(v).strip().lstrip("-").isdigit()}
    for k, v in (notes.get("min") or {}).items():
        if k not in min_lengths:
            raise HarnessError(f"min({k}) must be a whole number, got {v!r}")
    tolerance = notes.get("tolerance")
    target = notes.get("target_size")
    if target is not None and (not str(target).strip().isdigit() or int(str(target).strip()) < 1):
        raise HarnessError(f"target_size must be a whole number of 1 or more (a problem size), got {target!r}")
    return HarnessPlan(
        function=info,
        language=info.language,
        params=plans,
        return_type=ret,
        return_kind=ret_kind,
        return_element=ret_elem,
        return_record=ret_record,
        return_fields=ret_fields,
        return_mixed=ret_mixed,
        template_args=[template_map[t] for t in info.template_params],
        tolerance=float(tolerance) if tolerance is not None else None,
        noalias=bool(notes.get("noalias")),
        min_lengths=min_lengths,
        target_size=int(str(target).strip()) if target is not None else None,
    )


def _is_number(elem: str, template_map: dict[str, str]) -> bool:
    elem = template_map.get(elem, elem)
    return cparse.is_float_type(elem) or cparse.is_integer_type(elem)


def is_static_member(info: FunctionInfo) -> bool:
    """A method defined out of line whose declaration in the class says ``static`` (callable without an object)."""
    return bool(re.search(rf"\bstatic\b[^;{{}}()]*\b{re.escape(info.name)}\s*\(", info.context))


def _helper_global_writes(info: FunctionInfo) -> list[tuple[FunctionInfo, list[str]]]:
    """Global writes of the helper functions the context carries (only those the function needs)."""
    out = []
    for helper in cparse.list_functions(info.context, info.language):
        try:
            full = cparse.find_function(info.context, info.language, name=helper.qualified_name, line=helper.start_line)
        except CParseError:
            continue
        out.append((full, cparse.global_writes(full)))
    return out


def _merge_annotations(annotations: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in annotations.items()}
    for key, value in config.items():
        if key in {"size", "range", "value", "min", "type"}:
            if not isinstance(value, dict):
                raise HarnessError(f"perfalign.toml: '{key}' must be a table such as {key} = {{ a = \"n*n\" }}")
            out.setdefault(key, {}).update({str(k): str(v) for k, v in value.items()})
        elif key == "tolerance":
            out["tolerance"] = value
        elif key == "target_size":
            out["target_size"] = value
        elif key == "noalias":
            if not isinstance(value, bool):
                raise HarnessError("perfalign.toml: 'noalias' must be true or false")
            out["noalias"] = value
        else:
            out.setdefault("unknown", []).append(f"{key} (in perfalign.toml)")
    return out


_TYPEDEF = re.compile(r"\btypedef\s+((?:const\s+)?[\w\s:]+?)\s+([A-Za-z_]\w*)\s*;")
_USING = re.compile(r"\busing\s+([A-Za-z_]\w*)\s*=\s*([\w\s:]+?)\s*;")


def _number_names(types: str, template_map: dict[str, str]) -> set[str]:
    """Type names that stand for numbers: template arguments and the typedefs of number types in ``types``."""
    names = set(template_map.values()) | set(template_map)
    for name, target in [(m.group(2), m.group(1)) for m in _TYPEDEF.finditer(types)] + [
        (m.group(1), m.group(2)) for m in _USING.finditer(types)
    ]:
        if cparse.is_integer_type(target) or cparse.is_float_type(target):
            names.add(name)
    return names


def _record(info: FunctionInfo, types: str, p: Param, ctype: str, numbers: set[str]) -> cparse.Record | None:
    """The record a parameter's elements are (a struct or std::pair/tuple/complex of numbers), or None."""
    if p.role is Role.UNSUPPORTED or p.container == "string" or _is_number(ctype, {}) or ctype in numbers:
        return None
    layout = cparse.record_layout(ctype, types, info.language, numbers)
    if layout is None:
        if p.record:
            raise HarnessError(
                f"cannot generate inputs for {p.name}: perfalign does not see the definition of {ctype!r} "
                "(it reads structs and classes defined in the function's file and in the project headers it "
                "includes, beside it or in the include folders of its compile_commands.json entry)"
            )
        return None
    if layout.reason:
        raise HarnessError(f"cannot generate inputs for {p.name}: {layout.reason}")
    return layout


def _returned_record(info: FunctionInfo, types: str, ret: str, numbers: set[str],
                     template_map: dict[str, str]) -> tuple[str, str, list[str], list[str]]:
    """A returned record or std::array of numbers: its number type (the record when its numbers' types differ),
    the type as written, the numbers' names and, when they differ, their types."""
    held = cparse.container_of(ret)
    if held is not None:
        kind, elem, _ = held
        if kind == "array" and (_is_number(elem, template_map) or elem in numbers):
            return elem, ret, [], []
        return "", "", [], []
    layout = cparse.record_layout(ret, types, info.language, numbers)
    if layout is None:
        return "", "", [], []
    if layout.reason:
        raise HarnessError(f"{info.name} returns {ret!r}: {layout.reason}")
    if layout.mixed:
        return ret, ret, list(layout.names), list(layout.types)
    return layout.field_type, ret, list(layout.names), []


def _index_ranges(info: FunctionInfo, plans: list[ParamPlan], notes: dict[str, Any]) -> None:
    """Values of an integer input array used as indices into another array: 0 .. that array's size - 1.

    ``x[cols[k]]`` reads ``x`` at every value ``cols`` holds, so the original's callers keep them in range;
    a stated ``range(cols)`` wins.
    """
    by_name = {pp.param.name: pp for pp in plans}
    for target in plans:
        if target.kind == Kind.VALUE or not target.hypotheses:
            continue
        for index in cparse.index_expressions(info, target.param.name):
            _field_index_range(index, target, by_name)
            source = _whole_subscript(index)
            pp = by_name.get(source) if source else None
            if (pp is None or pp is target or pp.kind not in {Kind.IN, Kind.VEC_IN} or pp.range is not None
                    or pp.record or pp.param.name in notes.get("range", {}) or not cparse.is_integer_type(pp.ctype)
                    or pp.param.role is Role.STRING or pp.container in {"string", "strings"}):
                continue
            size = target.hypotheses[0]
            pp.range = ("0", f"perfalign_max(({size}) / {target.width} - 1, 0)" if target.width > 1
                        else f"perfalign_max(({size}) - 1, 0)")


def _field_index_range(index: str, target: ParamPlan, by_name: dict[str, ParamPlan]) -> None:
    """``y[e[i].dst]``: the integer field ``dst`` of the input records ``e`` runs over 0 .. size(y) - 1.

    The record is then generated field by field (as one of mixed types is), that field within the range.
    """
    match = re.match(r"\s*([A-Za-z_]\w*)\s*\[", index)
    pp = by_name.get(match.group(1)) if match else None
    if pp is None or pp is target or not pp.record or pp.kind not in {Kind.IN, Kind.VEC_IN}:
        return
    depth, rest = 0, index[match.end() - 1:]
    for at, ch in enumerate(rest):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0:
            rest = rest[at + 1:]
            break
    name = re.sub(r"\s+", "", rest)
    if not name.startswith("."):
        return
    name = name[1:]
    if name not in pp.fields:
        return
    k = pp.fields.index(name)
    types = pp.mixed or [pp.ctype] * len(pp.fields)
    if not cparse.is_integer_type(types[k]) or k in pp.field_ranges:
        return
    if not pp.mixed:
        pp.mixed, pp.ctype = types, pp.record  # laid out as the record itself, generated field by field
    size = target.hypotheses[0]
    pp.field_ranges[k] = ("0", f"perfalign_max(({size}) - 1, 0)" if target.width == 1
                          else f"perfalign_max(({size}) / {target.width} - 1, 0)")


def _whole_subscript(index: str) -> str | None:
    """``b`` when the index is exactly one element ``b[...]`` (not ``b[i] - 1`` or ``b[i] + c[j]``)."""
    match = re.match(r"\s*([A-Za-z_]\w*)\s*\[", index)
    if not match:
        return None
    depth = 0
    rest = index[match.end() - 1:].rstrip()
    for at, ch in enumerate(rest):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0:
            return match.group(1) if at == len(rest) - 1 else None
    return None


_CONSTANT = re.compile(
    r"#\s*define\s+([A-Za-z_]\w*)[ \t]+\S|\b(?:const|constexpr)\s+[\w\s:]*?\b([A-Za-z_]\w*)\s*(?:=|\[)"
)
_ENUM = re.compile(r"\benum\b[^{;]*\{([^}]*)\}")


def _context_constants(info: FunctionInfo) -> set[str]:
    """Names the file defines at file scope that a loop bound may use: macros, enumerators, constants, arrays."""
    names = {m.group(1) or m.group(2) for m in _CONSTANT.finditer(info.context)}
    for body in _ENUM.findall(info.context):
        names |= {m.group(1) for m in re.finditer(r"([A-Za-z_]\w*)\s*(?:=[^,]*)?(?:,|$)", body)}
    tree = cparse.parse(info.context, info.language)
    for node in tree.root_node.children:
        if node.type == "declaration":  # file-scope arrays and variables (sizeof(table) / sizeof(table[0]))
            for d in node.children_by_field_name("declarator"):
                while d is not None and d.type in {"init_declarator", "array_declarator", "pointer_declarator"}:
                    d = d.child_by_field_name("declarator")
                if d is not None and d.type == "identifier":
                    names.add(cparse.node_text(d))
    return {n for n in names if n}


_BYTE_TYPES = {"unsigned char", "uint8_t", "std::uint8_t"}
_BYTE_CAST = re.compile(r"^\(\s*(?:unsigned\s+char|(?:std::)?uint8_t)\s*\)")


def _byte_indexed(index: str, plans: list[ParamPlan]) -> bool:
    """An index that is a byte: an element of a byte array, or a cast to unsigned char (``hist[data[i]]``)."""
    if _BYTE_CAST.match(index.strip()):
        return True
    source = re.match(r"\s*([A-Za-z_]\w*)\s*\[", index)
    return bool(source) and any(pp.param.name == source.group(1) and pp.kind != Kind.VALUE and pp.ctype in _BYTE_TYPES
                                and pp.param.role is not Role.STRING for pp in plans)


def _subst(text: str, mapping: dict[str, str]) -> str:
    for k, v in mapping.items():
        text = re.sub(rf"\b{re.escape(k)}\b", v, text)
    return text


def _hypotheses(info: FunctionInfo, plan: ParamPlan, plans: list[ParamPlan], lengths: list[ParamPlan], loops: dict[str, cparse.LoopRange]) -> list[str]:
    p = plan.param
    out: list[str] = []
    if p.size_expr:
        out.append(p.size_expr)
    # Only the length parameters are known to the glue (a scalar's value is drawn per case), and the
    # file's constants (``b < 256``, ``#define BINS 64``, ``enum { N = 16 }``, ``sizeof table``).
    allowed = {q.param.name for q in plans if q.param.role is Role.LENGTH} | _context_constants(info)
    corners: list[str] = []
    each: list[str] = []  # the largest element each index reaches
    byte_indexed = False
    local = cparse.local_definitions(info)
    for index in cparse.index_expressions(info, p.name):
        found = max_index(index, loops, allowed, local=local)
        if found is None:
            byte_indexed = byte_indexed or _byte_indexed(index, plans)
            continue
        corners.extend(found)
        each.append(size_of(found))
    string = p.role is Role.STRING or plan.container == "string"
    extra = " + 1" if string else ""
    if byte_indexed:
        out.append("256")  # indexed by a byte's value: all 256 of them
    if corners and len(corners) <= 128:
        # The indices the loops state; with indices that depend on the data as well (hist[data[i]]),
        # still the first guess, confirmed (or not) under AddressSanitizer.
        whole = size_of(corners)
        # Indices the body guards (a stencil's neighbours, skipped at the boundary) may never reach the
        # largest corner: smaller sizes first, each confirmed or refuted by the sanitized original.
        names = {q.param.name for q in lengths}
        top = value_at(whole, names)
        smaller = sorted({e for e in each if top is not None and (v := value_at(e, names)) is not None and v < top},
                         key=lambda e: value_at(e, names) or 0)
        out += [e + extra for e in smaller] + [whole + extra]
    if plan.kind in {Kind.VEC_IN, Kind.VEC_OUT}:
        # A vector carries its own size: try it independent of the lengths first. Where the function reads that
        # size (a loop to x.size()), a constant index (x[0] before the loop) only says how few elements it needs,
        # not how many it works on: such counts come after, or the problem size would never reach the loop.
        if _reads_own_size(info.text, p.name):
            out = [h for h in out if IDENT.search(h)] + [PROBLEM_SIZE + extra] + [h for h in out if not IDENT.search(h)]
        else:
            out.append(PROBLEM_SIZE + extra)
    # Generic guesses: each length (the next one after the array first), then products.
    ordered = sorted(lengths, key=lambda q: (q.index < plan.index, abs(q.index - plan.index)))
    for q in ordered:
        out.append(q.param.name + extra)
    for q in ordered:
        out.append(f"{q.param.name} + 1" + extra)
    for i, a in enumerate(ordered):
        for b in ordered[i:]:
            out.append(f"{a.param.name} * {b.param.name}" + extra)
    if not lengths:
        out.append(PROBLEM_SIZE + extra)
        if plan.ctype == "char" and not string and any(q.param.role is Role.STRING for q in plans):
            out.append(PROBLEM_SIZE + " + 1")  # a string written out: as long as the one read, with its NUL
    return list(dict.fromkeys(out))


def _reads_own_size(text: str, name: str) -> bool:
    """Whether the function asks the container ``name`` for its size or its end (``x.size()``, ``x.end()``,
    ``for (double v : x)``), so that its work grows with the container."""
    n = re.escape(name)
    return bool(re.search(rf"\b{n}\s*(\.|->)\s*(size|end|cend|rbegin|rend|back|empty|length)\s*\(", text)
                or re.search(rf"\bfor\s*\([^;)]*:\s*{n}\s*\)", text)
                or re.search(rf"\b(std::)?(end|cend|size|ssize)\s*\(\s*{n}\s*\)", text))


def _row_hypotheses(info: FunctionInfo, plan: ParamPlan, plans: list[ParamPlan], lengths: list[ParamPlan],
                    loops: dict[str, cparse.LoopRange]) -> tuple[str, list[str]]:
    """Rows and element counts of ``T **a`` or ``std::vector<std::vector<T>>``: a[i][j] with i, j < n gives n by n."""
    allowed = {q.param.name for q in lengths} | _context_constants(info)
    local = cparse.local_definitions(info)
    name = plan.param.name

    def extent(indices: list[str]) -> str:
        corners: list[str] = []
        for index in indices:
            found = max_index(index, loops, allowed, local=local)
            if found is None:
                return ""
            corners += found
        return size_of(corners) if corners and len(corners) <= 128 else ""

    first = cparse.index_expressions(info, name)
    rows, cols = extent(first), extent(cparse.column_expressions(info, name))
    names = [q.param.name for q in sorted(lengths, key=lambda q: (q.index < plan.index, abs(q.index - plan.index)))]
    if plan.container == "rows" and not rows:
        if not names:
            raise HarnessError(f"cannot generate inputs for {name}: {plan.param.type!r} needs its number of rows "
                               "as a parameter (or pass one flat array and its sizes: a[i*n + j])")
        rows = names[0]
    if not rows:
        # A nested vector that carries its own sizes: square, N rows of N (or of a length).
        return "", [f"{PROBLEM_SIZE} * {PROBLEM_SIZE}"] + [f"{q} * {q}" for q in names]
    out = [f"({rows}) * ({cols})"] if cols else []
    if plan.container == "nested":
        out.append(f"({rows}) * {PROBLEM_SIZE}")
    out += [f"({rows}) * {q}" for q in names] + [f"({rows}) * ({q} + 1)" for q in names]
    return rows, list(dict.fromkeys(out))



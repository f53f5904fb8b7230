"""Put a verified rewrite into the file it came from."""
from __future__ import annotations

from ..cparse import FunctionInfo


def apply_candidate(source: str, function: FunctionInfo, replacement: str, includes: list[str]) -> str:
    """``source`` with ``function``'s byte range replaced and missing includes added at the top."""
    data = source.encode()
    if data[function.start_byte : function.end_byte].decode() != function.text:
        raise ValueError(f"the file changed: {function.name} is not where it was")
    new = data[: function.start_byte] + replacement.encode() + data[function.end_byte :]
    text = new.decode()
    missing = [inc for inc in includes if inc not in text]
    if missing:
        lines = text.split("\n")
        last = max((i for i, line in enumerate(lines) if line.lstrip().startswith("#include")), default=-1)
        lines[last + 1 : last + 1] = missing
        text = "\n".join(lines)
    return text

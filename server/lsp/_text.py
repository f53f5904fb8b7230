"""Text helpers for the language server: byte offsets to LSP positions and back.

The parser speaks UTF-8 byte offsets; LSP positions count code units of the
negotiated encoding (UTF-16 unless the client chose UTF-8 or UTF-32).
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


class NotUtf8(ValueError):
    """The document holds text that cannot be written as UTF-8 (it was not UTF-8 on disk)."""


def encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise NotUtf8("the file is not valid UTF-8 text; save it as UTF-8 to use perfalign") from None


def _units(segment: str, encoding: str) -> int:
    if encoding == UTF8:
        return len(segment.encode("utf-8", "surrogatepass"))
    if encoding == UTF32:
        return len(segment)
    return len(segment.encode("utf-16-le", "surrogatepass")) // 2


@dataclass
class LineIndex:
    """Line starts of one text, as UTF-8 byte offsets."""

    data: bytes
    starts: list[int]

    @classmethod
    def of(cls, text: str) -> "LineIndex":
        data = encode(text)
        starts = [0]
        pos = data.find(b"\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = data.find(b"\n", pos + 1)
        return cls(data, starts)

    def line_of(self, byte_offset: int) -> int:
        return bisect_right(self.starts, byte_offset) - 1

    def position(self, byte_offset: int, encoding: str = UTF16) -> tuple[int, int]:
        """(line, character) of ``byte_offset``."""
        byte_offset = max(0, min(byte_offset, len(self.data)))
        line = self.line_of(byte_offset)
        segment = self.data[self.starts[line] : byte_offset].decode("utf-8", "replace")
        return line, _units(segment, encoding)

    def offset(self, line: int, character: int, encoding: str = UTF16) -> int:
        """The byte offset of (line, character); past the end clamps to the end."""
        if line >= len(self.starts):
            return len(self.data)
        start = self.starts[max(line, 0)]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.data)
        text = self.data[start:end].decode("utf-8", "replace")
        units = 0
        for i, ch in enumerate(text):
            if units >= character:
                return start + len(text[:i].encode("utf-8"))
            units += _units(ch, encoding)
        return end

    def line_end(self, line: int) -> int:
        """Byte offset of the end of ``line`` (before its newline)."""
        if line + 1 < len(self.starts):
            end = self.starts[line + 1] - 1
            if end > 0 and self.data[end - 1 : end] == b"\r":
                end -= 1
            return end
        return len(self.data)


def squashed(code: str) -> str:
    """Code with all whitespace removed: re-indenting a rewrite is not editing it."""
    return "".join(code.split())


def same_code(function_text: str | None, code: str) -> bool:
    """Whether the function in the document is ``code`` (which may carry helpers or a comment before it)."""
    if function_text is None:
        return False
    found, wanted = squashed(function_text), squashed(code)
    return bool(found) and (found == wanted or wanted.endswith(found))


def split_candidate(code: str) -> tuple[list[str], str]:
    """A verified candidate's ``#include`` lines (they go at the top of the file) and the text
    that replaces the function (new helpers, then the function)."""
    lines = code.strip("\n").split("\n")
    includes: list[str] = []
    while lines and (lines[0].lstrip().startswith("#include") or not lines[0].strip()):
        if lines[0].strip():
            includes.append(lines[0].strip())
        lines.pop(0)
    return includes, "\n".join(lines).strip("\n")

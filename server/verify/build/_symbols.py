"""What a side's program defines in place of the system libraries: functions a candidate may not replace.

A candidate is linked into its worker's program, and a program's own
definition of a library function (``operator new``, ``malloc``, ``memcpy``,
``read``) is called in place of the library's by everything in the program:
the glue that builds the inputs, the worker, the libraries themselves. Such a
replacement could work while perfalign generates the inputs or reads the
results, outside the calls it times. So the candidate's program may define no
function that the C, math, C++, GCC or OpenMP runtime libraries export,
beyond those the original's program defines too (the start-up code, and
whatever the user's own file defines).

The symbol tables are read here (ELF, 64-bit little-endian), never by
running anything the candidate built.
"""
from __future__ import annotations

import functools
import struct
import subprocess
from pathlib import Path

LIBRARIES = ["libc.so.6", "libm.so.6", "libmvec.so.1", "libstdc++.so.6", "libgcc_s.so.1", "libgomp.so.1",
             "libomp.so"]
SHT_SYMTAB, SHT_DYNSYM = 2, 11
BINDINGS = {1, 2, 10}  # global, weak, GNU unique
CODE_TYPES = {0, 2, 10}  # no type (an assembler label), function, indirect function
SYM = struct.Struct("<IBBHQQ")
SECTION = struct.Struct("<IIQQQQIIQQ")


def defined_symbols(path: Path, *, table: int = SHT_SYMTAB, code_only: bool = True) -> set[str]:
    """The global and weak symbols an ELF file defines (functions only with ``code_only``); empty if unreadable."""
    try:
        data = path.read_bytes()
    except OSError:
        return set()
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return set()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    if shentsize != SECTION.size or shoff + shnum * shentsize > len(data):
        return set()
    sections = [SECTION.unpack_from(data, shoff + k * shentsize) for k in range(shnum)]
    names: set[str] = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != table or entsize != SYM.size or link >= shnum or offset + size > len(data):
            continue
        str_off, str_size = sections[link][4], sections[link][5]
        if str_off + str_size > len(data):
            continue
        strings = data[str_off:str_off + str_size]
        for k in range(size // entsize):
            name, info, _, shndx, _, _ = SYM.unpack_from(data, offset + k * entsize)
            if shndx == 0 or info >> 4 not in BINDINGS or (code_only and info & 0xF not in CODE_TYPES):
                continue
            end = strings.find(b"\0", name)
            if end > name:
                names.add(strings[name:end].decode("utf-8", errors="replace"))
    return names


@functools.lru_cache(maxsize=8)
def library_functions(compiler: str) -> frozenset[str]:
    """Every function the runtime libraries ``compiler`` links with export (found through the compiler)."""
    names: set[str] = set()
    for library in LIBRARIES:
        try:
            found = subprocess.run([compiler, f"-print-file-name={library}"], capture_output=True, text=True,
                                   timeout=30, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        path = Path(found)
        if path.is_absolute() and path.is_file():
            names |= defined_symbols(path, table=SHT_DYNSYM)
    return frozenset(names)


def replaced_functions(candidate_exe: Path, original_exe: Path, compiler: str) -> list[str]:
    """The library functions the candidate's program defines and the original's does not, sorted."""
    library = library_functions(compiler)
    if not library:
        return []
    mine = defined_symbols(candidate_exe) & library
    return sorted(mine - defined_symbols(original_exe))


def readable(symbol: str) -> str:
    """A symbol as the source names it (``operator new(unsigned long)`` for ``_Znwm``), when c++filt is there."""
    if not symbol.startswith("_Z"):
        return symbol
    try:
        out = subprocess.run(["c++filt", symbol], capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return symbol
    return out.strip() or symbol

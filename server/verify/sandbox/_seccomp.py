"""The seccomp filter a worker starts under, installed by the sandbox before the worker's program runs.

The worker (``worker.c``) installs the same filter itself, in its first
constructor. That alone leaves a gap: a side's unit is linked into the worker,
and code of its own can run before that constructor (an initialiser the
dynamic linker runs, a C library function it defines that a library's
constructor calls, an ``ifunc`` resolver) and start a process the filter
never sees. So bubblewrap installs this filter (``--seccomp``) before it
starts the worker: from the first instruction, no new processes (threads only
in OpenMP mode), no namespaces, no tracing or reading of other processes, no
sockets, no kernel modules or keys. ``execve`` stays allowed here, because
bubblewrap (and, as root, ``setpriv``) start the worker with it; the worker's
own filter forbids it from its first constructor on.

The program is classic BPF, as the kernel reads it: one ``struct sock_filter``
(``u16 code, u8 jt, u8 jf, u32 k``) per instruction.
"""
from __future__ import annotations

import platform
import struct

# BPF opcodes and seccomp return values (linux/bpf_common.h, linux/seccomp.h).
_LD_W_ABS = 0x00 | 0x00 | 0x20
_JMP_JEQ_K = 0x05 | 0x10 | 0x00
_JMP_JGE_K = 0x05 | 0x30 | 0x00
_JMP_JSET_K = 0x05 | 0x40 | 0x00
_RET_K = 0x06 | 0x00
RET_KILL_PROCESS = 0x80000000
RET_TRAP = 0x00030000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
EACCES, ENOSYS = 13, 38

# struct seccomp_data: nr, arch, instruction_pointer, args[6].
_NR, _ARCH, _ARG0 = 0, 4, 16

CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
X32_SYSCALL_BIT = 0x40000000

# (audit arch, clone, clone3, trapped calls, calls refused with EACCES), by machine.
_TABLES: dict[str, tuple[int, int, int, dict[str, int], dict[str, int]]] = {
    "x86_64": (
        0xC000003E, 56, 435,
        {"fork": 57, "vfork": 58, "unshare": 272, "setns": 308, "ptrace": 101, "process_vm_readv": 310,
         "process_vm_writev": 311, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "keyctl": 250,
         "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
         "personality": 135, "io_uring_setup": 425, "kexec_load": 246, "init_module": 175, "finit_module": 313,
         "delete_module": 176},
        {"socket": 41, "socketpair": 53},
    ),
    "aarch64": (
        0xC00000B7, 220, 435,
        {"unshare": 97, "setns": 268, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "mount": 40,
         "umount2": 39, "pivot_root": 41, "chroot": 51, "keyctl": 219, "add_key": 217, "request_key": 218,
         "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "personality": 92, "io_uring_setup": 425,
         "kexec_load": 104, "init_module": 105, "finit_module": 273, "delete_module": 106},
        {"socket": 198, "socketpair": 199},
    ),
}


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def launch_filter(*, threads: bool, machine: str | None = None) -> bytes | None:
    """The filter as bubblewrap's ``--seccomp`` reads it; None on a machine perfalign has no table for."""
    table = _TABLES.get(machine or platform.machine())
    if table is None:
        return None
    arch, clone, clone3, trapped, refused = table
    prog = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JMP_JEQ_K, arch, 1, 0),
        _insn(_RET_K, RET_KILL_PROCESS),
        _insn(_LD_W_ABS, _NR),
    ]
    if arch == 0xC000003E:
        # The x32 numbering of the same calls would pass the comparisons below.
        prog += [_insn(_JMP_JGE_K, X32_SYSCALL_BIT, 0, 1), _insn(_RET_K, RET_KILL_PROCESS)]
    # clone3 hides its flags in memory a filter cannot read: the C library falls back to clone on ENOSYS.
    prog += [_insn(_JMP_JEQ_K, clone3, 0, 1), _insn(_RET_K, RET_ERRNO | ENOSYS)]
    for number in trapped.values():
        prog += [_insn(_JMP_JEQ_K, number, 0, 1), _insn(_RET_K, RET_TRAP)]
    for number in refused.values():
        prog += [_insn(_JMP_JEQ_K, number, 0, 1), _insn(_RET_K, RET_ERRNO | EACCES)]
    # clone: never a namespace, never a process; a thread only when threads are allowed.
    prog += [
        _insn(_JMP_JEQ_K, clone, 0, 5),
        _insn(_LD_W_ABS, _ARG0),
        _insn(_JMP_JSET_K, CLONE_NAMESPACES, 2, 0),
        _insn(_JMP_JSET_K, CLONE_THREAD, 0, 1),
        _insn(_RET_K, RET_ALLOW if threads else RET_TRAP),
        _insn(_RET_K, RET_TRAP),
        _insn(_RET_K, RET_ALLOW),
    ]
    return b"".join(prog)

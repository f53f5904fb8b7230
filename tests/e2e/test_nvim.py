"""The Neovim plugin, end to end in a real Neovim 0.11 (headless) with the real server.

The driver (editor-clients/nvim/e2e/driver.lua) does what a user does: open a C
file, :PerfalignOptimize, "Show diff" and "Apply verified rewrite" from
vim.lsp.buf.code_action(), :write, :PerfalignReport. The model is the
deterministic fake backend.

Set PERFALIGN_SCREENSHOTS=1 to save the screenshots into docs/img/.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editor-clients" / "nvim"
DRIVER = PLUGIN / "e2e" / "driver.lua"
NVIM = Path(sys.executable).with_name("nvim")
PERFALIGN = Path(sys.executable).with_name("perfalign")

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



@pytest.fixture(scope="session")
def nvim() -> Path:
    """Neovim 0.11 installed (quick when present)."""
    subprocess.run(["bash", str(REPO / "scripts" / "bootstrap-editors.sh")], cwd=REPO, check=True, timeout=900)
    out = subprocess.run([str(NVIM), "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("NVIM v0.1") and not out.startswith("NVIM v0.1."), out.splitlines()[0]
    return NVIM


def _env(tmp_path: Path, e2e: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PERFALIGN_E2E_DIR": str(e2e),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }


def _feedback(db: Path, timeout_s: float = 20.0) -> list[tuple[str, str]]:
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


def _workspace(tmp_path: Path, setup: dict[str, Any], screenshots: bool = False) -> tuple[Path, Path]:
    ws, e2e = tmp_path / "workspace", tmp_path / "e2e"
    ws.mkdir()
    e2e.mkdir()
    source = ws / "row_sums.c"
    shutil.copyfile(EXAMPLE, source)
    line = next(i for i, text in enumerate(EXAMPLE.read_text().splitlines()) if SLOW_LINE in text)
    spec = {"plugin": str(PLUGIN), "file": str(source), "line": line, "mode": "serial", "timeoutS": 180,
            "setup": setup, "screenshots": screenshots}
    (e2e / "spec.json").write_text(json.dumps(spec))
    return source, e2e


def _fake_setup(tmp_path: Path) -> dict[str, Any]:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([f"```c\n{FAST_C}\n```"]))
    return {"serverPath": str(PERFALIGN), "backend": "fake", "endpoint": str(replies), "samples": 1,
            "dbPath": str(tmp_path / "prefs.db")}


def test_optimize_in_neovim_applies_the_verified_rewrite_and_logs_accepted(nvim: Path, tmp_path: Path) -> None:
    t0 = time.monotonic()
    setup = _fake_setup(tmp_path)
    source, e2e = _workspace(tmp_path, setup)
    proc = subprocess.run(
        [str(nvim), "--headless", "--clean", "-c", f"luafile {DRIVER}"],
        cwd=source.parent, env=_env(tmp_path, e2e), capture_output=True, text=True, timeout=300,
    )
    result_file = e2e / "result.json"
    assert result_file.exists(), f"Neovim wrote no result ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    result = json.loads(result_file.read_text())
    assert result["ok"], f"{result.get('error')}\n{result.get('messages')}"
    assert result["version"].startswith("0.11")
    assert "Optimize this function" in result["actionsBefore"]
    assert "Parallelize with OpenMP" in result["actionsBefore"]
    # Progress arrived through LspProgress, from begin to end.
    kinds = [p["kind"] for p in result["progress"]]
    assert kinds[0] == "begin" and kinds[-1] == "end", kinds
    assert result["finished"]["status"] == "verified", result["finished"]
    assert any(t.startswith("Apply verified rewrite") for t in result["actionsAfter"]), result["actionsAfter"]
    # "Show diff" opened a split in diff mode: the original on the left, the candidate on the right.
    assert result["diff"]["windows"] == 2
    assert all(side["diff"] for side in result["diff"]["sides"])
    assert SLOW_LINE in result["diff"]["sides"][0]["text"]
    assert result["diff"]["sides"][1]["text"].strip() == FAST_C
    # The evidence of the faster rewrite: how both grow with the size, beside what the compiler alone gives.
    evidence = result["diff"]["evidence"]
    assert "at n = " in evidence and "compiler alone" in evidence, result["diff"]
    assert result["diff"]["sides"][0]["winbar"].startswith("original · ≈ "), result["diff"]
    # The rewrite is in the buffer and on disk; the server logged it as accepted.
    assert FAST_C in source.read_text()
    assert SLOW_LINE not in source.read_text()
    assert ("accepted", "lsp") in _feedback(Path(setup["dbPath"]))
    assert any("accepted" in line for line in result["report"]), result["report"]
    # require("perfalign").set{} reached the server without restarting it.
    change = result["settingsChange"]
    assert change["threshold"] == 1.25 and change["pidBefore"] == change["pidAfter"], change
    # :PerfalignRestart started a new server.
    assert result["restart"]["pidAfter"] != result["restart"]["pidBefore"]
    print(f"\nNeovim end to end: {time.monotonic() - t0:.1f} s (driver steps: {result['steps']})")


def test_neovim_says_how_to_fix_a_wrong_server_path(nvim: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-venv" / "bin" / "perfalign"
    lua = (
        f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))}); "
        f"local ok = require('perfalign').setup{{ serverPath = {json.dumps(str(missing))} }}; "
        "vim.cmd.edit('twice.c'); vim.wait(1500); "
        "io.stdout:write(vim.json.encode({ ok = ok, clients = #vim.lsp.get_clients({ name = 'perfalign' }), "
        "messages = vim.api.nvim_exec2('messages', { output = true }).output })); vim.cmd('qa!')"
    )
    (tmp_path / "twice.c").write_text(TINY_C)
    proc = subprocess.run(
        [str(nvim), "--headless", "--clean", "-c", f"lua {lua}"],
        cwd=tmp_path, env=_env(tmp_path, tmp_path), capture_output=True, text=True, timeout=60,
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    assert out, proc.stderr
    assert out["ok"] is False and out["clients"] == 0
    assert str(missing) in out["messages"] and "Point it at" in out["messages"]


# ---------------------------------------------------------------- the real TUI, for the docs

DEFAULT_FG, DEFAULT_BG = "#e0e2ea", "#14161b"  # Neovim's default colour scheme (dark)
BASIC = ["#07080d", "#ffc0b9", "#b3f6c0", "#fce094", "#a6dbff", "#ffcaff", "#8cf8f7", "#eef1f8"]


def _xterm256(n: int) -> str:
    if n < 8:
        return BASIC[n]
    if n < 16:
        return BASIC[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    level = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (level, level, level)


def ansi_to_html(screen: str) -> str:
    """A terminal capture (tmux capture-pane -e) as an HTML page: colours, bold, reverse."""
    import html
    import re

    fg, bg, bold, reverse = None, None, False, False
    out: list[str] = []
    for part in re.split(r"(\x1b\[[0-9;:]*m)", screen):
        if not part.startswith("\x1b["):
            if part:
                f, b = (bg or DEFAULT_BG, fg or DEFAULT_FG) if reverse else (fg or DEFAULT_FG, bg or DEFAULT_BG)
                weight = "font-weight:bold;" if bold else ""
                out.append(f'<span style="color:{f};background:{b};{weight}">{html.escape(part)}</span>')
            continue
        codes = [int(c) if c else 0 for c in part[2:-1].replace(":", ";").split(";")]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                fg, bg, bold, reverse = None, None, False, False
            elif c == 1:
                bold = True
            elif c == 22:
                bold = False
            elif c == 7:
                reverse = True
            elif c == 27:
                reverse = False
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 2 and i + 4 < len(codes):
                    colour = "#%02x%02x%02x" % tuple(codes[i + 2 : i + 5])
                    i += 4
                elif codes[i + 1] == 5 and i + 2 < len(codes):
                    colour = _xterm256(codes[i + 2])
                    i += 2
                else:
                    colour = None
                if c == 38:
                    fg = colour
                else:
                    bg = colour
            elif c == 39:
                fg = None
            elif c == 49:
                bg = None
            elif 30 <= c <= 37 or 90 <= c <= 97:
                fg = BASIC[(c - 30) % 60 % 8]
            elif 40 <= c <= 47 or 100 <= c <= 107:
                bg = BASIC[(c - 40) % 60 % 8]
            i += 1
    return (
        "<!doctype html><meta charset=utf-8><style>body{margin:0;background:" + DEFAULT_BG + "}"
        "pre{margin:0;padding:6px;font:14px/18px 'DejaVu Sans Mono',monospace;color:" + DEFAULT_FG + "}</style>"
        "<pre>" + "".join(out) + "</pre>"
    )


def _render_png(page: Path, png: Path, size: tuple[int, int], profile: Path) -> None:
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         "--hide-scrollbars", f"--window-size={size[0]},{size[1]}", f"--screenshot={png}", page.as_uri()],
        check=True, capture_output=True, timeout=60,
    )


def test_neovim_in_a_real_terminal_shows_progress_diff_and_rewrite(nvim: Path, tmp_path: Path) -> None:
    """The same flow in Neovim's TUI inside tmux; each screen is captured and drawn to PNG."""
    t0 = time.monotonic()
    # vim.lsp.start per buffer: the way Neovim 0.10 registers the server, here on 0.11.
    setup = {**_fake_setup(tmp_path), "register": "start"}
    source, e2e = _workspace(tmp_path, setup, screenshots=True)
    cols, rows = 100, 30
    sock = tmp_path / "tmux.sock"
    env = {**_env(tmp_path, e2e), "COLORTERM": "truecolor", "TERM": "xterm-256color"}
    tmux = ["tmux", "-S", str(sock), "-f", "/dev/null"]
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", str(cols), "-y", str(rows), "-c", str(source.parent),
         f"{nvim} --clean -c 'luafile {DRIVER}'"],
        env=env, check=True, timeout=30,
    )
    screens: dict[str, str] = {}
    try:
        deadline = time.monotonic() + 240
        while not (e2e / "result.json").exists() and time.monotonic() < deadline:
            for request in sorted(e2e.glob("shot-*.request")):
                name = request.name.removeprefix("shot-").removesuffix(".request")
                screen = subprocess.run([*tmux, "capture-pane", "-p", "-e", "-t", "0"],
                                        capture_output=True, text=True, check=True).stdout
                screens[name] = screen
                page = e2e / f"{name}.html"
                page.write_text(ansi_to_html(screen))
                _render_png(page, e2e / f"{name}.png", (cols * 9 - 30, rows * 18 + 12), tmp_path / "chromium")
                request.unlink()
            time.sleep(0.1)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    result = json.loads((e2e / "result.json").read_text())
    assert result["ok"], f"{result.get('error')}\n{result.get('messages')}"
    assert "optimizing row_sums" in screens["progress"]
    assert "original" in screens["diff"] and "candidate" in screens["diff"]
    assert "s += a[i * n + j];" in screens["applied"]
    for name in ("progress", "diff", "applied"):
        png = e2e / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    if os.environ.get("PERFALIGN_SCREENSHOTS"):
        img = REPO / "docs" / "img"
        img.mkdir(parents=True, exist_ok=True)
        for name in ("progress", "diff", "applied"):
            shutil.copyfile(e2e / f"{name}.png", img / f"nvim-{name}.png")
    print(f"\nNeovim in tmux: {time.monotonic() - t0:.1f} s")


def test_neovim_restarts_a_crashing_server_a_bounded_number_of_times(nvim: Path, tmp_path: Path) -> None:
    crashing = tmp_path / "crashing-perfalign"
    crashing.write_text("#!/bin/sh\necho 'perfalign: simulated crash' >&2\nexit 3\n")
    crashing.chmod(0o755)
    (tmp_path / "twice.c").write_text(TINY_C)
    lua = (
        f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))}); "
        f"require('perfalign').setup{{ serverPath = {json.dumps(str(crashing))} }}; "
        "vim.cmd.edit('twice.c'); "
        "vim.wait(15000, function() return vim.api.nvim_exec2('messages', { output = true }).output:find('will not be restarted') ~= nil end); "
        "vim.wait(1000); "
        "io.stdout:write(vim.json.encode({ messages = vim.api.nvim_exec2('messages', { output = true }).output })); vim.cmd('qa!')"
    )
    proc = subprocess.run(
        [str(nvim), "--headless", "--clean", "-c", f"lua {lua}"],
        cwd=tmp_path, env=_env(tmp_path, tmp_path), capture_output=True, text=True, timeout=60,
    )
    messages = json.loads(proc.stdout.strip().splitlines()[-1])["messages"]
    for n in (1, 2, 3):
        assert f"restarting it ({n} of 3)" in messages, messages
    assert "(4 of 3)" not in messages
    assert "will not be restarted again" in messages and ":PerfalignRestart" in messages


def _doc_block(after: str, lang: str) -> str:
    """The first ```lang block after the line ``after`` in docs/editors.md."""
    text = (REPO / "docs" / "editors.md").read_text()
    rest = text[text.index(after):]
    start = rest.index(f"```{lang}\n") + len(f"```{lang}\n")
    return rest[start:rest.index("```", start)]


def test_the_documented_plain_neovim_config_attaches_and_offers_the_actions(nvim: Path, tmp_path: Path) -> None:
    """The docs' vim.lsp.config snippet, verbatim, with `perfalign` found on PATH."""
    snippet = _doc_block("Neovim 0.11:", "lua")
    (tmp_path / "init.lua").write_text(snippet)
    shutil.copyfile(EXAMPLE, tmp_path / "row_sums.c")
    line = next(i for i, text in enumerate(EXAMPLE.read_text().splitlines()) if SLOW_LINE in text)
    lua = (
        f"vim.cmd.edit('row_sums.c'); vim.api.nvim_win_set_cursor(0, {{ {line + 1}, 0 }}); "
        "vim.wait(30000, function() local c = vim.lsp.get_clients({ name = 'perfalign' })[1]; return c ~= nil and c.initialized end); "
        "local params = vim.lsp.util.make_range_params(0, 'utf-16'); params.context = { diagnostics = {} }; "
        "local res = vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 10000) or {}; "
        "local titles = {}; for _, r in pairs(res) do for _, a in ipairs(r.result or {}) do table.insert(titles, a.title) end end; "
        "io.stdout:write(vim.json.encode(titles)); vim.cmd('qa!')"
    )
    env = {**_env(tmp_path, tmp_path), "PATH": f"{PERFALIGN.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [str(nvim), "--headless", "--clean", "-u", str(tmp_path / "init.lua"), "-c", f"lua {lua}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90,
    )
    titles = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else []
    assert "Optimize this function" in titles and "Parallelize with OpenMP" in titles, (titles, proc.stderr)


def test_the_documented_helix_config_runs_perfalign_beside_clangd() -> None:
    import tomllib

    config = tomllib.loads(_doc_block("~/.config/helix/languages.toml", "toml"))
    server = config["language-server"]["perfalign"]
    assert [server["command"], *server["args"]] == ["perfalign", "serve"]
    assert set(server["config"]["perfalign"]) <= {"model", "samples", "backend", "endpoint", "threads", "cc", "cxx",
                                                 "cflags", "threshold", "compileTimeoutS", "runTimeoutS", "dbPath", "sandbox"}
    for language in config["language"]:
        assert language["language-servers"] == ["clangd", "perfalign"]


# ---------------------------------------------------------------- other clients, as documented

EGLOT_DRIVER = """
(require 'eglot)
(load (expand-file-name "snippet.el"))
(find-file (expand-file-name "row_sums.c"))
(goto-char (point-min))
(search-forward "sums[i] += a")
(apply #'eglot (eglot--guess-contact))
(let* ((server (eglot-current-server))
       (pos (eglot--pos-to-lsp-position))
       (actions (jsonrpc-request server :textDocument/codeAction
                                 (list :textDocument (eglot--TextDocumentIdentifier)
                                       :range (list :start pos :end pos)
                                       :context (list :diagnostics []))))
       (report (jsonrpc-request server :workspace/executeCommand
                                (list :command "perfalign.report" :arguments []))))
  (princ (json-encode (list :titles (vconcat (mapcar (lambda (a) (plist-get a :title)) actions))
                            :samples (plist-get (plist-get report :settings) :samples)
                            :errors (plist-get report :settingsErrors))))
  (terpri))
(kill-emacs 0)
"""


def test_the_documented_eglot_config_attaches_and_sends_its_settings(nvim: Path, tmp_path: Path) -> None:
    """The docs' eglot snippet, verbatim, in Emacs with `perfalign` found on PATH."""
    (tmp_path / "snippet.el").write_text(_doc_block("## Emacs (eglot)", "elisp"))
    (tmp_path / "drive.el").write_text(EGLOT_DRIVER)
    shutil.copyfile(EXAMPLE, tmp_path / "row_sums.c")
    env = {**_env(tmp_path, tmp_path), "HOME": str(tmp_path),
           "PATH": f"{PERFALIGN.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["emacs", "--batch", "-l", "drive.el"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines, f"eglot printed nothing ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    answer = json.loads(lines[-1])
    assert "Optimize this function" in answer["titles"] and "Parallelize with OpenMP" in answer["titles"], answer
    assert answer["samples"] == 8 and not answer["errors"], answer


def test_hotspots_in_neovim_fill_the_quickfix_list_and_jump_to_the_function(nvim: Path, tmp_path: Path) -> None:
    from perfalign.server.hotspots import profile_command
    from tests.hotspots.programs import build

    ws, e2e = tmp_path / "workspace", tmp_path / "e2e"
    e2e.mkdir()
    build(ws)
    profile_command(["./bench", "20000"], workspace=ws, cwd=ws, profiler="callgrind")
    spec = {"plugin": str(PLUGIN), "file": str(ws / "bench.c"), "setup": _fake_setup(tmp_path)}
    (e2e / "spec.json").write_text(json.dumps(spec))
    proc = subprocess.run(
        [str(nvim), "--headless", "--clean", "-c", f"luafile {PLUGIN / 'e2e' / 'hotspots.lua'}"],
        cwd=ws, env=_env(tmp_path, e2e), capture_output=True, text=True, timeout=180,
    )
    result_file = e2e / "result.json"
    assert result_file.exists(), \
        f"Neovim wrote no result ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    result = json.loads(result_file.read_text())
    assert result["ok"], result.get("error")
    hot_line = next(i for i, text in enumerate((ws / "bench.c").read_text().splitlines()) if "double hot(" in text)
    assert any(d["lnum"] == hot_line and "of run time in `./bench 20000`" in d["message"]
               for d in result["diagnostics"])
    assert result["title"].startswith("perfalign hotspots: `./bench 20000`")
    first = result["items"][0]
    assert first["file"] == str(ws / "bench.c") and first["lnum"] == hot_line + 1 and first["text"].endswith(" hot")
    assert result["jump"] == {"file": str(ws / "bench.c"), "line": hot_line + 1}

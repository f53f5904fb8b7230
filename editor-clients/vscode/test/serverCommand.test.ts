// How the extension finds `perfalign serve`: run with `npm test` (node's test runner).
// PERFALIGN_PYTHON names a Python environment where perfalign is installed.
import { execFileSync } from "node:child_process";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { resolveServer } from "../src/serverCommand";

const python = process.env.PERFALIGN_PYTHON ?? "";

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "perfalign-vscode-test-"));
}

void test("a serverPath that is not there is refused with the fix", () => {
  const found = resolveServer({ serverPath: "/nowhere/bin/perfalign", pythonPath: "", envPath: "" });
  if (found.ok) {
    assert.fail("a missing serverPath was accepted");
  }
  assert.match(found.message, /perfalign\.serverPath.*\/nowhere\/bin\/perfalign.*Point it at/s);
});

void test("nothing configured and nothing on PATH says how to install", () => {
  const found = resolveServer({ serverPath: "", pythonPath: "", envPath: tempDir() });
  if (found.ok) {
    assert.fail("a server was found where there is none");
  }
  assert.match(found.message, /pip install perfalign/);
});

void test("perfalign on PATH is used when no path is configured", () => {
  const dir = tempDir();
  const exe = path.join(dir, "perfalign");
  fs.writeFileSync(exe, "#!/bin/sh\n");
  fs.chmodSync(exe, 0o755);
  const found = resolveServer({ serverPath: "", pythonPath: "", envPath: `/nowhere${path.delimiter}${dir}` });
  assert.deepEqual(found, { ok: true, server: { command: exe, args: [], origin: "PATH" } });
});

void test("a pythonPath whose environment has no perfalign script runs the CLI through python -c", { skip: python === "" }, () => {
  // A python outside the environment's bin folder: the script is not beside it.
  const dir = tempDir();
  const link = path.join(dir, "python3");
  fs.symlinkSync(python, link);
  const found = resolveServer({ serverPath: "", pythonPath: link, envPath: "" });
  assert.ok(found.ok);
  assert.equal(found.server.command, link);
  // The -c program starts the CLI in an interpreter that has perfalign.
  const help = execFileSync(python, [...found.server.args, "serve", "--help"], { encoding: "utf-8" });
  assert.match(help, /Usage: perfalign serve/);
});

void test("a pythonPath uses the perfalign script beside it", { skip: python === "" }, () => {
  const found = resolveServer({ serverPath: "", pythonPath: python, envPath: "" });
  assert.ok(found.ok);
  assert.equal(found.server.command, path.join(path.dirname(python), "perfalign"));
  assert.equal(found.server.origin, "perfalign.pythonPath");
});

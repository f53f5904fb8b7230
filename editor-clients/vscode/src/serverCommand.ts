// Finds how to start `perfalign serve`: a configured path, else PATH, else a configured Python.
import * as fs from "node:fs";
import * as path from "node:path";

/** How to run the `perfalign` command: `command ...args <subcommand>`. */
export interface ServerCommand {
  command: string;
  args: string[];
  origin: string;
}

export type Resolved = { ok: true; server: ServerCommand } | { ok: false; message: string };

export interface ServerLookup {
  serverPath: string;
  pythonPath: string;
  envPath: string;
}

const INSTALL_HINT = "Install it with `pip install perfalign` in a Python 3.11+ environment";

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function onPath(name: string, envPath: string): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (dir === "") {
      continue;
    }
    const file = path.join(dir, name);
    if (isExecutable(file)) {
      return file;
    }
  }
  return undefined;
}

function expandHome(file: string): string {
  const home = process.env.HOME ?? "";
  return file.startsWith("~/") && home !== "" ? path.join(home, file.slice(2)) : file;
}

export function resolveServer(lookup: ServerLookup): Resolved {
  const serverPath = expandHome(lookup.serverPath.trim());
  if (serverPath !== "") {
    if (!isExecutable(serverPath)) {
      return {
        ok: false,
        message:
          `perfalign: the setting "perfalign.serverPath" is "${lookup.serverPath}", but no executable file is there. ` +
          `Point it at the \`perfalign\` command of the environment where perfalign is installed ` +
          `(for example /path/to/.venv/bin/perfalign), or clear it to use \`perfalign\` from PATH.`,
      };
    }
    return { ok: true, server: { command: serverPath, args: [], origin: "perfalign.serverPath" } };
  }
  const found = onPath("perfalign", lookup.envPath);
  if (found !== undefined) {
    return { ok: true, server: { command: found, args: [], origin: "PATH" } };
  }
  const pythonPath = expandHome(lookup.pythonPath.trim());
  if (pythonPath !== "") {
    if (!isExecutable(pythonPath)) {
      return {
        ok: false,
        message:
          `perfalign: the setting "perfalign.pythonPath" is "${lookup.pythonPath}", but no Python interpreter is there. ` +
          `Point it at the python of the environment where perfalign is installed, or clear it.`,
      };
    }
    const beside = path.join(path.dirname(pythonPath), "perfalign");
    if (isExecutable(beside)) {
      return { ok: true, server: { command: beside, args: [], origin: "perfalign.pythonPath" } };
    }
    return {
      ok: true,
      server: {
        command: pythonPath,
        args: ["-c", "import sys; from perfalign.server.cli import main; sys.argv[0] = 'perfalign'; main()"],
        origin: "perfalign.pythonPath",
      },
    };
  }
  return {
    ok: false,
    message:
      `perfalign: the language server was not found: \`perfalign\` is not on PATH and neither ` +
      `"perfalign.serverPath" nor "perfalign.pythonPath" is set. ${INSTALL_HINT}, then set ` +
      `"perfalign.serverPath" to its \`perfalign\` command (or "perfalign.pythonPath" to its python).`,
  };
}

// The editor settings the perfalign server reads from workspace/configuration, section "perfalign".
import * as vscode from "vscode";

export const SECTION = "perfalign";

// Keys the server understands (camelCase of server/settings.py). The other perfalign.*
// settings (serverPath, pythonPath, trace.server) belong to this extension only.
export const SERVER_KEYS = [
  "model",
  "backend",
  "endpoint",
  "samples",
  "threads",
  "cc",
  "cxx",
  "cflags",
  "threshold",
  "compileTimeoutS",
  "runTimeoutS",
  "dbPath",
  "sandbox",
] as const;

// Keys whose change needs a new server process rather than a settings update.
export const RESTART_KEYS = ["serverPath", "pythonPath"] as const;

/**
 * The settings to send: only those the user set somewhere (user, workspace or folder),
 * so that the server's defaults and the workspace's perfalign.toml still apply to the rest.
 */
export function serverSettings(config: vscode.WorkspaceConfiguration): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const seen = config.inspect(key);
    const set =
      seen?.workspaceFolderValue !== undefined ||
      seen?.workspaceValue !== undefined ||
      seen?.globalValue !== undefined;
    const value: unknown = config.get(key);
    if (set && value !== null && value !== undefined && value !== "") {
      out[key] = value;
    }
  }
  return out;
}

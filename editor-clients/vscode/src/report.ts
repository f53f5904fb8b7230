// "Open preference report": the store's HTML report, written by `perfalign prefs report`.
import { execFile } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import type { ServerCommand } from "./serverCommand";

export type Report = { ok: true; html: string; file: string } | { ok: false; message: string };

export async function writeReport(perfalign: ServerCommand, dbPath: string): Promise<Report> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "perfalign-report-"));
  const file = path.join(dir, "perfalign-report.html");
  const args = [...perfalign.args, "prefs", "report", "-o", file];
  if (dbPath.trim() !== "") {
    args.push("-d", dbPath.trim());
  }
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(perfalign.command, args, { timeout: 60_000 }, (err, _stdout, stderr) => {
      if (err === null) {
        resolve(undefined);
        return;
      }
      const lines = stderr.trim().split("\n");
      resolve(lines[lines.length - 1] !== "" ? lines[lines.length - 1] : err.message);
    });
  });
  if (failure !== undefined) {
    return {
      ok: false,
      message: `perfalign: the preference report could not be written: ${failure.replace(/^Error: /, "")}`,
    };
  }
  return { ok: true, html: await fs.readFile(file, "utf-8"), file };
}

// Runs one perfalign code action in a real VS Code, as a user would from the light bulb,
// and records what happened for tests/test_editor_vscode.py.
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";

interface Spec {
  file: string;
  line: number;
  mode: "serial" | "openmp";
  timeoutS: number;
  /** Only run the palette command on the open file (for the tests of a missing server). */
  paletteOnly?: boolean;
  /** Start the job, press Cancel on its progress notification, and check that it stopped. */
  cancel?: boolean;
}

interface Result {
  ok: boolean;
  error?: string;
  steps: { step: string; seconds: number }[];
  actionsBefore: string[];
  actionsAfter: string[];
  startAnswer?: unknown;
  applyAnswer?: unknown;
  diffTab?: string;
  evidenceTab?: string;
  settingsChange?: { pidBefore: unknown; pidAfter: unknown; threshold: unknown };
  reportTab?: string;
  cancelled?: { actionsAfter: string[] };
  restart?: { pidBefore: unknown; pidAfter: unknown };
  textAfter?: string;
  dirtyAfter?: boolean;
}

const KINDS = { serial: "refactor.rewrite.optimize", openmp: "refactor.rewrite.parallelize.openmp" };
const START = { serial: "perfalign.optimize", openmp: "perfalign.parallelize" };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function poll<T>(what: string, timeoutS: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutS * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutS}s waiting for ${what}`);
    }
    await sleep(250);
  }
}

async function codeActions(uri: vscode.Uri, at: vscode.Position, kind: string): Promise<vscode.CodeAction[]> {
  const found = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[] | undefined>(
    "vscode.executeCodeActionProvider",
    uri,
    new vscode.Range(at, at),
    kind,
    20, // resolve the edits of up to 20 actions, as the light bulb does when one is picked
  );
  return (found ?? []).filter((a): a is vscode.CodeAction => "kind" in a);
}

function commandOf(action: vscode.CodeAction): string | undefined {
  return action.command?.command;
}

async function run(command: vscode.Command): Promise<unknown> {
  const args: unknown[] = command.arguments ?? [];
  return vscode.commands.executeCommand(command.command, ...args);
}

/** Ask the test runner (Playwright) to click a button of a notification, and wait until it has. */
async function click(dir: string, label: string): Promise<void> {
  const request = path.join(dir, `click-${label}.request`);
  fs.writeFileSync(request, label);
  const deadline = Date.now() + 30_000;
  while (fs.existsSync(request) && Date.now() < deadline) {
    await sleep(100);
  }
}

/** Ask the test runner (Playwright) for a screenshot of the whole page, and wait until it is taken. */
async function screenshot(dir: string, name: string): Promise<void> {
  await sleep(1500); // let the workbench paint
  const request = path.join(dir, `shot-${name}.request`);
  fs.writeFileSync(request, name);
  const deadline = Date.now() + 30_000;
  while (fs.existsSync(request) && Date.now() < deadline) {
    await sleep(200);
  }
}

async function drive(dir: string, spec: Spec, result: Result): Promise<void> {
  const t0 = Date.now();
  const step = (name: string): void => {
    result.steps.push({ step: name, seconds: (Date.now() - t0) / 1000 });
    fs.writeFileSync(path.join(dir, "progress.json"), JSON.stringify(result, null, 2));
  };
  const kind = KINDS[spec.mode];
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(spec.file));
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  const at = new vscode.Position(spec.line, 0);
  editor.selection = new vscode.Selection(at, at);
  editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  step("opened");
  if (spec.paletteOnly === true) {
    await sleep(2000);
    await vscode.commands.executeCommand(spec.mode === "openmp" ? "perfalign.parallelizeFunction" : "perfalign.optimizeFunction");
    step("palette command run");
    return;
  }

  // The perfalign extension activates on C files and starts the server; wait for its action.
  const start = await poll("the perfalign code action", spec.timeoutS, async () =>
    (await codeActions(doc.uri, at, kind)).find((a) => commandOf(a) === START[spec.mode]),
  );
  result.actionsBefore = (await codeActions(doc.uri, at, "refactor")).map((a) => a.title);
  step("actions listed");
  // Show the real light-bulb menu for the screenshot, then close it.
  await vscode.commands.executeCommand("editor.action.refactor");
  await screenshot(dir, "actions");
  await vscode.commands.executeCommand("hideCodeActionWidget");

  if (start.command === undefined) {
    throw new Error("the perfalign action has no command");
  }
  result.startAnswer = await run(start.command);
  step("job started");
  if (spec.cancel === true) {
    await click(dir, "Cancel");
    step("cancel pressed");
    // The job stops: the start action is offered again, and no suggestion appears.
    await poll("the job to stop", 60, async () => {
      const now = await codeActions(doc.uri, at, kind);
      return now.some((a) => commandOf(a) === START[spec.mode]) && !now.some((a) => commandOf(a) === "perfalign.cancel")
        ? now
        : undefined;
    });
    await sleep(3000);
    result.cancelled = { actionsAfter: (await codeActions(doc.uri, at, kind)).map((a) => a.title) };
    step("job stopped");
    return;
  }
  await screenshot(dir, "progress");

  const apply = await poll("a verified suggestion", spec.timeoutS, async () =>
    (await codeActions(doc.uri, at, kind)).find((a) => commandOf(a) === "perfalign.apply"),
  );
  const after = await codeActions(doc.uri, at, kind);
  result.actionsAfter = after.map((a) => a.title);
  step("suggestion verified");

  const showDiff = after.find((a) => commandOf(a) === "perfalign.showDiff");
  if (showDiff?.command !== undefined) {
    await run(showDiff.command);
    const tab = await poll("the diff editor", 30, () => {
      const active = vscode.window.tabGroups.activeTabGroup.activeTab;
      return Promise.resolve(active?.input instanceof vscode.TabInputTextDiff ? active : undefined);
    });
    result.diffTab = tab.label;
    // Beside the diff, the evidence panel: the growth with the size and the plot.
    const evidence = await poll("the evidence panel", 30, () =>
      Promise.resolve(
        vscode.window.tabGroups.all
          .flatMap((group) => group.tabs)
          .find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith("perfalign.evidence")),
      ),
    );
    result.evidenceTab = evidence.label;
    step("diff shown");
    await screenshot(dir, "diff");
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  }

  // Apply it exactly as the light bulb does: the action's edit, then its command.
  await vscode.window.showTextDocument(doc, { preview: false });
  if (apply.edit !== undefined) {
    const applied = await vscode.workspace.applyEdit(apply.edit);
    if (!applied) {
      throw new Error("VS Code refused the suggestion's edit");
    }
  }
  if (apply.command !== undefined) {
    result.applyAnswer = await run(apply.command);
  }
  await doc.save();
  result.textAfter = doc.getText();
  result.dirtyAfter = doc.isDirty;
  step("applied and saved");
  await screenshot(dir, "applied");

  // A settings change reaches the running server: same process, new value.
  interface ServerReport {
    pid?: unknown;
    settings?: { threshold?: unknown };
  }
  const report = async (): Promise<ServerReport> =>
    (await vscode.commands.executeCommand<ServerReport | undefined>("perfalign.report")) ?? {};
  const before = await report();
  await vscode.workspace.getConfiguration("perfalign").update("threshold", 1.25, vscode.ConfigurationTarget.Global);
  const changed = await poll("the new threshold in the server", 20, async () => {
    const now = await report();
    return now.settings?.threshold === 1.25 ? now : undefined;
  });
  result.settingsChange = { pidBefore: before.pid, pidAfter: changed.pid, threshold: changed.settings?.threshold };
  step("settings changed");

  // The palette's "Open preference report" shows the store's HTML report.
  await vscode.commands.executeCommand("perfalign.openReport");
  const reportTab = await poll("the preference report", 60, () => {
    const active = vscode.window.tabGroups.activeTabGroup.activeTab;
    return Promise.resolve(active?.input instanceof vscode.TabInputWebview ? active : undefined);
  });
  result.reportTab = reportTab.label;
  step("report shown");
  await screenshot(dir, "report");

  // The palette's "Restart server" starts a new server process.
  await vscode.commands.executeCommand("perfalign.restartServer");
  const restarted = await poll("a new server process", 60, async () => {
    try {
      const now = await report();
      return now.pid !== undefined && now.pid !== changed.pid ? now : undefined;
    } catch {
      return undefined; // the command is registered again when the new client is up
    }
  });
  result.restart = { pidBefore: changed.pid, pidAfter: restarted.pid };
  step("server restarted");
}

export function activate(): void {
  const dir = process.env.PERFALIGN_E2E_DIR;
  if (dir === undefined || dir === "") {
    return;
  }
  const spec = JSON.parse(fs.readFileSync(path.join(dir, "spec.json"), "utf-8")) as Spec;
  const result: Result = { ok: false, steps: [], actionsBefore: [], actionsAfter: [] };
  void drive(dir, spec, result)
    .then(() => {
      result.ok = true;
    })
    .catch((err: unknown) => {
      result.error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    })
    .finally(() => {
      fs.writeFileSync(path.join(dir, "result.json"), JSON.stringify(result, null, 2));
    });
}

export function deactivate(): void {
  // Nothing to stop.
}

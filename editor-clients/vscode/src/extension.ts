// perfalign for VS Code: starts `perfalign serve` for C and C++ files and adds its commands.
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { DiffDocuments, SCHEME, ShowDiffCapability, type ShowDiffParams } from "./diff";
import { showHotspots } from "./hotspots";
import { NotificationProgress } from "./progress";
import { BoundedRestarts, showMessage } from "./restarts";
import { writeReport } from "./report";
import { resolveServer } from "./serverCommand";
import { RESTART_KEYS, SECTION, serverSettings } from "./settings";
import { StatusBar } from "./statusBar";
import { Suggestions, type JobFinished } from "./suggestions";

export const OPTIMIZE_KIND = vscode.CodeActionKind.RefactorRewrite.append("optimize");
export const PARALLELIZE_KIND = vscode.CodeActionKind.RefactorRewrite.append("parallelize").append("openmp");

const START_COMMANDS = new Set(["perfalign.optimize", "perfalign.parallelize", "perfalign.cancel"]);

/**
 * The client reports its own failures as notifications, several per crash. perfalign says
 * once what happened and how to fix it (BoundedRestarts, start()); the details go to the output.
 */
class PerfalignClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

class Extension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly output = vscode.window.createOutputChannel("perfalign", { log: true });
  private readonly status = new StatusBar();
  private readonly diffs = new DiffDocuments();
  private readonly suggestions = new Suggestions();
  private readonly restarts = new BoundedRestarts(showMessage(this.output));

  config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  register(context: vscode.ExtensionContext): void {
    context.subscriptions.push(
      this,
      this.output,
      this.status,
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this.diffs),
      vscode.commands.registerCommand("perfalign.optimizeFunction", () => this.runAction(OPTIMIZE_KIND, "optimize")),
      vscode.commands.registerCommand("perfalign.parallelizeFunction", () =>
        this.runAction(PARALLELIZE_KIND, "parallelize with OpenMP"),
      ),
      vscode.commands.registerCommand("perfalign.showLastSuggestions", () => this.suggestions.pick()),
      vscode.commands.registerCommand("perfalign.openReport", () => this.openReport()),
      vscode.commands.registerCommand("perfalign.showHotspots", () => showHotspots()),
      vscode.commands.registerCommand("perfalign.restartServer", () => this.restart()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        this.configurationChanged(e);
      }),
    );
    this.showModel();
  }

  private showModel(): void {
    const config = this.config();
    const model = config.get<string>("model") ?? "";
    const backend = config.get<string>("backend") ?? "llama-cpp";
    this.status.setModel(backend === "llama-cpp" ? model : `${model} (${backend})`);
  }

  async start(): Promise<void> {
    const config = this.config();
    const resolved = resolveServer({
      serverPath: config.get<string>("serverPath") ?? "",
      pythonPath: config.get<string>("pythonPath") ?? "",
      envPath: process.env.PATH ?? "",
    });
    if (!resolved.ok) {
      this.status.setState("missing");
      this.output.appendLine(resolved.message);
      void vscode.window.showErrorMessage(resolved.message, "Open Settings").then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "perfalign");
        }
      });
      return;
    }
    const { command, origin } = resolved.server;
    const args = [...resolved.server.args, "serve"];
    this.output.appendLine(`starting ${command} ${args.join(" ")} (found through ${origin})`);
    const serverOptions: ServerOptions = { command, args, options: { env: process.env } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "c" },
        { scheme: "file", language: "cpp" },
      ],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // A server that dies while starting is a crash: BoundedRestarts decides and says so.
      initializationFailedHandler: (error: unknown) => {
        this.output.appendLine(`the server failed to initialize: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
      errorHandler: this.restarts,
      initializationOptions: () => ({ [SECTION]: serverSettings(this.config()) }),
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const result: unknown = await next(params, token);
            if (!Array.isArray(result)) {
              return result as never;
            }
            return params.items.map((item, i): unknown => {
              if (item.section !== SECTION) {
                return result[i];
              }
              const scope = item.scopeUri !== undefined ? vscode.Uri.parse(item.scopeUri) : undefined;
              return serverSettings(vscode.workspace.getConfiguration(SECTION, scope));
            });
          },
        },
      },
    };
    const client = new PerfalignClient("perfalign", "perfalign", serverOptions, clientOptions);
    client.registerFeature(new NotificationProgress(client, this.status));
    client.registerFeature(new ShowDiffCapability());
    client.onDidChangeState((e) => {
      this.status.setState(e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped");
    });
    client.onNotification("perfalign/showDiff", (params: ShowDiffParams) => {
      void this.diffs.show(params);
    });
    client.onNotification("perfalign/jobFinished", (params: JobFinished) => {
      this.suggestions.add(params);
    });
    this.client = client;
    this.status.setState("starting");
    try {
      await client.start();
    } catch (err) {
      const message =
        `perfalign: the server did not start: ${err instanceof Error ? err.message : String(err)}. ` +
        `Check that \`${command} serve\` runs in a terminal; its output is in the "perfalign" output.`;
      this.output.appendLine(message);
      void vscode.window.showErrorMessage(message, "Show output").then((c) => {
        if (c === "Show output") {
          this.output.show(true);
        }
      });
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`stopping the server: ${String(err)}`);
      }
      await client.dispose();
    }
  }

  async restart(): Promise<void> {
    this.restarts.reset();
    await this.stop();
    await this.start();
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration(SECTION)) {
      return;
    }
    this.showModel();
    if (RESTART_KEYS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))) {
      this.output.appendLine("the server's path changed: restarting it");
      void this.restart();
      return;
    }
    if (this.client?.isRunning() === true) {
      void this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SECTION]: serverSettings(this.config()) },
      });
    }
  }

  /** Palette commands: ask the server for its action on the function under the cursor, then run it. */
  private async runAction(kind: vscode.CodeActionKind, verb: string): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || !["c", "cpp"].includes(editor.document.languageId)) {
      void vscode.window.showInformationMessage(`perfalign: open a C or C++ file and put the cursor in a function to ${verb} it.`);
      return;
    }
    if (this.client?.isRunning() !== true) {
      void vscode.window.showErrorMessage(
        `perfalign: the server is not running, so nothing can ${verb}. Run "perfalign: Restart server"; the "perfalign" output says why it stopped.`,
      );
      return;
    }
    const actions =
      (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[] | undefined>(
        "vscode.executeCodeActionProvider",
        editor.document.uri,
        editor.selection,
        kind.value,
      )) ?? [];
    // The server lists its start action and, once a job has finished, the verified rewrites.
    const start = actions.find(
      (a): a is vscode.CodeAction =>
        "kind" in a && a.kind !== undefined && kind.contains(a.kind) && a.command !== undefined && START_COMMANDS.has(a.command.command),
    );
    if (start?.command === undefined) {
      void vscode.window.showInformationMessage(
        `perfalign: there is no function under the cursor to ${verb}. Put the cursor inside the body of a C or C++ function.`,
      );
      return;
    }
    if (start.command.command === "perfalign.cancel") {
      void vscode.window.showInformationMessage(`perfalign: ${start.title.toLowerCase()} is already running; cancel it from its notification.`);
      return;
    }
    const args: unknown[] = start.command.arguments ?? [];
    await vscode.commands.executeCommand(start.command.command, ...args);
  }

  private async openReport(): Promise<void> {
    const config = this.config();
    const resolved = resolveServer({
      serverPath: config.get<string>("serverPath") ?? "",
      pythonPath: config.get<string>("pythonPath") ?? "",
      envPath: process.env.PATH ?? "",
    });
    if (!resolved.ok) {
      void vscode.window.showErrorMessage(resolved.message);
      return;
    }
    const dbPath = config.get<string | null>("dbPath") ?? "";
    const result = await writeReport(resolved.server, dbPath);
    if (!result.ok) {
      void vscode.window.showErrorMessage(result.message);
      return;
    }
    const panel = vscode.window.createWebviewPanel("perfalign.report", "perfalign preferences", vscode.ViewColumn.Active, {
      enableScripts: false,
    });
    panel.webview.html = result.html;
  }

  dispose(): void {
    void this.stop();
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new Extension();
  extension.register(context);
  await extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}

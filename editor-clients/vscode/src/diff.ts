// "Show diff": the original function and a candidate as read-only virtual documents in a diff editor, and
// beside it the evidence of a faster rewrite: how its time grows with the size, as words and as a plot.
import * as vscode from "vscode";
import type { ClientCapabilities, FeatureState, StaticFeature } from "vscode-languageclient/node";

export const SCHEME = "perfalign";

/** The params of the server's `perfalign/showDiff` notification. */
export interface ShowDiffParams {
  uri: string;
  original: string;
  candidate: string;
  title: string;
  /** The growth with the size beside what the compiler alone gives, in words ("" when not measured). */
  evidence?: string;
  /** The same as an inline SVG plot of time per call against problem size, log axes ("" when not measured). */
  plot?: string;
}

export class DiffDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 1;
  private panel: vscode.WebviewPanel | undefined;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? "";
  }

  async show(params: ShowDiffParams): Promise<void> {
    const n = this.next++;
    const base = vscode.Uri.parse(params.uri).path.split("/").pop() ?? "function.c";
    const left = vscode.Uri.from({ scheme: SCHEME, path: `/${n}/original/${base}` });
    const right = vscode.Uri.from({ scheme: SCHEME, path: `/${n}/candidate/${base}` });
    this.texts.set(left.path, params.original);
    this.texts.set(right.path, params.candidate);
    await vscode.commands.executeCommand("vscode.diff", left, right, params.title, { preview: false });
    if (params.evidence) {
      this.showEvidence(params);
    }
  }

  /** The evidence beside the diff, in one panel that each "Show diff" reuses. */
  private showEvidence(params: ShowDiffParams): void {
    if (this.panel === undefined) {
      this.panel = vscode.window.createWebviewPanel(
        "perfalign.evidence",
        "perfalign: evidence",
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
    }
    this.panel.title = `perfalign: ${params.title}`;
    this.panel.webview.html = evidenceHtml(params);
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A page with no scripts: the title, the evidence in words and the server's SVG plot (it draws from no URL). */
export function evidenceHtml(params: ShowDiffParams): string {
  const plot = params.plot?.startsWith("<svg") ? params.plot : "";
  return (
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\">" +
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline';\">" +
    "<style>body { font-family: var(--vscode-font-family); } svg { background: #fff; }</style></head><body>" +
    `<h3>${escapeHtml(params.title)}</h3><p>${escapeHtml(params.evidence ?? "")}</p>${plot}</body></html>`
  );
}

/** Tells the server that this client renders `perfalign/showDiff` itself. */
export class ShowDiffCapability implements StaticFeature {
  getState(): FeatureState {
    return { kind: "static" };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), perfalignShowDiff: true };
  }

  initialize(): void {
    // Nothing to set up: the notification handler is registered with the client.
  }

  clear(): void {
    // Nothing to clear.
  }
}

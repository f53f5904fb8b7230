// "Show diff": the original function and a candidate as read-only virtual documents in a diff editor.
import * as vscode from "vscode";
import type { ClientCapabilities, FeatureState, StaticFeature } from "vscode-languageclient/node";

export const SCHEME = "perfalign";

/** The params of the server's `perfalign/showDiff` notification. */
export interface ShowDiffParams {
  uri: string;
  original: string;
  candidate: string;
  title: string;
}

export class DiffDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 1;

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
  }
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

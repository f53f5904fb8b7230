// The verified suggestions the server announced (`perfalign/jobFinished`), for "Show last suggestions".
import * as vscode from "vscode";

/** The params of the server's `perfalign/jobFinished` notification. */
export interface JobFinished {
  uri: string;
  function: string;
  mode: string;
  job: string;
  status: string;
  summary: string;
  suggestions: { suggestion: string; title: string; speedup: number | null; candidateId: string | null }[];
}

export interface Announced {
  uri: string;
  function: string;
  suggestion: string;
  title: string;
  received: Date;
}

export class Suggestions {
  /** The latest first, at most 20. */
  private readonly recent: Announced[] = [];

  add(done: JobFinished): void {
    // "verified", and "cancelled" or "failed" after some suggestions were verified: those stay offered.
    for (const s of [...done.suggestions].reverse()) {
      this.recent.unshift({ uri: done.uri, function: done.function, suggestion: s.suggestion, title: s.title, received: new Date() });
    }
    this.recent.splice(20);
  }

  async pick(): Promise<void> {
    if (this.recent.length === 0) {
      void vscode.window.showInformationMessage(
        'perfalign: no verified suggestions yet in this window. Put the cursor in a function and run "perfalign: Optimize function".',
      );
      return;
    }
    const picked = await vscode.window.showQuickPick(
      this.recent.map((s) => ({
        label: `${s.function}: ${s.title}`,
        description: vscode.workspace.asRelativePath(vscode.Uri.parse(s.uri)),
        detail: `verified at ${s.received.toLocaleTimeString()}`,
        s,
      })),
      { placeHolder: "A verified suggestion" },
    );
    if (picked === undefined) {
      return;
    }
    const what = await vscode.window.showQuickPick(
      [
        { label: "Apply", command: "perfalign.apply" },
        { label: "Show diff", command: "perfalign.showDiff" },
        { label: "Reject", command: "perfalign.reject" },
      ],
      { placeHolder: `${picked.s.function}: ${picked.s.title}` },
    );
    if (what !== undefined) {
      const answer: unknown = await vscode.commands.executeCommand(what.command, {
        uri: picked.s.uri,
        suggestion: picked.s.suggestion,
      });
      const status = (answer as { status?: unknown } | undefined)?.status;
      if (what.command !== "perfalign.showDiff" && typeof status === "string" && status !== "applied" && status !== "rejected") {
        // The server has already said why in a message; keep the list honest.
        this.recent.splice(this.recent.indexOf(picked.s), 1);
      }
    }
  }
}

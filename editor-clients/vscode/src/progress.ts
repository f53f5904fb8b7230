// Shows the server's work-done progress as a notification with a cancel button,
// and the running job in the status bar. Replaces the client's default handler,
// which puts progress in the status bar only, where it cannot be cancelled.
import * as vscode from "vscode";
import {
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type BaseLanguageClient,
  type ClientCapabilities,
  type FeatureState,
  type ProgressToken,
  type StaticFeature,
  type WorkDoneProgressBegin,
  type WorkDoneProgressReport,
  type WorkDoneProgressEnd,
} from "vscode-languageclient/node";
import type { StatusBar } from "./statusBar";

type Value = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export class NotificationProgress implements StaticFeature {
  private readonly open = new Set<string>();

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly status: StatusBar,
  ) {}

  getState(): FeatureState {
    return { kind: "static" };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window ??= {};
    capabilities.window.workDoneProgress = true;
  }

  initialize(): void {
    this.client.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
      this.track(params.token);
    });
  }

  clear(): void {
    for (const token of this.open) {
      this.status.jobEnded(token);
    }
    this.open.clear();
  }

  private track(token: ProgressToken): void {
    const key = String(token);
    let report: ((value: Value) => void) | undefined;
    const queued: Value[] = [];
    const sub = this.client.onProgress(WorkDoneProgress.type, token, (value: Value) => {
      if (report === undefined) {
        queued.push(value);
      } else {
        report(value);
      }
    });
    this.open.add(key);
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "perfalign", cancellable: true },
      (progress, cancel) =>
        new Promise<void>((resolve) => {
          let last = 0;
          const finish = (): void => {
            sub.dispose();
            this.open.delete(key);
            this.status.jobEnded(key);
            resolve();
          };
          cancel.onCancellationRequested(() => {
            void this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
          });
          let title = "";
          report = (value: Value): void => {
            if (value.kind === "end") {
              finish();
              return;
            }
            if (value.kind === "begin") {
              title = value.title.replace(/^perfalign: /, "");
              this.status.jobStarted(key, title);
            }
            const message = [title, value.message].filter((s) => s !== undefined && s !== "").join(": ");
            const increment =
              value.percentage !== undefined ? Math.max(0, value.percentage - last) : undefined;
            if (value.percentage !== undefined) {
              last = value.percentage;
            }
            progress.report({ message, increment });
          };
          for (const value of queued.splice(0)) {
            report(value);
          }
        }),
    );
  }

  dispose(): void {
    this.clear();
  }
}

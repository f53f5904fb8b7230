// Restarts a crashed server a bounded number of times within a window, and says so.
import * as vscode from "vscode";
import { CloseAction, ErrorAction, type CloseHandlerResult, type ErrorHandler, type ErrorHandlerResult } from "vscode-languageclient/node";

export const MAX_RESTARTS = 3;
const WINDOW_MS = 3 * 60 * 1000;

export class BoundedRestarts implements ErrorHandler {
  private crashes: number[] = [];

  constructor(
    private readonly show: (message: string, isError: boolean) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Forget earlier crashes: the user restarted the server by hand. */
  reset(): void {
    this.crashes = [];
  }

  error(_error: Error, _message: unknown, count: number | undefined): ErrorHandlerResult {
    // A few broken messages are survivable; a stream of them means the pipe is gone.
    return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
  }

  closed(): CloseHandlerResult {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < WINDOW_MS);
    this.crashes.push(t);
    const n = this.crashes.length;
    if (n <= MAX_RESTARTS) {
      this.show(
        `perfalign: the server stopped unexpectedly; restarting it (${n} of ${MAX_RESTARTS}). ` +
          `Its last messages are in the "perfalign" output.`,
        false,
      );
      return { action: CloseAction.Restart, handled: true };
    }
    this.show(
      `perfalign: the server stopped ${n} times in 3 minutes and will not be restarted again. ` +
        `See the "perfalign" output for its last error, fix it (often: "perfalign.serverPath" or the ` +
        `Python environment), then run "perfalign: Restart server".`,
      true,
    );
    return { action: CloseAction.DoNotRestart, handled: true };
  }
}

export function showMessage(output: vscode.OutputChannel): (message: string, isError: boolean) => void {
  return (message, isError) => {
    output.appendLine(message);
    const show = isError ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    void show(message, "Show output").then((choice) => {
      if (choice === "Show output") {
        output.show(true);
      }
    });
  };
}

// The status-bar item: the model in use, and the running job while there is one.
import * as vscode from "vscode";

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private model = "";
  private state: "starting" | "running" | "stopped" | "missing" = "starting";
  private readonly jobs = new Map<string, string>();

  constructor() {
    this.item = vscode.window.createStatusBarItem("perfalign.status", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "perfalign";
    this.item.command = "perfalign.showLastSuggestions";
    this.render();
    this.item.show();
  }

  setModel(model: string): void {
    this.model = model;
    this.render();
  }

  setState(state: "starting" | "running" | "stopped" | "missing"): void {
    this.state = state;
    if (state !== "running") {
      this.jobs.clear();
    }
    this.render();
  }

  jobStarted(token: string, title: string): void {
    this.jobs.set(token, title);
    this.render();
  }

  jobEnded(token: string): void {
    this.jobs.delete(token);
    this.render();
  }

  private render(): void {
    const running = [...this.jobs.values()];
    if (running.length > 0) {
      this.item.text = `$(sync~spin) perfalign: ${running[running.length - 1] ?? ""}`;
      this.item.tooltip = `perfalign (${this.model}) is working: ${running.join("; ")}`;
      return;
    }
    const icons = { starting: "$(loading~spin)", running: "$(zap)", stopped: "$(debug-disconnect)", missing: "$(warning)" };
    this.item.text = `${icons[this.state]} perfalign: ${this.model}`;
    const states = {
      starting: "starting the server",
      running: "ready",
      stopped: "the server is stopped; run \"perfalign: Restart server\"",
      missing: "the server was not found; see the notification",
    };
    this.item.tooltip = `perfalign, model ${this.model}: ${states[this.state]}. Click for the last suggestions.`;
  }

  dispose(): void {
    this.item.dispose();
  }
}

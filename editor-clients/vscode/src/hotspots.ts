// "perfalign: Show hot functions": the ranking of the last `perfalign hotspots` run, opening the picked function.
import * as vscode from "vscode";
import { hotspotItems, type HotspotsReport } from "./hotspotItems";

export async function showHotspots(): Promise<void> {
  const report = await vscode.commands.executeCommand<{ hotspots?: HotspotsReport | null } | undefined>("perfalign.report");
  const ranking = hotspotItems(report?.hotspots);
  if (ranking === null) {
    const problem = report?.hotspots?.problem;
    void vscode.window.showInformationMessage(
      `perfalign: ${problem ?? "no profile in this workspace yet. Run `perfalign hotspots -- ./your-benchmark ARGS` in a terminal."}`,
    );
    return;
  }
  const picked = await vscode.window.showQuickPick(ranking.items, { title: ranking.title, matchOnDetail: true });
  if (picked === undefined) {
    return;
  }
  const position = new vscode.Position(picked.entry.line, 0);
  await vscode.window.showTextDocument(vscode.Uri.parse(picked.entry.uri), {
    selection: new vscode.Range(position, position),
  });
}

// The kept profile's ranking (the "hotspots" of the server's perfalign.report), as quick-pick items.

/** One ranked function, as perfalign.report lists it; `line` is 0-based, where the function is now. */
export interface HotspotEntry {
  rank: number;
  uri: string;
  path: string;
  function: string;
  line: number;
  self: number;
  inclusive: number;
  stale: string | null;
}

export interface HotspotsReport {
  command?: string;
  time?: string;
  profiler?: string;
  overhead?: number | null;
  binaryChanged?: string | null;
  functions?: HotspotEntry[];
  problem?: string;
}

export interface HotspotItem {
  label: string;
  description: string;
  detail: string;
  entry: HotspotEntry;
}

function percent(share: number): string {
  const value = share * 100;
  return value >= 10 ? `${value.toFixed(0)}%` : `${value.toFixed(1)}%`;
}

/** Quick-pick items, hottest first, and the title that says which run they come from; null without a profile. */
export function hotspotItems(report: HotspotsReport | null | undefined): { title: string; items: HotspotItem[] } | null {
  if (report?.functions === undefined || report.command === undefined) {
    return null;
  }
  const items = report.functions.map((entry) => ({
    label: `${entry.rank}. ${entry.function}`,
    description: `${percent(entry.self)} of run time, ${percent(entry.inclusive)} with what it calls`,
    detail: `${entry.path}:${entry.line + 1}${entry.stale === null ? "" : ` (stale: ${entry.stale})`}`,
    entry,
  }));
  let title = `Hot functions of \`${report.command}\`, ${report.time ?? ""} (${report.profiler ?? ""})`;
  if (report.binaryChanged) {
    title += ` - ${report.binaryChanged}`;
  }
  return { title, items };
}

// The ranking shown by "perfalign: Show hot functions": run with `npm test` (node's test runner).
import * as assert from "node:assert/strict";
import { test } from "node:test";
import { hotspotItems } from "../src/hotspotItems";

void test("the ranking lists the hot functions first, with their shares, where they are and what is stale", () => {
  const ranking = hotspotItems({
    command: "./bench 4096",
    time: "2026-12-01T10:00:00Z",
    profiler: "perf",
    binaryChanged: null,
    functions: [
      { rank: 1, uri: "file:///w/bench.c", path: "bench.c", function: "hot", line: 5, self: 0.31, inclusive: 0.4, stale: null },
      { rank: 2, uri: "file:///w/bench.c", path: "bench.c", function: "warm", line: 14, self: 0.021, inclusive: 0.021, stale: "warm changed since the profile was taken" },
    ],
  });
  assert.ok(ranking !== null);
  assert.equal(ranking.title, "Hot functions of `./bench 4096`, 2026-12-01T10:00:00Z (perf)");
  assert.deepEqual(
    ranking.items.map((i) => [i.label, i.description, i.detail]),
    [
      ["1. hot", "31% of run time, 40% with what it calls", "bench.c:6"],
      ["2. warm", "2.1% of run time, 2.1% with what it calls", "bench.c:15 (stale: warm changed since the profile was taken)"],
    ],
  );
});

void test("without a profile there is no ranking", () => {
  assert.equal(hotspotItems(null), null);
  assert.equal(hotspotItems({ problem: "damaged" }), null);
});

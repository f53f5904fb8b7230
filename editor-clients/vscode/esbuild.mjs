// Bundles the extension (and the end-to-end helpers) into out/; vscode stays external.
import * as esbuild from "esbuild";

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
};

await Promise.all([
  esbuild.build({ ...common, entryPoints: ["src/extension.ts"], outfile: "out/extension.js", external: ["vscode"], minify: true }),
  esbuild.build({ ...common, entryPoints: ["e2e/driver/src/driver.ts"], outfile: "e2e/driver/out/driver.js", external: ["vscode"] }),
  esbuild.build({ ...common, entryPoints: ["e2e/run.ts"], outfile: "out/e2e-run.js", external: ["playwright-core"] }),
  esbuild.build({ ...common, entryPoints: ["test/serverCommand.test.ts"], outfile: "out/test/serverCommand.test.js" }),
  esbuild.build({ ...common, entryPoints: ["test/hotspotItems.test.ts"], outfile: "out/test/hotspotItems.test.js" }),
]);

// Opens code-server in Debian's headless Chromium and serves the driver's screenshot requests
// until the driver has written result.json (or a notification with the expected text shows).
//
//   node out/e2e-run.js --url URL --dir DIR [--timeout SECONDS] [--until-toast TEXT]... [--chromium PATH]
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chromium, type Page } from "playwright-core";

interface Options {
  url: string;
  dir: string;
  timeoutS: number;
  untilToast: string[];
  chromium: string;
}

function parse(argv: string[]): Options {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const url = get("url");
  const dir = get("dir");
  if (url === undefined || dir === undefined) {
    throw new Error("usage: e2e-run --url URL --dir DIR [--timeout S] [--until-toast TEXT] [--chromium PATH]");
  }
  return {
    url,
    dir,
    timeoutS: Number(get("timeout") ?? "180"),
    untilToast: argv.slice(1).filter((_, i) => argv[i] === "--until-toast"),
    chromium: get("chromium") ?? "/usr/bin/chromium",
  };
}

/** The notifications shown as toasts, and those in the notification center when it is open. */
async function notifications(page: Page): Promise<string[]> {
  const toasts = await page.locator(".notification-toast").allInnerTexts();
  const center = await page.locator(".notifications-center .notification-list-item").allInnerTexts();
  return [...toasts, ...center];
}

/** Open the notification center: toasts that timed out are still listed there. */
async function openCenter(page: Page): Promise<void> {
  const bell = page.locator(".statusbar-item .codicon-bell, .statusbar-item .codicon-bell-dot");
  if ((await bell.count()) > 0) {
    await bell.first().click();
  }
}

async function main(): Promise<number> {
  const opts = parse(process.argv.slice(2));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "perfalign-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: opts.chromium,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
  const seen = new Set<string>();
  let status = 1;
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.on("console", (msg) => {
      if (msg.type() === "error") {
        fs.appendFileSync(path.join(opts.dir, "browser-console.log"), `${msg.text()}\n`);
      }
    });
    await page.goto(opts.url, { waitUntil: "domcontentloaded" });
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    const deadline = Date.now() + opts.timeoutS * 1000;
    const centerAt = Date.now() + 15_000;
    let centerOpened = false;
    const resultFile = path.join(opts.dir, "result.json");
    for (;;) {
      for (const name of fs.readdirSync(opts.dir)) {
        const shot = /^shot-(.+)\.request$/.exec(name);
        if (shot?.[1] !== undefined) {
          await page.screenshot({ path: path.join(opts.dir, `${shot[1]}.png`) });
          fs.rmSync(path.join(opts.dir, name), { force: true });
        }
        const click = /^click-(.+)\.request$/.exec(name);
        if (click?.[1] !== undefined) {
          // A button of a notification toast, as a user would press it.
          const button = page.locator(".notification-toast .monaco-button", { hasText: click[1] }).first();
          await button.waitFor({ timeout: 20_000 });
          await button.click();
          fs.rmSync(path.join(opts.dir, name), { force: true });
        }
      }
      for (const text of await notifications(page)) {
        seen.add(text);
      }
      if (opts.untilToast.length > 0 && !centerOpened && Date.now() > centerAt) {
        centerOpened = true;
        await openCenter(page);
      }
      const wanted = opts.untilToast;
      const done =
        wanted.length > 0 ? wanted.every((w) => [...seen].some((t) => t.includes(w))) : fs.existsSync(resultFile);
      if (done) {
        await page.waitForTimeout(500);
        await page.screenshot({ path: path.join(opts.dir, "final.png") });
        status = 0;
        break;
      }
      if (Date.now() > deadline) {
        await page.screenshot({ path: path.join(opts.dir, "timeout.png") });
        process.stderr.write(`e2e-run: nothing after ${opts.timeoutS}s; see ${opts.dir}/timeout.png\n`);
        break;
      }
      await page.waitForTimeout(200);
    }
  } finally {
    fs.writeFileSync(path.join(opts.dir, "notifications.json"), JSON.stringify([...seen], null, 2));
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  return status;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`e2e-run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(2);
  },
);

import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import { findChromium, renderedDom, screenshot } from "../helpers/chromium.js";
import { fleetThread } from "../helpers/fleetThreads.js";
import { tempFiles } from "../helpers/tempFiles.js";

const { dir, write } = tempFiles("hk-eval-browser-");
const EVALDATA = join(import.meta.dirname, "..", "..", "..", "shared", "evaldata");
const chromium = findChromium();
if (!chromium)
  console.warn("test/cli/evalHtmlBrowser.test.ts: skipped: no chromium on PATH (Debian: apt-get install chromium)");

/** ../shared/evaldata with the outcomes its index publishes, else a generated fleet with outcomes of its own. */
function fleetToReplay(): { args: string[]; label: string } {
  if (existsSync(join(EVALDATA, "index.json")))
    return { args: [join(EVALDATA, "threads"), "--outcomes", join(EVALDATA, "index.json")], label: "evaldata" };
  const outcomes: Record<string, string> = {};
  for (let i = 0; i < 60; i++) {
    write(`fleet/t${i}.json`, fleetThread(i));
    outcomes[`fleet-${i}`] = i % 4 === 0 ? "failure" : "success";
  }
  return { args: [join(dir, "fleet"), "--outcomes", write("outcomes.json", outcomes)], label: "generated" };
}

describe("eval --html in a browser", () => {
  it.skipIf(!chromium)(
    "renders the report with its charts and linked thread pages, and a screenshot for the docs",
    async () => {
      const { args, label } = fleetToReplay();
      const report = join(dir, "report.html");
      const errors: string[] = [];
      const code = await runCli(["eval", ...args, "--html", report, "--workers", "2"], {
        stdout: { write: () => true },
        stderr: { write: (t: string) => errors.push(t) },
        env: {},
      });
      expect(errors.filter((line) => /^(error|harness-kit):/.test(line))).toEqual([]);
      expect(code).toBe(0);

      const dom = renderedDom(chromium!, report);
      expect(dom).toMatch(/<title>harness-kit eval: [\d,]+ threads<\/title>/); // no script changed it
      expect(dom).not.toMatch(/<script/i);
      expect((dom.match(/<svg /g) ?? []).length).toBe(4);
      expect(dom).toContain("successful runs:");
      expect(dom).toContain(">stopAt 8</text>"); // the default runaway stop, drawn
      const links = [...dom.matchAll(/<a href="(report-threads\/[^"]+)"/g)].map((m) => decodeURIComponent(m[1]!));
      expect(links.length).toBeGreaterThan(0);
      const pages = readdirSync(join(dir, "report-threads"));
      for (const link of links) expect(pages).toContain(link.slice("report-threads/".length));
      const threadDom = renderedDom(chromium!, join(dir, links[0]!));
      expect(threadDom).toContain('class="entry ');

      const shot = join(dir, "eval-report.png");
      screenshot(chromium!, report, shot, 1200, 900);
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
      expect(statSync(shot).size).toBeGreaterThan(20_000);
      // HARNESS_KIT_SCREENSHOT=1 refreshes the picture the docs show (taken over evaldata)
      if (process.env.HARNESS_KIT_SCREENSHOT === "1" && label === "evaldata")
        copyFileSync(shot, new URL("../../docs/eval-report.png", import.meta.url));
      expect(existsSync(new URL("../../docs/eval-report.png", import.meta.url))).toBe(true);
    },
    300_000,
  );
});

import { execFileSync } from "node:child_process";

/** The headless browser on PATH (Debian's `chromium` package), or undefined. */
export function findChromium(): string | undefined {
  for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
    try {
      execFileSync("which", [name], { stdio: "pipe" });
      return name;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Flags for a headless render as root in a container. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--hide-scrollbars",
];

/** The page's DOM after it rendered: what a reader's browser makes of it. */
export function renderedDom(chromium: string, page: string): string {
  return execFileSync(chromium, [...CHROMIUM_ARGS, "--dump-dom", `file://${page}`], {
    encoding: "utf8",
    timeout: 90_000,
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** A PNG of the page's top, `width` x `height` pixels. */
export function screenshot(chromium: string, page: string, file: string, width: number, height: number): void {
  execFileSync(
    chromium,
    [...CHROMIUM_ARGS, `--screenshot=${file}`, `--window-size=${width},${height}`, `file://${page}`],
    { timeout: 90_000, stdio: "ignore" },
  );
}

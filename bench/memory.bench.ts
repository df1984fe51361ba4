import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { verdict } from "./timing.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsx = join(here, "..", "node_modules", ".bin", "tsx");

function run(config: "bare" | "stack"): { before: number; peak: number; toolMessages: number } {
  const out = execFileSync(tsx, ["--expose-gc", join(here, "memoryChild.ts"), config], { encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split("\n").at(-1)!) as { before: number; peak: number; toolMessages: number };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** Peak heap of a 10,000-call thread, each configuration in a fresh process. */
export default async function memoryBench(): Promise<string> {
  const bare = run("bare");
  const stack = run("stack");
  const ratio = stack.peak / bare.peak;
  const growth = (stack.peak - stack.before) / (bare.peak - bare.before);
  const rows = [
    "| measurement | result | target | |",
    "|---|---|---|---|",
    `| 10,000-call thread, bare: peak heap (growth during the run) | ${mb(bare.peak)} (${mb(bare.peak - bare.before)}), ${bare.toolMessages} tool messages | | |`,
    `| … with the recommended stack | ${mb(stack.peak)} (${mb(stack.peak - stack.before)}), ${stack.toolMessages} tool messages | | |`,
    `| peak heap, stack ÷ bare | ${ratio.toFixed(2)}× (growth ${growth.toFixed(2)}×) | ≤ 1.5× | ${verdict(ratio <= 1.5)} |`,
  ];
  return `## Memory\n\n${rows.join("\n")}`;
}

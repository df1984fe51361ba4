import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { verdict } from "./timing.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsx = join(here, "..", "node_modules", ".bin", "tsx");

interface MemoryRun {
  retained: number;
  maxRss: number;
  toolMessages: number;
}

function run(config: "bare" | "stack"): MemoryRun {
  const out = execFileSync(tsx, ["--expose-gc", join(here, "memoryChild.ts"), config], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").at(-1)!) as MemoryRun;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** Memory of a 10,000-call thread, each configuration in a fresh process. */
export default async function memoryBench(): Promise<string> {
  const bare = run("bare");
  const stack = run("stack");
  const rss = stack.maxRss / bare.maxRss;
  const held = stack.retained / bare.retained;
  const rows = [
    "| measurement | result | target | |",
    "|---|---|---|---|",
    `| 10,000-call thread, bare: peak RSS / heap the finished thread holds | ${mb(bare.maxRss)} / ${mb(bare.retained)} (${bare.toolMessages} tool messages) | | |`,
    `| … with the recommended stack | ${mb(stack.maxRss)} / ${mb(stack.retained)} (${stack.toolMessages} tool messages) | | |`,
    `| peak RSS, stack ÷ bare | ${rss.toFixed(2)}× | ≤ 1.5× | ${verdict(rss <= 1.5)} |`,
    `| heap held by the thread, stack ÷ bare | ${held.toFixed(2)}× | ≤ 1.5× | ${verdict(held <= 1.5)} |`,
  ];
  return `## Memory\n\n${rows.join("\n")}`;
}

// How much distinct code one step runs: the functions V8 counts as called in one mid-run step of a
// 20-turn createAgent run, bare, with the recommended stack, and with each of its guards alone.
// Unlike a time, the count does not drift with the machine, and a step's cost with cold caches
// follows it (bench/README.md). Each configuration in a fresh process (footprintChild.ts).
// `npm run bench -- footprint`.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { recommendedGuards } from "../src/index.js";
import type { ComposedGuards } from "../src/stack/composeGuards.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsx = join(here, "..", "node_modules", ".bin", "tsx");

type Groups = Record<string, { functions: number; calls: number }>;

function footprint(config: string): { ours: number; others: number; oursCalls: number; groups: Groups } {
  const out = execFileSync(tsx, [join(here, "footprintChild.ts"), config], { encoding: "utf8", maxBuffer: 1 << 20 });
  const groups = JSON.parse(out.trim().split("\n").at(-1)!) as Groups;
  let [ours, others, oursCalls] = [0, 0, 0];
  for (const [group, { functions, calls }] of Object.entries(groups)) {
    // The scripted model is the bench's stand-in for an LLM, not our code under test.
    if (group === "src/testing") others += functions;
    else if (group.startsWith("src/")) [ours, oursCalls] = [ours + functions, oursCalls + calls];
    else others += functions;
  }
  return { ours, others, oursCalls, groups };
}

export default async function footprintBench(): Promise<string> {
  const rows = [
    "| what runs | functions run in one step: ours | LangChain, LangGraph, Node | calls of ours |",
    "|---|---|---|---|",
  ];
  const row = (label: string, config: string) => {
    const f = footprint(config);
    rows.push(`| ${label} | ${f.ours} | ${f.others} | ${f.oursCalls} |`);
    return f;
  };
  row("bare agent", "bare");
  const whole = row("the recommended stack", "stack");
  const members = (recommendedGuards().agent[0] as unknown as ComposedGuards).members.map((m) => m.name);
  for (const name of members) row(`${name} alone`, name);
  const parts = Object.entries(whole.groups)
    .filter(([group]) => group.startsWith("src/") && group !== "src/testing")
    .sort((a, b) => b[1].functions - a[1].functions)
    .map(([group, { functions }]) => `${group} ${functions}`);
  return `## Code run per step (20 tool turns, the 10th step)\n\n${rows.join("\n")}\n\nThe stack's functions by folder: ${parts.join(", ")}.`;
}

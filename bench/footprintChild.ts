// Child process of footprint.bench.ts: which functions one step of a 20-turn createAgent run
// executes, bare or with the recommended stack (or one member of it), by V8's precise coverage.
// Prints JSON: per group of source files, how many distinct functions ran and how many calls.
import { Session } from "node:inspector/promises";
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage } from "@langchain/core/messages";
import { recommendedGuards } from "../src/index.js";
import { ComposedGuards } from "../src/stack/composeGuards.js";
import { lookupScript } from "./agentOverhead.js";
import { loadHasher } from "../src/observe/hash.js";

const TURNS = 20;
/** The step measured: from the tool of this turn to the tool of the next. */
const MEASURED_TURN = 10;
const RUNS = 5;
const config = process.argv[2] ?? "bare";

const stack = () => recommendedGuards({ runaway: { warnAt: 1e4, blockAt: 1e4, stopAt: 1e4 } }).agent;

function middleware(): AgentMiddleware[] {
  if (config === "bare") return [];
  if (config === "stack") return stack();
  const [composed, carry] = stack() as [ComposedGuards, AgentMiddleware];
  const members = composed.members.filter((m) => m.name === config);
  if (members.length === 0) throw new Error(`no member named ${config}`);
  return [new ComposedGuards("measured", members) as unknown as AgentMiddleware, carry];
}

type Coverage = Awaited<ReturnType<typeof takeCoverage>>;

const session = new Session();
session.connect();
const takeCoverage = async () =>
  (await session.post("Profiler.takePreciseCoverage")).result as {
    url: string;
    functions: { functionName: string; ranges: { count: number }[] }[];
  }[];

/** Which group a script belongs to: our own sources by folder, everything else by package. */
function groupOf(url: string): string {
  const ours = /\/src\/(.+)$/.exec(url);
  if (ours && !url.includes("node_modules")) return `src/${ours[1]!.split("/").slice(0, -1).join("/") || "."}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  return url.startsWith("node:") ? "node" : "other";
}

async function oneRun(): Promise<Coverage | undefined> {
  let turn = 0;
  let window: Coverage | undefined;
  const { model, tools } = lookupScript(TURNS, async () => {
    turn++;
    if (turn === MEASURED_TURN) await takeCoverage();
    if (turn === MEASURED_TURN + 1) window = await takeCoverage();
  });
  await createAgent({ model, tools, middleware: middleware() }).invoke(
    { messages: [new HumanMessage("go")] },
    { recursionLimit: 10_000 },
  );
  return window;
}

// A real agent waits on its model long enough for the hasher to load before its first results;
// these scripted runs never yield to the event loop, so a guard alone would judge without it.
await loadHasher();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
const groups: Record<string, { functions: number; calls: number }> = {};
for (let run = 0; run < RUNS; run++) {
  const window = await oneRun();
  // The first runs compile lazily; the last is the steady state.
  if (run < RUNS - 1 || !window) continue;
  for (const script of window) {
    const group = (groups[groupOf(script.url)] ??= { functions: 0, calls: 0 });
    for (const fn of script.functions) {
      const calls = fn.ranges[0]?.count ?? 0;
      if (calls === 0) continue;
      group.functions++;
      group.calls += calls;
    }
  }
}
await session.post("Profiler.stopPreciseCoverage");
console.log(JSON.stringify(groups));

import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { jsonrepair } from "jsonrepair";
import { createAgent, type AgentMiddleware } from "langchain";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { resolveInside } from "../src/guards/path/resolveInside.js";
import { parseToolArguments } from "../src/guards/repair/parseArguments.js";
import { checkArguments } from "../src/guards/repair/validateArguments.js";
import { PathGuardMiddleware } from "../src/guards/path/PathGuardMiddleware.js";
import { ToolCallRepairMiddleware } from "../src/guards/repair/ToolCallRepairMiddleware.js";
import { ScriptedChatModel } from "../src/testing/index.js";
import { mirrorHooks } from "./passThrough.js";
import { fmt, measure, nowMicros, summarise, verdict } from "./timing.js";

const writeSchema = z.object({
  file_path: z.string(),
  content: z.string(),
  options: z.object({ overwrite: z.boolean(), mode: z.number().int(), tags: z.array(z.string()) }),
});

/** About 1 KB of write_file arguments, as strict JSON and as a model might mangle them. */
function argumentTexts(): { strict: string; malformed: string } {
  const args = {
    file_path: "/srv/project/src/components/Button.tsx",
    content:
      "export function Button(props: Props) {\n  return <button className={styles.primary} onClick={props.onClick}>{props.label}</button>;\n}\n".repeat(
        7,
      ),
    options: { overwrite: true, mode: 420, tags: ["ui", "button", "react"] },
  };
  const strict = JSON.stringify(args);
  // unquoted keys, a trailing comma and the closing brace missing: syntax-only damage
  const malformed = strict.replace(/"(file_path|content|options|overwrite|mode|tags)":/g, "$1:").replace(/]}}$/, "],}");
  return { strict, malformed };
}

async function repairNumbers(rows: string[]): Promise<void> {
  const { strict, malformed } = argumentTexts();
  const repaired = parseToolArguments(malformed);
  if (!repaired.ok) throw new Error(`bench input was refused: ${JSON.stringify(repaired.problem)}`);
  const strictParse = await measure(() => JSON.parse(strict), 20_000);
  const jsonrepairOnly = await measure(() => JSON.parse(jsonrepair(malformed)), 5_000);
  const repair = await measure(async () => {
    const parsed = parseToolArguments(malformed);
    if (parsed.ok) await checkArguments(writeSchema, parsed.args);
  }, 5_000);
  const wellFormed = await measure(async () => {
    const parsed = parseToolArguments(strict);
    if (parsed.ok) await checkArguments(writeSchema, parsed.args);
  }, 20_000);
  rows.push(
    `| JSON.parse of the same arguments, well formed (${strict.length} chars), baseline | p50 ${fmt(strictParse.p50)} (p95 ${fmt(strictParse.p95)}) | | |`,
  );
  rows.push(
    `| jsonrepair + JSON.parse alone, malformed (${malformed.length} chars) | p50 ${fmt(jsonrepairOnly.p50)} (${(jsonrepairOnly.p50 / strictParse.p50).toFixed(1)}× baseline) | | |`,
  );
  rows.push(
    `| repair of a malformed 1 KB argument string: scan + jsonrepair + cross-check + schema | p50 ${fmt(repair.p50)} (p95 ${fmt(repair.p95)}, ${(repair.p50 / strictParse.p50).toFixed(1)}× baseline) | p50 ≤ 200 µs | ${verdict(repair.p50 <= 200)} |`,
  );
  rows.push(`| same path for the well-formed string (strict parse + schema) | p50 ${fmt(wellFormed.p50)} | | |`);

  const repairMiddleware = new ToolCallRepairMiddleware();
  const tools = [
    { name: "write_file", schema: writeSchema },
    { name: "read_file", schema: z.object({ path: z.string() }) },
  ];
  const clean = new AIMessage({
    id: "m",
    content: "",
    tool_calls: [{ id: "c", name: "write_file", args: JSON.parse(strict), type: "tool_call" }],
  });
  const review = await measure(() => repairMiddleware.wrapModelCall({ tools }, () => clean), 20_000);
  rows.push(
    `| wrapModelCall on a well-formed turn (nothing to repair) | p50 ${fmt(review.p50)} (p95 ${fmt(review.p95)}) | | |`,
  );
}

interface PathTree {
  top: string;
  root: string;
}

function pathTree(): PathTree {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "hk-bench-paths-")));
  const root = join(top, "project");
  mkdirSync(join(root, "src", "components", "forms"), { recursive: true });
  mkdirSync(join(top, "outside"), { recursive: true });
  writeFileSync(join(root, "src", "components", "forms", "Input.tsx"), "x");
  symlinkSync(join(top, "outside"), join(root, "link-out"));
  return { top, root };
}

async function pathNumbers(rows: string[]): Promise<void> {
  const tree = pathTree();
  try {
    const cases: Array<[string, string]> = [
      ["existing file, relative", "src/components/forms/Input.tsx"],
      ["new file in an existing directory", "src/components/forms/New.tsx"],
      ["new file under new directories", "src/new/deeper/file.ts"],
      ["escape through a symlink (refused)", "link-out/secret.txt"],
      ["URL-encoded traversal (refused)", "..%2f..%2fetc%2fpasswd"],
    ];
    for (const [label, path] of cases) {
      const sample = await measure(() => resolveInside([tree.root], path, { baseDir: tree.root }), 5_000, 500);
      rows.push(
        `| path check, ${label}, warm cache | p50 ${fmt(sample.p50)} (p95 ${fmt(sample.p95)}) | p50 ≤ 50 µs | ${verdict(sample.p50 <= 50)} |`,
      );
    }
  } finally {
    rmSync(tree.top, { recursive: true, force: true });
  }
}

const STEPS = 100;

async function agentRun(middleware: AgentMiddleware[]): Promise<number> {
  const model = new ScriptedChatModel({
    turns: [
      ...Array.from({ length: STEPS }, (_, i) => ({
        toolCalls: [{ name: "read_file", args: { path: `src/file_${i}.ts` } }],
      })),
      { text: "done" },
    ],
  });
  const read = tool(async ({ path }: { path: string }) => `contents of ${path}`, {
    name: "read_file",
    description: "read",
    schema: z.object({ path: z.string() }),
  });
  const agent = createAgent({ model, tools: [read], middleware });
  const start = nowMicros();
  await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 10_000 });
  return nowMicros() - start;
}

/** Each middleware's own work on one well-formed step of a 100-call thread, measured directly. */
async function hookCostPerStep(root: string): Promise<{ repair: number; guard: number }> {
  const read = tool(async ({ path }: { path: string }) => `contents of ${path}`, {
    name: "read_file",
    description: "read",
    schema: z.object({ path: z.string() }),
  });
  const messages: BaseMessage[] = [new HumanMessage("go")];
  for (let i = 0; i <= STEPS; i++) {
    messages.push(
      new AIMessage({
        id: `m${i}`,
        content: "",
        tool_calls: [{ id: `c${i}`, name: "read_file", args: { path: `src/file_${i}.ts` }, type: "tool_call" }],
      }),
    );
    if (i < STEPS) messages.push(new ToolMessage({ tool_call_id: `c${i}`, content: "contents" }));
  }
  const repair = new ToolCallRepairMiddleware();
  const guard = new PathGuardMiddleware({ roots: [root], baseDir: root, tools: { read_file: true } });
  const last = messages.at(-1) as AIMessage;
  const request = {
    toolCall: last.tool_calls![0]!,
    tool: read,
    state: { messages },
    runtime: {},
  } as unknown as Parameters<ToolCallRepairMiddleware["wrapToolCall"]>[0];
  const handler = async () => new ToolMessage({ tool_call_id: `c${STEPS}`, content: "contents", name: "read_file" });
  const repairStep = await measure(async () => {
    await repair.wrapModelCall({ tools: [read], state: { messages } }, () => last);
    await repair.wrapToolCall(request, handler);
  }, 5_000);
  const guardStep = await measure(() => guard.wrapToolCall(request, handler), 5_000);
  const baseline = await measure(handler, 5_000);
  return { repair: repairStep.p50 - baseline.p50, guard: guardStep.p50 - baseline.p50 };
}

async function wellFormedNumbers(rows: string[]): Promise<void> {
  const root = realpathSync(tmpdir());
  const hooks = await hookCostPerStep(root);
  const configs: Record<string, () => AgentMiddleware[]> = {
    "pass-through hooks of the same kinds": () => [
      mirrorHooks(new PathGuardMiddleware({ roots: [root], tools: { read_file: true } }), 0),
      mirrorHooks(new ToolCallRepairMiddleware(), 1),
    ],
    "ToolCallRepairMiddleware + PathGuardMiddleware": () => [
      new PathGuardMiddleware({ roots: [root], baseDir: root, tools: { read_file: true } }),
      new ToolCallRepairMiddleware(),
    ],
    "bare createAgent": () => [],
  };
  const names = Object.keys(configs);
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names) await agentRun(configs[name]!());
  for (let round = 0; round < 9; round++) for (const name of names) times[name]!.push(await agentRun(configs[name]!()));
  // the fastest of interleaved rounds: what each configuration costs when the machine is not busy elsewhere
  const best = (name: string) => Math.min(...times[name]!);
  const bare = best("bare createAgent");
  const pass = best("pass-through hooks of the same kinds");
  const guarded = best("ToolCallRepairMiddleware + PathGuardMiddleware");
  const perStep = bare / STEPS;
  rows.push(
    `| ${STEPS}-step createAgent run of well-formed calls, bare (best of 9) | ${fmt(bare)} (${fmt(perStep)} per step) | | |`,
  );
  rows.push(`| … with pass-through hooks of the same kinds | ${fmt(pass)} (${(pass / bare).toFixed(3)}× bare) | | |`);
  // "measurable" means larger than how much the same configuration varies from run to run here
  const passRuns = times["pass-through hooks of the same kinds"]!;
  const noise = summarise(passRuns).p50 / pass - 1;
  const difference = guarded / pass - 1;
  rows.push(
    `| … with ToolCallRepairMiddleware + PathGuardMiddleware | ${fmt(guarded)} (${(guarded / bare).toFixed(3)}× bare; ${(difference * 100).toFixed(1)}% over pass-through, run-to-run noise ${(noise * 100).toFixed(1)}%) | within noise or ≤ 5% | ${verdict(difference <= Math.max(noise, 0.05))} |`,
  );
  rows.push(
    `| ToolCallRepairMiddleware's own work per well-formed step (3 hooks, measured directly) | ${fmt(hooks.repair)} (${((hooks.repair / perStep) * 100).toFixed(2)}% of a bare step) | ≤ 1% of a step | ${verdict(hooks.repair / perStep <= 0.01)} |`,
  );
  rows.push(
    `| PathGuardMiddleware's own work per step (one path check) | ${fmt(hooks.guard)} (${((hooks.guard / perStep) * 100).toFixed(2)}% of a bare step) | ≤ 50 µs | ${verdict(hooks.guard <= 50)} |`,
  );
}

export default async function repairBench(): Promise<string> {
  const rows = ["| measurement | result | target | |", "|---|---|---|---|"];
  await repairNumbers(rows);
  await pathNumbers(rows);
  await wellFormedNumbers(rows);
  return `## Tool-call repair and path guard\n\n${rows.join("\n")}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows: string[] = [];
  const only = process.argv[2];
  if (!only || only === "repair") await repairNumbers(rows);
  if (!only || only === "paths") await pathNumbers(rows);
  if (!only || only === "agent") await wellFormedNumbers(rows);
  console.log(rows.join("\n"));
}

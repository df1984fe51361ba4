import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { createAgent, type AgentMiddleware } from "langchain";
import { z } from "zod";
import { ToolCallRepairMiddleware, withSafeResults, type Signal } from "harness-kit";
import { PathGuardMiddleware } from "harness-kit/node";
import { ScriptedChatModel, type ScriptedTurn } from "harness-kit/testing";
import { textOf } from "./text.js";

/** One scripted agent, run without and with a middleware. */
interface Scenario {
  title: string;
  /** `guarded` is true for the run with the middleware (a scenario may also wrap its tools then). */
  tools: (guarded: boolean) => { tools: StructuredToolInterface[]; runs: () => number };
  turns: ScriptedTurn[];
  middleware: () => AgentMiddleware;
}

function recorded<T extends Record<string, unknown>>(name: string, schema: z.ZodType<T>, run: (args: T) => unknown) {
  let runs = 0;
  const t = tool(async (args: T) => (runs++, run(args)) as never, { name, description: name, schema });
  return { t, runs: () => runs };
}

function scenarios(root: string): Scenario[] {
  const inRoot = (p: string) => (isAbsolute(p) ? p : join(root, p));
  const fileTools = () => {
    const read = recorded("read_file", z.object({ path: z.string() }), ({ path }) =>
      readFileSync(inRoot(path), "utf8"),
    );
    const write = recorded(
      "write_file",
      z.object({ file_path: z.string(), content: z.string() }),
      ({ file_path, content }) => (writeFileSync(inRoot(file_path), content), "written"),
    );
    return { tools: [read.t, write.t], runs: () => read.runs() + write.runs() };
  };
  return [
    {
      title: "ToolCallRepair: a write_file call cut off by the output-token limit",
      tools: fileTools,
      turns: [
        {
          invalidToolCalls: [
            { name: "write_file", args: '{"file_path":"summary.md","content":"# Q3 summary\\n\\nRevenue grew by 1' },
          ],
        },
        {
          toolCalls: [
            { name: "write_file", args: { file_path: "summary.md", content: "# Q3 summary\n\nRevenue grew by 12%." } },
          ],
        },
        { text: "Summary written." },
      ],
      middleware: () => new ToolCallRepairMiddleware(),
    },
    {
      title: "ToolCallRepair: single quotes and a missing brace (a safe repair)",
      tools: fileTools,
      turns: [{ invalidToolCalls: [{ name: "read_file", args: "{'path': 'notes.md'" }] }, { text: "Read it." }],
      middleware: () => new ToolCallRepairMiddleware(),
    },
    {
      title: "ToolCallRepair: a tool that does not exist, called again and again",
      tools: fileTools,
      turns: [
        ...Array.from({ length: 6 }, () => ({ toolCalls: [{ name: "readFile", args: { path: "notes.md" } }] })),
        { text: "Gave up." },
      ],
      middleware: () => new ToolCallRepairMiddleware(),
    },
    {
      title: "ToolCallRepair: a tool returning a BigInt inside an object",
      tools: () => {
        const size = recorded("disk_usage", z.object({}), () => ({ bytes: 18_446_744_073_709_551_615n }));
        return { tools: [size.t], runs: size.runs };
      },
      turns: [{ toolCalls: [{ name: "disk_usage" }] }, { text: "Reported." }],
      middleware: () => new ToolCallRepairMiddleware(),
    },
    {
      title: "withSafeResults: the same BigInt tool, wrapped so the value survives",
      tools: (guarded) => {
        const size = recorded("disk_usage", z.object({}), () => ({ bytes: 18_446_744_073_709_551_615n }));
        return { tools: [guarded ? withSafeResults(size.t) : size.t], runs: size.runs };
      },
      turns: [{ toolCalls: [{ name: "disk_usage" }] }, { text: "Reported." }],
      middleware: () => new ToolCallRepairMiddleware(),
    },
    {
      title: "PathGuard: a symlink inside the project that points at a secret outside it",
      tools: fileTools,
      turns: [{ toolCalls: [{ name: "read_file", args: { path: "vendor/config/credentials" } }] }, { text: "Done." }],
      middleware: () =>
        new PathGuardMiddleware({ roots: [root], baseDir: root, tools: { read_file: true, write_file: true } }),
    },
  ];
}

const charsSeen = (model: ScriptedChatModel) =>
  model.seen.reduce(
    (sum, messages: BaseMessage[]) => sum + messages.reduce((s, m) => s + textOf(m.content).length, 0),
    0,
  );

async function runOnce(scenario: Scenario, withMiddleware: boolean) {
  const { tools, runs } = scenario.tools(withMiddleware);
  const model = new ScriptedChatModel({ turns: scenario.turns });
  const signals: Signal[] = [];
  const agent = createAgent({ model, tools, middleware: withMiddleware ? [scenario.middleware()] : [] });
  const onSignal = { handleCustomEvent: (_name: string, data: unknown) => signals.push(data as Signal) };
  try {
    const result = await agent.invoke(
      { messages: [new HumanMessage("Please take care of it.")] },
      { callbacks: [onSignal], recursionLimit: 100 },
    );
    const messages = result.messages as BaseMessage[];
    const read = messages.filter(ToolMessage.isInstance).map((m) => textOf(m.content));
    return {
      toolRuns: runs(),
      modelCalls: model.callCount,
      chars: charsSeen(model),
      read,
      last: textOf(messages.at(-1)?.content),
      signals,
    };
  } catch (error) {
    return {
      toolRuns: runs(),
      modelCalls: model.callCount,
      chars: charsSeen(model),
      read: [],
      last: `run crashed: ${String(error).split("\n")[0]}`,
      signals,
    };
  }
}

const clip = (text: string, max = 150) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** A project directory with a notes file, and a vendored symlink that leads to a secret outside it. */
function projectTree(): { top: string; root: string } {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "hk-demo-")));
  const root = join(top, "project");
  mkdirSync(join(root, "vendor"), { recursive: true });
  mkdirSync(join(top, "secrets"));
  writeFileSync(join(root, "notes.md"), "Meeting notes: ship on Friday.");
  writeFileSync(join(top, "secrets", "credentials"), "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG");
  symlinkSync(join(top, "secrets"), join(root, "vendor", "config"));
  return { top, root };
}

export async function demoRepairAndPaths(): Promise<void> {
  const { top, root } = projectTree();
  try {
    for (const scenario of scenarios(root)) {
      const without = await runOnce(scenario, false);
      const withIt = await runOnce(scenario, true);
      console.log(`\n▶ ${scenario.title}`);
      console.log(
        `  without: ${without.toolRuns} tool runs, ${without.modelCalls} model calls, ${without.chars.toLocaleString()} characters sent to the model`,
      );
      console.log(
        `           the model read: ${without.read.length ? without.read.map((t) => JSON.stringify(clip(t))).join(" | ") : "(nothing)"}; last message: ${clip(without.last)}`,
      );
      console.log(
        `  with:    ${withIt.toolRuns} tool runs, ${withIt.modelCalls} model calls, ${withIt.chars.toLocaleString()} characters sent to the model`,
      );
      console.log(
        `           the model read: ${withIt.read.map((t) => JSON.stringify(clip(t))).join(" | ")}; last message: ${clip(withIt.last)}`,
      );
      console.log(`  signals: ${withIt.signals.map((s) => `${s.action}:${s.code}`).join(", ") || "none"}`);
    }
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await demoRepairAndPaths();

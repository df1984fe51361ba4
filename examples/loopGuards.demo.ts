import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import { LoopGuardMiddleware, ProgressAwareLoopGuardMiddleware, type Signal } from "harness-kit";
import { ScriptedChatModel, type ScriptedTurn } from "harness-kit/testing";
import { textOf } from "./text.js";

/** One looping agent, run with and without a guard. */
interface Scenario {
  title: string;
  tools: () => { tools: StructuredToolInterface[]; runs: () => number };
  turns: ScriptedTurn[];
  guard: () => AgentMiddleware;
}

const repeat = (n: number, turn: ScriptedTurn) => Array.from({ length: n }, () => turn);

function counted(name: string, schema: z.ZodObject, answer: () => string) {
  let runs = 0;
  const t = tool(async () => (runs++, answer()), { name, description: name, schema });
  return { t, runs: () => runs };
}

const scenarios: Scenario[] = [
  {
    title: "ProgressAwareLoopGuard: polling a job whose answer changes only in its timestamp",
    tools: () => {
      const status = counted("job_status", z.object({ id: z.number() }), () =>
        JSON.stringify({
          id: 7,
          status: "running",
          checked_at: new Date().toISOString(),
          log: "step 3/5: waiting for the build worker",
        }),
      );
      return { tools: [status.t], runs: status.runs };
    },
    turns: [...repeat(15, { toolCalls: [{ name: "job_status", args: { id: 7 } }] }), { text: "Still running." }],
    guard: () => new ProgressAwareLoopGuardMiddleware(),
  },
  {
    title: "ProgressAwareLoopGuard: the same failing booking, with think calls in between",
    tools: () => {
      const book = counted(
        "book_reservation",
        z.object({ flight: z.string() }),
        () => "Error: payment method declined for card ending 4242",
      );
      const think = counted("think", z.object({ thought: z.string() }), () => "");
      return { tools: [book.t, think.t], runs: () => book.runs() };
    },
    turns: [
      ...Array.from({ length: 8 }, (_, i) => [
        { toolCalls: [{ name: "book_reservation", args: { flight: "HAT001" } }] },
        { toolCalls: [{ name: "think", args: { thought: `Maybe it works now (${i}).` } }] },
      ]).flat(),
      { text: "I could not book it." },
    ],
    guard: () => new ProgressAwareLoopGuardMiddleware(),
  },
  {
    title: "LoopGuard: the same search, again and again, with the same empty answer",
    tools: () => {
      // An answer that changed would be progress, and LoopGuard would let the repeat run.
      const search = counted("search_docs", z.object({ query: z.string() }), () => 'No results for "retry budget".');
      return { tools: [search.t], runs: search.runs };
    },
    turns: [
      ...repeat(12, { toolCalls: [{ name: "search_docs", args: { query: "retry budget" } }] }),
      { text: "Not found." },
    ],
    guard: () => new LoopGuardMiddleware(),
  },
];

const charsSeen = (model: ScriptedChatModel) =>
  model.seen.reduce(
    (sum, messages: BaseMessage[]) => sum + messages.reduce((s, m) => s + textOf(m.content).length, 0),
    0,
  );

async function runOnce(scenario: Scenario, guarded: boolean) {
  const { tools, runs } = scenario.tools();
  const model = new ScriptedChatModel({ turns: scenario.turns });
  const signals: Signal[] = [];
  const middleware = guarded ? [scenario.guard()] : [];
  const agent = createAgent({ model, tools, middleware });
  const onSignal = { handleCustomEvent: (_name: string, data: unknown) => signals.push(data as Signal) };
  const result = await agent.invoke(
    { messages: [new HumanMessage("Please take care of it.")] },
    { callbacks: [onSignal], recursionLimit: 500 },
  );
  return {
    toolRuns: runs(),
    modelCalls: model.callCount,
    chars: charsSeen(model),
    last: textOf(result.messages.at(-1)?.content),
    signals,
  };
}

export async function demoLoopGuards(): Promise<void> {
  for (const scenario of scenarios) {
    const without = await runOnce(scenario, false);
    const withGuard = await runOnce(scenario, true);
    console.log(`\n▶ ${scenario.title}`);
    console.log(
      `  without guard: ${without.toolRuns} tool runs, ${without.modelCalls} model calls, ${without.chars.toLocaleString()} characters sent to the model`,
    );
    console.log(
      `  with guard:    ${withGuard.toolRuns} tool runs, ${withGuard.modelCalls} model calls, ${withGuard.chars.toLocaleString()} characters sent to the model`,
    );
    console.log(`  signals:       ${withGuard.signals.map((s) => `${s.action}:${s.code}`).join(", ") || "none"}`);
    console.log(`  final message: ${withGuard.last}`);
  }
}

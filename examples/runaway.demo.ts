import { createAgent } from "langchain";
import { createDeepAgent } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RunawayGuardMiddleware, type RunawayReport, type Signal } from "harness-kit";
import { ScriptedChatModel, type ScriptedTurn, type ScriptedTurnSpec } from "harness-kit/testing";
import { textOf } from "./text.js";

/** Tokens of a system prompt and tool schemas that a provider would count but state does not hold. */
const SYSTEM_TOKENS = 1_500;

/** A model turn that reports usage the way a provider would: the whole context it read, plus its answer. */
function billed(turn: () => ScriptedTurnSpec): ScriptedTurn {
  return (messages: BaseMessage[]) => {
    const read = messages.reduce((sum, m) => sum + textOf(m.content).length, 0) / 4;
    return { ...turn(), usage: { input_tokens: Math.round(SYSTEM_TOKENS + read), output_tokens: 60 } };
  };
}

/** Five documents to compare; the agent re-reads and re-searches them without ever concluding. */
const DOCUMENTS = Array.from(
  { length: 5 },
  (_, i) => `Document ${i + 1}: ${"a quarterly figure, a caveat and a footnote. ".repeat(60)}`,
);

function runawayTurns(): ScriptedTurn[] {
  const loop = Array.from({ length: 120 }, (_, i) =>
    billed(() => ({
      toolCalls: [
        i % 3 === 2
          ? { name: "search_web", args: { query: `figure ${i % 7}` } }
          : { name: "read_section", args: { doc: (i % 5) + 1, section: i % 4 } },
      ],
    })),
  );
  return [...loop, billed(() => ({ text: "The reports disagree on costs." }))];
}

function researchTools() {
  const counter = { runs: 0 };
  const readSection = tool(
    async ({ doc, section }: { doc: number; section: number }) => (
      counter.runs++,
      `Doc ${doc} §${section}: ${"revenue grew, costs grew more. ".repeat(25)}`
    ),
    {
      name: "read_section",
      description: "read a section of a document",
      schema: z.object({ doc: z.number(), section: z.number() }),
    },
  );
  const searchWeb = tool(
    async ({ query }: { query: string }) => (
      counter.runs++,
      `Results for "${query}": ${"an unrelated press release. ".repeat(15)}`
    ),
    {
      name: "search_web",
      description: "search the web",
      schema: z.object({ query: z.string() }),
    },
  );
  return { tools: [readSection, searchWeb], counter };
}

async function runawayOnce(guarded: boolean) {
  const { tools, counter } = researchTools();
  const model = new ScriptedChatModel({ turns: runawayTurns() });
  const signals: Signal[] = [];
  const guard = new RunawayGuardMiddleware({ onSignal: (s) => signals.push(s) });
  const agent = createAgent({ model, tools, middleware: guarded ? [guard] : [] });
  const result = await agent.invoke(
    { messages: [new HumanMessage(`Compare these five reports.\n\n${DOCUMENTS.join("\n\n")}`)] },
    { recursionLimit: 1000 },
  );
  const messages = result.messages as BaseMessage[];
  // The guard's report reads any history, so it measures the unguarded run as well.
  const directive = messages.find(
    (m) =>
      ToolMessage.isInstance(m) &&
      (m.response_metadata as { harness_kit?: { action?: string } }).harness_kit?.action === "directive",
  );
  return {
    toolRuns: counter.runs,
    modelCalls: model.callCount,
    report: guard.report(messages),
    signals,
    directive,
    last: textOf(messages.at(-1)?.content),
  };
}

async function delegationReport(): Promise<RunawayReport> {
  const reports: RunawayReport[] = [];
  const guard = new RunawayGuardMiddleware({ onReport: (r) => reports.push(r) });
  const task = (subagent_type: string, description: string): ScriptedTurn => ({
    toolCalls: [{ name: "task", args: { description, subagent_type } }],
  });
  const model = new ScriptedChatModel({
    turns: [
      task("general-purpose", "summarise document 1"),
      { text: "Document 1: revenue up 4%." },
      task("general-purpose", "summarise document 2"),
      { text: "Document 2: revenue flat." },
      { toolCalls: [{ name: "read_section", args: { doc: 3, section: 1 } }] },
      { text: "Revenue grew in 1, was flat in 2; 3 is mixed." },
    ],
  });
  const agent = createDeepAgent({
    model,
    tools: researchTools().tools,
    middleware: [guard],
    subagents: [
      { name: "general-purpose", description: "summarises", systemPrompt: "Summarise.", middleware: [guard] },
    ],
  });
  await agent.invoke({ messages: [new HumanMessage("Compare documents 1 to 3.")] });
  return reports.at(-1)!;
}

const tokens = (n: number) => n.toLocaleString("en-US");

export async function demoRunaway(): Promise<void> {
  const without = await runawayOnce(false);
  const guarded = await runawayOnce(true);
  console.log("\n▶ RunawayGuard: an agent asked to compare five documents keeps reading and searching");
  console.log(
    `  without guard: ${without.toolRuns} tool runs, ${without.modelCalls} model calls, ${tokens(without.report.runTokens)} tokens, ${tokens(without.report.wastedTokens)} of them re-reading a context that had learned nothing new (peak runaway factor ${without.report.peakRunawayFactor}×, ${without.report.source})`,
  );
  console.log(
    `  with guard:    ${guarded.toolRuns} tool runs, ${guarded.modelCalls} model calls, ${tokens(guarded.report.runTokens)} tokens (peak runaway factor ${guarded.report.peakRunawayFactor}×, ${guarded.report.source})`,
  );
  const counts = guarded.signals.reduce<Record<string, number>>(
    (acc, s) => ({ ...acc, [s.action]: (acc[s.action] ?? 0) + 1 }),
    {},
  );
  console.log(
    `  signals:       ${Object.entries(counts)
      .map(([action, n]) => `${n} ${action}`)
      .join(", ")}`,
  );
  console.log(`  model read:    ${textOf(guarded.directive?.content)}`);
  console.log(`  final message: ${guarded.last}`);

  const delegation = (await delegationReport()).delegation;
  console.log("\n▶ RunawayGuard report: a deep agent delegating to a task subagent");
  console.log(
    `  ${delegation.delegatedCalls} of ${delegation.delegatedCalls + delegation.directCalls} tool calls delegated (${Math.round(delegation.delegatedShare * 100)}%): ${JSON.stringify(delegation.bySubagent)}`,
  );
}

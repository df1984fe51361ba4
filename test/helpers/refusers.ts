import fc from "fast-check";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { createMiddleware, humanInTheLoopMiddleware, toolCallLimitMiddleware, type AgentMiddleware } from "langchain";
import { z } from "zod";
import type { ScriptedTurn } from "../../src/testing/index.js";

/**
 * Property-test parts for an account agent whose calls others may answer without running them: a
 * reviewer middleware, LangChain's call limit and human-in-the-loop, listed before or after the
 * stack, and tools that log what really ran.
 */

export const read = (id: number) => ({ name: "get_account", args: { id } });
export const write = (seats: number) => ({ name: "update_account", args: { id: 7, seats } });
export const search = (q: number) => ({ name: "search", args: { q } });

export const keyOf = (name: string, args: unknown) => `${name} ${JSON.stringify(args)}`;

const callArb = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 7, max: 8 }).map(read) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }).map(write) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 1 }).map(search) },
);
/** One user turn's model turns: one to eight, each asking for one to three calls. */
export const runArb = fc.array(
  fc.array(callArb, { minLength: 1, maxLength: 3 }).map((toolCalls): ScriptedTurn => ({ toolCalls })),
  { minLength: 1, maxLength: 8 },
);
// The runaway guard's defaults, its tiers low enough to block repeats in these short runs, or a
// run token cap these runs reach (a stop on a batch some of whose calls another middleware answered).
export const runawayArb = fc.constantFrom(
  undefined,
  { warnAt: 1, blockAt: 1.5, stopAt: 1000, minInputTokens: 10 },
  { maxRunTokens: 60 },
  { maxRunTokens: 120 },
);

export type Refusers = typeof refusersArb extends fc.Arbitrary<infer R> ? R : never;
export const refusersArb = fc.record({
  /** Which occurrences of a call the reviewer rejects (by the call's key and how often it saw it). */
  rejects: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  reviewer: fc.constantFrom("none", "before", "after"),
  limit: fc.constantFrom("none", "before", "after"),
  limitedTool: fc.constantFrom("get_account", "search"),
  /** A person reviewing every call (LangChain's human-in-the-loop), approving or rejecting each turn's. */
  hitl: fc.constantFrom("none", "before", "after"),
  approvals: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  runLimit: fc.integer({ min: 0, max: 3 }),
});

/** No one refuses anything: the base a pinned counterexample changes. */
export const quietRefusers: Refusers = {
  rejects: [false],
  reviewer: "none",
  limit: "none",
  limitedTool: "get_account",
  runLimit: 0,
  hitl: "none",
  approvals: [true],
};

/** The account tools; each adds the id of a call it ran to `ran`. */
export function loggedTools(ran: Set<string>) {
  const logged = (name: string, text: (args: Record<string, unknown>) => string, schema: z.ZodObject) =>
    tool(
      async (args: Record<string, unknown>, config: { toolCall?: { id?: string } }) => {
        ran.add(config.toolCall?.id ?? "");
        return text(args);
      },
      { name, description: name, schema },
    );
  return [
    logged("get_account", ({ id }) => `account ${String(id)}: 3 seats`, z.object({ id: z.number() })),
    logged("update_account", () => "updated", z.object({ id: z.number(), seats: z.number() })),
    logged("search", ({ q }) => `results for ${String(q)}`, z.object({ q: z.number() })),
  ];
}

/** A reviewer that rejects some occurrences of a call without running it, as a person would. */
function reviewer(rejects: readonly boolean[]): AgentMiddleware {
  const seen = new Map<string, number>();
  return createMiddleware({
    name: "Reviewer",
    wrapToolCall: (request, handler) => {
      const key = keyOf(request.toolCall.name, request.toolCall.args);
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      if (!rejects[(key.length + n) % rejects.length]) return handler(request);
      return new ToolMessage({
        content: "Rejected by the reviewer.",
        tool_call_id: request.toolCall.id ?? "",
        name: request.toolCall.name,
        status: "error",
      });
    },
  }) as AgentMiddleware;
}

/** The middlewares `refusers` lists before and after the stack (one reviewer for the whole thread). */
export function refusingMiddleware(refusers: Refusers): { before: AgentMiddleware[]; after: AgentMiddleware[] } {
  const before: AgentMiddleware[] = [];
  const after: AgentMiddleware[] = [];
  if (refusers.reviewer !== "none") (refusers.reviewer === "before" ? before : after).push(reviewer(refusers.rejects));
  // LangChain answers a call twice when its call limit blocks a call its reviewer then rejects.
  if (refusers.limit !== "none" && refusers.hitl === "none")
    (refusers.limit === "before" ? before : after).push(
      toolCallLimitMiddleware({
        toolName: refusers.limitedTool,
        runLimit: refusers.runLimit,
        exitBehavior: "continue",
      }),
    );
  if (refusers.hitl !== "none")
    (refusers.hitl === "before" ? before : after).push(
      // Every tool reviewed: LangChain drops an unreviewed call of a turn whose reviewed call is rejected.
      humanInTheLoopMiddleware({ interruptOn: { get_account: true, update_account: true, search: true } }),
    );
  return { before, after };
}

interface Invocable {
  invoke(input: unknown, config: unknown): Promise<{ __interrupt__?: { value: unknown }[] }>;
  graph: { getState(config: unknown): Promise<{ next: readonly string[] }> };
}

/**
 * Two user turns on thread "t", each human-in-the-loop interrupt resumed with the next of
 * `approvals` for the whole turn (LangChain drops the approved call of a turn it is told to reject
 * in part). `agent` gives the agent each invoke goes to: the same one, or a new worker's. With
 * `pauseAfterTools`, every invoke also stops after the tools node and the next one goes on from
 * there, as when a worker stops between two steps and another resumes the thread.
 */
export async function playTwoTurns(
  agent: () => Invocable,
  approvals: readonly boolean[],
  pauseAfterTools = false,
): Promise<void> {
  const config = {
    configurable: { thread_id: "t" },
    recursionLimit: 200,
    ...(pauseAfterTools ? { interruptAfter: ["tools"] } : {}),
  };
  let reviews = 0;
  for (const text of ["check the account", "and once more"]) {
    let result = await agent().invoke({ messages: [new HumanMessage(text)] }, config);
    for (;;) {
      const interrupt = result.__interrupt__?.[0];
      if (interrupt) {
        const { actionRequests } = interrupt.value as { actionRequests: unknown[] };
        const approve = approvals[reviews++ % approvals.length];
        const decisions = actionRequests.map(() =>
          approve ? { type: "approve" } : { type: "reject", message: "Not now." },
        );
        result = await agent().invoke(new Command({ resume: { decisions } }), config);
      } else if (pauseAfterTools && (await agent().graph.getState(config)).next.length > 0) {
        result = await agent().invoke(null, config);
      } else break;
    }
  }
}

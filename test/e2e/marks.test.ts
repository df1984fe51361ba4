import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { HumanMessage, mapChatMessagesToStoredMessages, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { buildReplaySetup } from "../../src/replay/config.js";
import { replayThread } from "../../src/replay/replayThread.js";
import { loadThreadFile } from "../../src/replay/sources.js";
import { MARK_VERSION, markOf, readMark, withMark } from "../../src/core/marks.js";
import type { Signal } from "../../src/core/signals.js";
import { recommendedGuards } from "../../src/stack/recommendedGuards.js";
import { ScriptedChatModel } from "../../src/testing/index.js";

/** One definition of the marks written into messages (issue 11, point 5). */

describe("marks", () => {
  it("are stamped with the version, and older marks without one still read", () => {
    expect(withMark({ model: "x" }, { guard: "G", action: "directive", reason: "r" })).toEqual({
      model: "x",
      harness_kit: { guard: "G", action: "directive", reason: "r", v: MARK_VERSION },
    });
    const old = { response_metadata: { harness_kit: { guard: "G", action: "stop" } } };
    expect(markOf(old)).toEqual({ guard: "G", action: "stop" });
    expect(readMark({ response_metadata: { harness_kit: { guard: "G", action: "explode" } } })).toBeUndefined();
  });

  it("tell a tool that ran from a call a guard answered in its place", () => {
    const mark = (fields: Record<string, unknown>) => ({
      response_metadata: { harness_kit: { guard: "G", action: "directive", ...fields } },
    });
    expect(markOf(mark({}))).toBeDefined();
    expect(markOf(mark({ outcome: "blocked" }))).toBeDefined();
    expect(markOf(mark({ outcome: "invalid_output" }))).toBeUndefined();
    expect(markOf(mark({ outcome: "replaced_result" }))).toBeUndefined();
    expect(markOf({ response_metadata: { harness_kit: { guard: "G", action: "warn" } } })).toBeUndefined();
  });
});

describe("a thread written by this version", () => {
  it("reads back from JSON with the decisions the live run signalled", async () => {
    const signals: Signal[] = [];
    let n = 0;
    const book = tool(async () => "Error: seat map unavailable", {
      name: "book_reservation",
      description: "Books.",
      schema: z.object({ flight: z.string() }),
    });
    const poll = tool(async () => `progress ${++n}`, {
      name: "poll_job",
      description: "Polls.",
      schema: z.object({ job: z.string() }),
    });
    const turns = [
      ...Array.from({ length: 3 }, () => ({ toolCalls: [{ name: "book_reservation", args: { flight: "AA1" } }] })),
      ...Array.from({ length: 8 }, () => ({ toolCalls: [{ name: "poll_job", args: { job: "j" } }] })),
    ];
    const guards = recommendedGuards({ onSignal: (signal) => signals.push(signal) }).agent;
    const agent = createAgent({ model: new ScriptedChatModel({ turns }), tools: [book, poll], middleware: guards });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(messages.filter((m) => ToolMessage.isInstance(m) && readMark(m)?.v === MARK_VERSION).length).toBeGreaterThan(
      0,
    );

    const file = join(mkdtempSync(join(tmpdir(), "hk-marks-")), "thread.json");
    writeFileSync(file, JSON.stringify({ id: "t", messages: mapChatMessagesToStoredMessages(messages) }));
    const replay = await replayThread(loadThreadFile(file).messages, buildReplaySetup().stack);

    const key = (d: { guard: string; action: string; toolCallId?: string }) => `${d.guard}:${d.action}:${d.toolCallId}`;
    const live = signals.filter((s) => s.guard !== "RunawayGuardMiddleware").map(key);
    expect(live).toEqual(
      expect.arrayContaining(["ProgressAwareLoopGuardMiddleware:directive:" + signals[0]!.toolCallId]),
    );
    // What the stack did live; replay also shows inner guards' judgements of answered calls, marked shadowed.
    expect(replay.decisions.filter((d) => d.guard !== "RunawayGuardMiddleware" && !d.shadowedBy).map(key)).toEqual(
      live,
    );
  });
});

// The test kit's costs: loading saved threads, checking pairing, one scripted model call.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { ScriptedChatModel, assertToolCallPairing, loadThread } from "../src/testing/index.js";
import { loadThreads } from "../src/replay/threads.js";
import { syntheticThread } from "./threads.js";
import { measure, nowMicros, summarise } from "./timing.js";

const evaldata = process.env.HARNESS_KIT_EVALDATA ?? fileURLToPath(new URL("../../shared/evaldata", import.meta.url));
const fmt = (micros: number) => (micros >= 1000 ? `${(micros / 1000).toFixed(1)} ms` : `${micros.toFixed(1)} µs`);

export default async function (): Promise<string> {
  const rows: string[] = [];

  const threadsDir = join(evaldata, "threads");
  if (existsSync(threadsDir)) {
    loadThreads(threadsDir); // warm the file cache and the JIT
    const start = nowMicros();
    const threads = loadThreads(threadsDir);
    const total = nowMicros() - start;
    const files = threads.map((t) => t.source);
    const perFile = files.map((file) => {
      const t0 = nowMicros();
      loadThread(file);
      return nowMicros() - t0;
    });
    const parseOnly = files.map((file) => {
      const t0 = nowMicros();
      JSON.parse(readFileSync(file, "utf8"));
      return nowMicros() - t0;
    });
    const messages = threads.reduce((n, t) => n + t.messages.length, 0);
    const load = summarise(perFile);
    const parse = summarise(parseOnly);
    rows.push(
      `| loadThreads, all ${threads.length} evaldata threads (${messages} messages) | ${fmt(total)} total | < 3 s | ${(total / parseOnly.reduce((a, b) => a + b, 0)).toFixed(1)}× read+JSON.parse |`,
    );
    rows.push(
      `| loadThread, one evaldata file | p50 ${fmt(load.p50)}, p95 ${fmt(load.p95)} | p95 < 10 ms | ${(load.p50 / parse.p50).toFixed(1)}× read+JSON.parse (p50) |`,
    );
  } else {
    rows.push(`| loadThreads on shared/evaldata | skipped: ${evaldata} not found | < 3 s | |`);
  }

  const thread = syntheticThread(500);
  const pairing = await measure(() => assertToolCallPairing(thread), 300);
  rows.push(
    `| assertToolCallPairing, ${thread.length} messages | p50 ${fmt(pairing.p50)}, p95 ${fmt(pairing.p95)} | p95 < 1 ms | |`,
  );

  const input = [new HumanMessage("go")];
  const scripted = new ScriptedChatModel({ turns: [] });
  const scriptedCall = await measure(() => scripted.invoke(input), 2000);
  const baseline = fakeModel();
  for (let i = 0; i < 2400; i++) baseline.respond(() => new AIMessage("(script finished)"));
  const fakeCall = await measure(() => baseline.invoke(input), 2000);
  rows.push(
    `| ScriptedChatModel.invoke, one call | p50 ${fmt(scriptedCall.p50)}, p95 ${fmt(scriptedCall.p95)} | p95 < 1 ms | ${(scriptedCall.p50 / fakeCall.p50).toFixed(2)}× core fakeModel (p50 ${fmt(fakeCall.p50)}) |`,
  );

  return [
    "## Test kit (harness-kit/testing)",
    "",
    "| what | measured | target | ratio |",
    "| --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

import http from "node:http";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSignalCode } from "../../src/index.js";

// A stand-in LangSmith endpoint: records what the tracer and `traceable` send.
const bodies: string[] = [];
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    bodies.push((req.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body).toString("utf8"));
    res.setHeader("content-type", "application/json");
    res.end(
      req.url?.startsWith("/info")
        ? JSON.stringify({ version: "0.0", batch_ingest_config: { use_multipart_endpoint: false } })
        : "{}",
    );
  });
});
const saved = {
  tracing: process.env.LANGSMITH_TRACING,
  endpoint: process.env.LANGSMITH_ENDPOINT,
  key: process.env.LANGSMITH_API_KEY,
};
let example: typeof import("../../examples/reading-signals.js");

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.LANGSMITH_TRACING = "true";
  process.env.LANGSMITH_ENDPOINT = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  process.env.LANGSMITH_API_KEY = "test-key";
  example = await import("../../examples/reading-signals.js");
});
afterAll(() => {
  for (const [name, value] of [
    ["LANGSMITH_TRACING", saved.tracing],
    ["LANGSMITH_ENDPOINT", saved.endpoint],
    ["LANGSMITH_API_KEY", saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  server.close();
});

describe("examples/reading-signals.ts, as docs/signals.md shows it", () => {
  it("streamEvents yields each signal as a custom event", async () => {
    const signals = await example.signalsFromStreamEvents();
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((s) => isSignalCode(s.code))).toBe(true);
    expect(signals.map((s) => s.code)).toContain("no_progress");
  });

  it("a callback handler counts them by guard, code and action", async () => {
    const counts = await example.signalsFromCallbackHandler();
    expect(counts.get("ProgressAwareLoopGuardMiddleware.no_progress.directive")).toBeGreaterThan(0);
  });

  it("traceable records each signal as a harness_kit_signal run inside the agent's trace", async () => {
    bodies.length = 0;
    await example.signalsInLangSmith();
    const { awaitAllCallbacks } = await import("@langchain/core/callbacks/promises");
    await awaitAllCallbacks();
    await expect
      .poll(() => bodies.some((b) => b.includes('"name":"harness_kit_signal"')), { timeout: 10_000 })
      .toBe(true);
    const runs = bodies
      .filter((b) => b.startsWith("{"))
      .flatMap((b) => (JSON.parse(b) as { post?: Array<Record<string, unknown>> }).post ?? []);
    const signalRun = runs.find((run) => run.name === "harness_kit_signal")!;
    const parent = runs.find((run) => run.id === signalRun.parent_run_id);
    expect(parent?.name).toBe("tools"); // nested under the node whose call the guard judged
    expect(JSON.stringify(signalRun.inputs)).toContain('"code":"no_progress"');
  });

  it("docs/signals.md's code blocks on reading signals are the example's code", () => {
    const page = readFileSync(new URL("../../docs/signals.md", import.meta.url), "utf8");
    const section = page.slice(page.indexOf("## Reading signals"));
    const source = readFileSync(new URL("../../examples/reading-signals.ts", import.meta.url), "utf8");
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBe(3);
    const squash = (text: string) => text.replace(/\s+/g, " ").trim();
    for (const block of blocks) {
      for (const part of block.split(/\n\s*\n/)) {
        if (part.trim().startsWith("import")) continue; // the file imports from ../src
        expect(squash(source)).toContain(squash(part));
      }
    }
  });
});

import { ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { OutputValidatorMiddleware } from "../src/guards/output/OutputValidatorMiddleware.js";
import { validateOutput } from "../src/guards/output/validate.js";
import { DEFAULT_ERROR_FIELDS, type ResolvedSpec } from "../src/guards/output/spec.js";
import { fmt, nowMicros, summarise, verdict } from "./timing.js";

const item = z.object({
  sku: z.string(),
  name: z.string(),
  qty: z.number().int().min(0),
  price: z.number().nonnegative(),
  status: z.enum(["active", "backorder", "discontinued"]),
  tags: z.array(z.string()),
});
const schema = z.object({
  account: z.object({ id: z.number(), plan: z.enum(["free", "pro"]) }),
  items: z.array(item),
  cursor: z.string().nullable(),
});

/** An order listing of about 10 KB, the size of a typical API page. */
function payload(): string {
  const items = [];
  for (let i = 0; ; i++) {
    items.push({
      sku: `SKU-${10_000 + i}`,
      name: `Widget ${i}`,
      qty: i % 17,
      price: 3.5 + i,
      status: ["active", "backorder", "discontinued"][i % 3],
      tags: ["a", `t${i % 5}`],
    });
    if (JSON.stringify({ items }).length > 10_000) {
      items.pop();
      break;
    }
  }
  return JSON.stringify({ account: { id: 7, plan: "pro" }, items, cursor: null });
}

const ITERATIONS = 5_000;

/** Interleaves the timed functions so that drift and GC hit them alike; microseconds per call. */
async function interleaved(fns: Record<string, () => unknown>): Promise<Record<string, number[]>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (let i = 0; i < ITERATIONS / 5; i++) for (const fn of Object.values(fns)) await fn(); // warm up
  for (let i = 0; i < ITERATIONS; i++) {
    for (const [name, fn] of Object.entries(fns)) {
      const start = nowMicros();
      await fn();
      samples[name]!.push(nowMicros() - start);
    }
  }
  return samples;
}

export default async function validatorBench(): Promise<string> {
  const text = payload();
  const parsed = JSON.parse(text) as unknown;
  const spec: ResolvedSpec = {
    contentType: "json",
    maxChars: 1_000_000,
    schema,
    invariants: [],
    errorFields: DEFAULT_ERROR_FIELDS,
    onInvalid: "fail_closed",
    stopRun: false,
    normalize: false,
  };
  const call = { name: "list_orders", args: { page: 1 } };
  const middleware = new OutputValidatorMiddleware({ tools: { list_orders: { schema } } });
  const result = new ToolMessage({ content: text, tool_call_id: "c1", name: "list_orders" });
  const request = {
    toolCall: { id: "c1", name: "list_orders", args: { page: 1 } },
    tool: undefined,
    state: { messages: [] },
    runtime: {},
  } as never;
  const handler = (() => result) as never;
  if (!validateOutput(text, spec, call).valid) throw new Error("bench payload must be valid");

  const samples = await interleaved({
    zod: () => schema.safeParse(parsed),
    jsonParse: () => JSON.parse(text),
    validate: () => validateOutput(text, spec, call),
    wrapToolCall: () => middleware.wrapToolCall(request, handler),
  });
  const zod = summarise(samples.zod!);
  const jsonParse = summarise(samples.jsonParse!);
  const validate = summarise(samples.validate!);
  const wrapped = summarise(samples.wrapToolCall!);
  const added = validate.p50 - zod.p50;
  const addedWrapped = wrapped.p50 - zod.p50;

  const rows = [
    `| measurement (${text.length} characters of JSON, ${(parsed as { items: unknown[] }).items.length} items, nested zod object) | p50 | p95 | target |`,
    "|---|---|---|---|",
    `| zod \`safeParse\` of the parsed value (baseline) | ${fmt(zod.p50)} | ${fmt(zod.p95)} | |`,
    `| \`JSON.parse\` of the text, which any validation of a JSON string needs | ${fmt(jsonParse.p50)} | ${fmt(jsonParse.p95)} | |`,
    `| \`validateOutput\`: strict parse, HTML and error-field checks, schema | ${fmt(validate.p50)} (${(validate.p50 / zod.p50).toFixed(2)}× zod) | ${fmt(validate.p95)} | |`,
    `| **added by validation beyond zod** | **${fmt(added)}** | | ≤ 100 µs ${verdict(added <= 100)} |`,
    `| … of which not \`JSON.parse\` (our own checks) | ${fmt(added - jsonParse.p50)} | | |`,
    `| middleware \`wrapToolCall\` around a tool returning it | ${fmt(wrapped.p50)} (${(wrapped.p50 / zod.p50).toFixed(2)}× zod) | ${fmt(wrapped.p95)} | |`,
    `| added by the whole middleware beyond zod | ${fmt(addedWrapped)} | | ≤ 100 µs ${verdict(addedWrapped <= 100)} |`,
  ];
  return `## OutputValidatorMiddleware\n\n${ITERATIONS} interleaved iterations each.\n\n${rows.join("\n")}`;
}

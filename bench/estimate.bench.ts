import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { getEncoding } from "js-tiktoken";
import { approximateTokens } from "../src/core/tokens.js";
import { estimateTokens, RequestMeter } from "../src/guards/overflow/estimate.js";
import { corpus, corpusText } from "./estimateCorpus.js";
import { nowMicros, verdict } from "./timing.js";

// The context-overflow guard's default estimate (issue 31, item 3) against the two tokenizers of
// OpenAI's current models, on the generated corpus of bench/estimateCorpus.ts; four characters a
// token (LangChain's countTokensApproximately, and the guard's estimate before) beside it.

const CHARS_PER_CLASS = 100_000;
const tokenizers = { o200k_base: getEncoding("o200k_base"), cl100k_base: getEncoding("cl100k_base") };

interface Spread {
  ok: boolean;
  min: number;
  max: number;
  prose: number[];
}

function ratioRows(rows: string[]): Spread {
  const spread: Spread = { ok: true, min: Infinity, max: 0, prose: [] };
  for (const { kind, text } of corpus(CHARS_PER_CLASS)) {
    const cells: string[] = [];
    const ours = estimateTokens(text);
    const quarter = approximateTokens(text);
    for (const tokenizer of Object.values(tokenizers)) {
      const real = tokenizer.encode(text).length;
      const ratio = ours / real;
      spread.ok &&= ratio >= 0.9 && (kind !== "prose" || ratio <= 1.15);
      spread.min = Math.min(spread.min, ratio);
      spread.max = Math.max(spread.max, ratio);
      if (kind === "prose") spread.prose.push(ratio);
      cells.push(`${ratio.toFixed(2)}×`, `${(quarter / real).toFixed(2)}×`);
    }
    rows.push(`| ${kind} | ${cells.join(" | ")} | ${megabytesPerSecond(text)} |`);
  }
  return spread;
}

/** UTF-8 megabytes a second the estimate reads, best of several passes over about 1 MB. */
function megabytesPerSecond(text: string): string {
  const copies = Math.max(1, Math.round(1_000_000 / text.length));
  const bytes = Buffer.byteLength(text) * copies;
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < 15; round++) {
    const start = nowMicros();
    for (let i = 0; i < copies; i++) sink += estimateTokens(text);
    best = Math.min(best, nowMicros() - start);
  }
  if (sink < 0) throw new Error("unreachable");
  return (bytes / best).toFixed(0);
}

/** The same for js-tiktoken, the exact counter a user may pass as `countTokens`. */
function tiktokenMegabytesPerSecond(text: string): string {
  const encoder = tokenizers.o200k_base;
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = nowMicros();
    encoder.encode(text);
    best = Math.min(best, nowMicros() - start);
  }
  return (Buffer.byteLength(text) / best).toFixed(1);
}

/** How many texts a new step estimates with `history` messages behind it: only the new ones. */
function textsPerStep(history: number): number {
  let counted = 0;
  const meter = new RequestMeter((text) => ((counted += 1), estimateTokens(text)));
  const messages: BaseMessage[] = [];
  const step = (i: number) => {
    messages.push(new AIMessage({ content: "", tool_calls: [{ id: `c${i}`, name: "lookup", args: { i } }] }));
    messages.push(new ToolMessage({ tool_call_id: `c${i}`, content: corpusText("mixed", 400, i + 1) }));
    meter.summary([...messages], () => null);
  };
  for (let i = 0; i < history / 2; i++) step(i);
  counted = 0;
  step(history);
  return counted;
}

export default async function estimateBench(): Promise<string> {
  const rows = [
    "| class | o200k_base: estimate | o200k_base: 4 chars a token | cl100k_base: estimate | cl100k_base: 4 chars a token | estimate, MB/s |",
    "|---|---|---|---|---|---|",
  ];
  const spread = ratioRows(rows);
  const all = corpus(CHARS_PER_CLASS)
    .map((c) => c.text)
    .join("\n");
  const summary = [
    "| measurement | result | target | |",
    "|---|---|---|---|",
    `| estimate ÷ real, every class, both tokenizers | ${spread.min.toFixed(2)}–${spread.max.toFixed(2)}×; prose ${spread.prose.map((r) => r.toFixed(2)).join(" / ")}× | ≥ 0.90×; prose ≤ 1.15× | ${verdict(spread.ok)} |`,
  ];
  const speed = Number(megabytesPerSecond(all));
  const prose = corpusText("prose", 1_000_000);
  summary.push(
    `| estimate speed, the whole corpus (${(Buffer.byteLength(all) / 1e6).toFixed(1)} MB UTF-8) | ${speed} MB/s | ≥ 50 MB/s | ${verdict(speed >= 50)} |`,
  );
  summary.push(
    `| js-tiktoken o200k_base, for comparison: the whole corpus / 1 MB of prose | ${tiktokenMegabytesPerSecond(all)} / ${tiktokenMegabytesPerSecond(prose)} MB/s | | |`,
  );
  const at100 = textsPerStep(100);
  const at1000 = textsPerStep(1000);
  summary.push(
    `| texts estimated by a new step (one tool call and its result), 100 / 1,000 messages of history | ${at100} / ${at1000} | the same | ${verdict(at100 === at1000)} |`,
  );
  return `## Context-overflow estimate\n\n${rows.join("\n")}\n\n${summary.join("\n")}`;
}

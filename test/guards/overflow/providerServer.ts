import { openAiOverWindow, startLocalServer } from "../../helpers/localServer.js";
import { Tiktoken } from "js-tiktoken/lite";

/**
 * A local HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions and the Anthropic
 * Messages wire formats, with a window of its own. It counts a request's tokens with a real
 * tokenizer (o200k_base, OpenAI's, on the OpenAI route; cl100k_base standing in for Claude's on
 * the Anthropic route): the text of every message, tool call and tool schema, plus a few tokens
 * of framing per message. Over its window it answers with the provider's real context-length
 * error; on the Anthropic route, an input that fits but leaves less than `max_tokens` for the
 * answer gets Anthropic's other refusal ("input length and `max_tokens` exceed context limit").
 * Otherwise it plays a script: by default a `fetch_page` call per answered request until
 * `pages`, then a final text.
 */
export interface FakeProvider {
  url: string;
  /** Every request body received, refused ones included, with its input tokens. */
  requests: Array<{ body: Record<string, any>; tokens: number; refused: boolean; route: Route }>;
  close(): Promise<void>;
}

export type Route = "openai" | "anthropic";

/** What the scripted model does next: call tools, or answer with a text. */
export type ScriptStep = { toolCalls: Array<{ name: string; args: Record<string, unknown> }> } | { text: string };

/** One answered request, as the script sees it: how many were answered before, and the request's texts. */
export interface ScriptInput {
  n: number;
  /** Text of every message of the request, in order (tool results included). */
  texts: string[];
}

export interface FakeProviderOptions {
  /** The window the server enforces, in its tokenizer's tokens. */
  window: number;
  /** With the default script: how many pages to fetch before answering "done". */
  pages?: number;
  script?: (input: ScriptInput) => ScriptStep;
}

const MESSAGE_FRAMING = 3;
const REPLY_PRIMING = 3;

const encoders: Partial<Record<Route, Promise<Tiktoken>>> = {};

/** The tokenizer of a route, loaded once per process (loading one takes about a second). */
export function tokenizerFor(route: Route): Promise<Tiktoken> {
  return (encoders[route] ??=
    route === "openai"
      ? import("js-tiktoken/ranks/o200k_base").then((m) => new Tiktoken(m.default))
      : import("js-tiktoken/ranks/cl100k_base").then((m) => new Tiktoken(m.default)));
}

/** Input tokens of a request body, as the server counts them. */
export function countServerTokens(encoder: Tiktoken, route: Route, body: Record<string, any>): number {
  const texts = route === "openai" ? openAiTexts(body) : anthropicTexts(body);
  let tokens = REPLY_PRIMING;
  for (const text of texts) tokens += MESSAGE_FRAMING + encoder.encode(text).length;
  if (Array.isArray(body.tools) && body.tools.length > 0) tokens += encoder.encode(JSON.stringify(body.tools)).length;
  return tokens;
}

function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
  return content
    .map((block: any) => {
      if (typeof block === "string") return block;
      if (block?.type === "text") return String(block.text ?? "");
      if (block?.type === "tool_use") return `${block.name} ${JSON.stringify(block.input ?? {})}`;
      if (block?.type === "tool_result") return partsText(block.content);
      return JSON.stringify(block);
    })
    .join("\n");
}

function openAiTexts(body: Record<string, any>): string[] {
  return (body.messages ?? []).map((m: any) => {
    const calls = (m.tool_calls ?? []).map((c: any) => `${c.function?.name} ${c.function?.arguments ?? ""}`);
    return [partsText(m.content), ...calls].filter((t) => t !== "").join("\n");
  });
}

function anthropicTexts(body: Record<string, any>): string[] {
  const system = body.system === undefined ? [] : [partsText(body.system)];
  return [...system, ...(body.messages ?? []).map((m: any) => partsText(m.content))];
}

function defaultScript(pages: number): (input: ScriptInput) => ScriptStep {
  return ({ n }) => (n >= pages ? { text: "done" } : { toolCalls: [{ name: "fetch_page", args: { n } }] });
}

export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const requests: FakeProvider["requests"] = [];
  const script = options.script ?? defaultScript(options.pages ?? 0);
  const [openai, anthropic] = await Promise.all([tokenizerFor("openai"), tokenizerFor("anthropic")]);
  let answered = 0;
  const server = await startLocalServer(async (raw, req, res) => {
    const body = JSON.parse(raw) as Record<string, any>;
    const route: Route = (req.url ?? "").includes("/messages") ? "anthropic" : "openai";
    const tokens = countServerTokens(route === "openai" ? openai : anthropic, route, body);
    const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : 0;
    const overWindow = tokens > options.window;
    const overWithAnswer = route === "anthropic" && !overWindow && tokens + maxTokens > options.window;
    const refused = overWindow || overWithAnswer;
    requests.push({ body, tokens, refused, route });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, {
        "content-type": "application/json",
        ...(route === "anthropic"
          ? { "request-id": `req_${requests.length}` }
          : { "x-request-id": `req_${requests.length}` }),
      });
      res.end(JSON.stringify(payload));
    };
    if (refused) {
      if (route === "anthropic") {
        const message = overWindow
          ? `prompt is too long: ${tokens} tokens > ${options.window} maximum`
          : `input length and \`max_tokens\` exceed context limit: ${tokens} + ${maxTokens} > ${options.window}, decrease input length or \`max_tokens\` and try again`;
        send(400, { type: "error", error: { type: "invalid_request_error", message } });
      } else {
        send(400, openAiOverWindow(options.window, tokens));
      }
      return;
    }
    const n = answered++;
    const texts = route === "openai" ? openAiTexts(body) : anthropicTexts(body);
    const step = script({ n, texts });
    const calls = "toolCalls" in step ? step.toolCalls : [];
    if (route === "anthropic") {
      const content =
        calls.length === 0
          ? [{ type: "text", text: (step as { text: string }).text }]
          : calls.map((c, k) => ({ type: "tool_use", id: `toolu_${n}_${k}`, name: c.name, input: c.args }));
      send(200, {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: calls.length === 0 ? "end_turn" : "tool_use",
        stop_sequence: null,
        usage: { input_tokens: tokens, output_tokens: 10 },
      });
    } else {
      const message =
        calls.length === 0
          ? { role: "assistant", content: (step as { text: string }).text }
          : {
              role: "assistant",
              content: null,
              tool_calls: calls.map((c, k) => ({
                id: `call_${n}_${k}`,
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.args) },
              })),
            };
      send(200, {
        id: `chatcmpl-${n}`,
        object: "chat.completion",
        created: 1,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: calls.length === 0 ? "stop" : "tool_calls" }],
        usage: { prompt_tokens: tokens, completion_tokens: 10, total_tokens: tokens + 10 },
      });
    }
  });
  return { url: server.url, requests, close: server.close };
}

import { openAiOverWindow, startLocalServer } from "../../helpers/localServer.js";
import { getEncoding } from "js-tiktoken";

/**
 * A local server on 127.0.0.1 that speaks the OpenAI Chat Completions wire format and counts a
 * request as OpenAI does for GPT-4o (o200k_base: each message's text, tool calls and tool
 * schemas, plus a few tokens a message), with a window of its own. A request over the window gets
 * OpenAI's `context_length_exceeded` error. A request with tools is the agent's: it gets a
 * `fetch_page` call until `pages`, then a final text. A request without tools whose prompt asks
 * for a summary is a summarizer's call: it gets a short summary.
 */
export interface TiktokenProvider {
  url: string;
  requests: Array<{ tokens: number; refused: boolean; summarizer: boolean }>;
  close(): Promise<void>;
}

const encoder = getEncoding("o200k_base");
const MESSAGE_TOKENS = 4;

/** Tokens of a Chat Completions request body, as the provider counts them. */
export function requestTokens(body: { messages?: unknown[]; tools?: unknown[] }): number {
  let total = body.tools?.length ? encoder.encode(JSON.stringify(body.tools)).length : 0;
  for (const message of body.messages ?? []) {
    const m = message as {
      content?: unknown;
      tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
    };
    total += MESSAGE_TOKENS + encoder.encode(textOf(m.content)).length;
    for (const call of m.tool_calls ?? [])
      total += encoder.encode(`${call.function?.name ?? ""}${call.function?.arguments ?? ""}`).length;
  }
  return total;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      typeof part === "string"
        ? part
        : typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
    )
    .join("");
}

export async function startTiktokenProvider(options: { window: number; pages: number }): Promise<TiktokenProvider> {
  const requests: TiktokenProvider["requests"] = [];
  let calls = 0;
  const server = await startLocalServer(async (raw, _req, res) => {
    const body = JSON.parse(raw) as { model: string; messages: unknown[]; tools?: unknown[] };
    const tokens = requestTokens(body);
    const summarizer =
      !body.tools?.length && /summar/i.test(textOf((body.messages[0] as { content?: unknown }).content));
    const refused = tokens > options.window;
    requests.push({ tokens, refused, summarizer });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "x-request-id": `req_${requests.length}` });
      res.end(JSON.stringify(payload));
    };
    if (refused) {
      send(400, openAiOverWindow(options.window, tokens));
      return;
    }
    let message: Record<string, unknown>;
    if (summarizer) {
      message = {
        role: "assistant",
        content: "The agent fetched report pages one at a time; each page lists request ids and their status.",
      };
    } else {
      const n = calls++;
      message =
        n < options.pages
          ? {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: `call_${n}`,
                  type: "function",
                  function: { name: "fetch_page", arguments: JSON.stringify({ n }) },
                },
              ],
            }
          : { role: "assistant", content: "done" };
    }
    const finish = message.tool_calls ? "tool_calls" : "stop";
    send(200, {
      id: `chatcmpl-${requests.length}`,
      object: "chat.completion",
      created: 1,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: { prompt_tokens: tokens, completion_tokens: 10, total_tokens: tokens + 10 },
    });
  });
  return { url: server.url, requests, close: server.close };
}

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions and the Anthropic
 * Messages wire formats, with a window of its own. It counts a request's tokens its own way (the
 * JSON body at 3 characters a token, stricter than the guard's estimate), answers a request over
 * its window with the provider's real context-length error, and otherwise plays a script: a
 * `fetch_page` call per successful request until `pages`, then a final text.
 */
export interface FakeProvider {
  url: string;
  /** Every request body received, refused ones included. */
  requests: Array<{ body: Record<string, any>; tokens: number; refused: boolean }>;
  close(): Promise<void>;
}

export interface FakeProviderOptions {
  /** The window the server enforces, in its own tokens. */
  window: number;
  pages: number;
}

export const countServerTokens = (body: string): number => Math.ceil(body.length / 3);

export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const requests: FakeProvider["requests"] = [];
  let answered = 0;
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const body = JSON.parse(raw) as Record<string, any>;
    const tokens = countServerTokens(raw);
    const anthropic = (req.url ?? "").includes("/messages");
    const refused = tokens > options.window;
    requests.push({ body, tokens, refused });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json", ...(anthropic ? { "request-id": `req_${requests.length}` } : { "x-request-id": `req_${requests.length}` }) });
      res.end(JSON.stringify(payload));
    };
    if (refused) {
      if (anthropic) {
        send(400, { type: "error", error: { type: "invalid_request_error", message: `prompt is too long: ${tokens} tokens > ${options.window} maximum` } });
      } else {
        send(400, {
          error: {
            message: `This model's maximum context length is ${options.window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        });
      }
      return;
    }
    const n = answered++;
    const done = n >= options.pages;
    if (anthropic) {
      const content = done ? [{ type: "text", text: "done" }] : [{ type: "tool_use", id: `toolu_${n}`, name: "fetch_page", input: { n } }];
      send(200, { id: `msg_${n}`, type: "message", role: "assistant", model: body.model, content, stop_reason: done ? "end_turn" : "tool_use", stop_sequence: null, usage: { input_tokens: tokens, output_tokens: 10 } });
    } else {
      const message = done ? { role: "assistant", content: "done" } : { role: "assistant", content: null, tool_calls: [{ id: `call_${n}`, type: "function", function: { name: "fetch_page", arguments: JSON.stringify({ n }) } }] };
      send(200, { id: `chatcmpl-${n}`, object: "chat.completion", created: 1, model: body.model, choices: [{ index: 0, message, finish_reason: done ? "stop" : "tool_calls" }], usage: { prompt_tokens: tokens, completion_tokens: 10, total_tokens: tokens + 10 } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

import { afterEach, describe, expect, it, vi } from "vitest";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import {
  BinaryReadGuardMiddleware,
  BINARY_READ_GUARD_ENV,
} from "../../../src/guards/binary/BinaryReadGuardMiddleware.js";
import { binaryReadDirective } from "../../../src/guards/binary/texts.js";
import { mediaTypesAcceptedBy } from "../../../src/guards/binary/media.js";
import { InvalidOptionsError } from "../../../src/core/errors.js";
import type { Signal } from "../../../src/core/signals.js";
import { makePng } from "./fixtures.js";

type Wrap = BinaryReadGuardMiddleware["wrapToolCall"];
type Handler = Parameters<Wrap>[1];

const PNG_TEXT = makePng().toString("utf8");
const IMAGE_BLOCK = { type: "image", mimeType: "image/png", data: makePng().toString("base64") };

function request(name = "read_file", args: Record<string, unknown> = { file_path: "/img/logo.png" }) {
  return {
    toolCall: { name, id: "call_1", args },
    tool: undefined,
    state: { messages: [] },
    runtime: {},
  } as unknown as Parameters<Wrap>[0];
}

const answer = (content: ToolMessage["content"], fields: Record<string, unknown> = {}) =>
  new ToolMessage({ content, tool_call_id: "call_1", name: "read_file", ...fields });
const returning = (result: ToolMessage | Command): Handler => (async () => result) as Handler;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("BinaryReadGuardMiddleware", () => {
  it("validates its options", () => {
    expect(() => new BinaryReadGuardMiddleware({ allowedMediaTypes: ["png"] })).toThrow(InvalidOptionsError);
    expect(() => new BinaryReadGuardMiddleware({ directive: "text" as never })).toThrow('option "directive"');
    expect(
      () => new BinaryReadGuardMiddleware({ allowedMediaTypes: ["image/*", "*/*", "application/pdf"] }),
    ).not.toThrow();
    expect(new BinaryReadGuardMiddleware({ tools: ["read_file"] })).not.toHaveProperty("tools");
  });

  it("replaces a binary result with an error that keeps the message's identity and metadata", async () => {
    const signals: Signal[] = [];
    const guard = new BinaryReadGuardMiddleware({ onSignal: (s) => signals.push(s) });
    const original = answer(PNG_TEXT, {
      id: "msg-1",
      artifact: { bytes: 411 },
      additional_kwargs: { a: 1 },
      response_metadata: { took: 3 },
      metadata: { m: true },
    });
    const result = (await guard.wrapToolCall(request(), returning(original))) as ToolMessage;
    expect(result.status).toBe("error");
    expect(result.content).toBe(
      binaryReadDirective({
        label: "PNG image",
        mediaType: "image/png",
        evidence: "magic-number",
        fileName: undefined,
        size: PNG_TEXT.length,
        detail: {},
        file: "/img/logo.png",
        tool: "read_file",
      }),
    );
    expect(result).toMatchObject({
      id: "msg-1",
      name: "read_file",
      tool_call_id: "call_1",
      artifact: { bytes: 411 },
      additional_kwargs: { a: 1 },
      metadata: { m: true },
    });
    expect(result.response_metadata).toMatchObject({
      took: 3,
      harness_kit: {
        guard: "BinaryReadGuardMiddleware",
        action: "directive",
        reason: "binary_result",
        detected: { label: "PNG image", file: "/img/logo.png" },
      },
    });
    expect(signals).toEqual([
      expect.objectContaining({
        action: "directive",
        reason: "binary_result",
        tool: "read_file",
        toolCallId: "call_1",
      }),
    ]);
  });

  it("keeps a readable caption beside the removed payload", async () => {
    const result = (await new BinaryReadGuardMiddleware().wrapToolCall(
      request(),
      returning(answer([{ type: "text", text: "Figure 1" }, IMAGE_BLOCK])),
    )) as ToolMessage;
    expect(result.content).toEqual([
      { type: "text", text: expect.stringContaining("is a PNG image") },
      { type: "text", text: "Figure 1" },
    ]);
  });

  it("rewrites the ToolMessage inside a Command and keeps the rest", async () => {
    const command = new Command({
      update: { messages: [new HumanMessage("x"), answer([IMAGE_BLOCK])], files: { "/a": 1 } },
    });
    const result = (await new BinaryReadGuardMiddleware().wrapToolCall(request(), returning(command))) as Command;
    const update = result.update as { messages: unknown[]; files: unknown };
    expect(update.files).toEqual({ "/a": 1 });
    expect((update.messages[1] as ToolMessage).status).toBe("error");
    const clean = new Command({ update: { messages: [answer("text")] } });
    expect(await new BinaryReadGuardMiddleware().wrapToolCall(request(), returning(clean))).toBe(clean);
  });

  it("names the file from the arguments, the payload, or the call", async () => {
    const guard = new BinaryReadGuardMiddleware();
    const fromArgs = (await guard.wrapToolCall(
      request("fetch", { url: "https://x.test/a.bin" }),
      returning(answer(PNG_TEXT)),
    )) as ToolMessage;
    expect(fromArgs.content).toContain("https://x.test/a.bin is a PNG image");
    const named = { type: "file", mimeType: "application/pdf", data: "JVBERi0xLjcK", filename: "q3.pdf" };
    const fromPayload = (await guard.wrapToolCall(request("fetch", {}), returning(answer([named])))) as ToolMessage;
    expect(fromPayload.content).toContain("q3.pdf is a PDF document");
    const fromCall = (await guard.wrapToolCall(request("fetch", {}), returning(answer(PNG_TEXT)))) as ToolMessage;
    expect(fromCall.content).toContain("the result of fetch is a PNG image");
  });

  it("observe-only: signals a binary result and passes it through", async () => {
    const signals: Signal[] = [];
    const guard = new BinaryReadGuardMiddleware({ observeOnly: true, onSignal: (s) => signals.push(s) });
    const message = answer(PNG_TEXT);
    expect(await guard.wrapToolCall(request(), returning(message))).toBe(message);
    expect(signals).toEqual([
      expect.objectContaining({
        reason: "binary_result",
        detail: expect.objectContaining({ label: "PNG image", observeOnly: true }),
      }),
    ]);
  });

  it("falls back to the default directive when a custom one throws", async () => {
    const guard = new BinaryReadGuardMiddleware({
      directive: () => {
        throw new Error("template bug");
      },
    });
    const result = (await guard.wrapToolCall(request(), returning(answer(PNG_TEXT)))) as ToolMessage;
    expect(result.content).toContain("Do not guess what it contains");
  });

  it("passes text, allowed media, unchecked tools and tool errors through unchanged", async () => {
    const guard = new BinaryReadGuardMiddleware({ tools: ["read_file"], allowedMediaTypes: ["image/png"] });
    const text = answer("hello");
    expect(await guard.wrapToolCall(request(), returning(text))).toBe(text);
    const image = answer([IMAGE_BLOCK]);
    expect(await guard.wrapToolCall(request(), returning(image))).toBe(image);
    const other = answer(PNG_TEXT);
    expect(await guard.wrapToolCall(request("download"), returning(other))).toBe(other);
    const failing = (async () => {
      throw new Error("ENOENT: no such file");
    }) as Handler;
    const error = (await guard.wrapToolCall(request(), failing)) as ToolMessage;
    expect(String(error.content)).toContain("ENOENT");
  });

  it(`is turned off by ${BINARY_READ_GUARD_ENV}=0, false or off, and only by those`, async () => {
    const guard = new BinaryReadGuardMiddleware();
    for (const value of ["0", "false", "OFF"]) {
      vi.stubEnv(BINARY_READ_GUARD_ENV, value);
      const message = answer(PNG_TEXT);
      expect(await guard.wrapToolCall(request(), returning(message))).toBe(message);
    }
    vi.stubEnv(BINARY_READ_GUARD_ENV, "1");
    expect(((await guard.wrapToolCall(request(), returning(answer(PNG_TEXT)))) as ToolMessage).status).toBe("error");
  });
});

describe("mediaTypesAcceptedBy", () => {
  it("reads what a model's profile accepts in tool results", () => {
    expect(mediaTypesAcceptedBy({ profile: { imageToolMessage: true, pdfToolMessage: true } })).toEqual([
      "image/*",
      "application/pdf",
    ]);
    expect(mediaTypesAcceptedBy({ profile: { imageInputs: true } })).toEqual([]);
    expect(mediaTypesAcceptedBy({})).toEqual([]);
  });
});

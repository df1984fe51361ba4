import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgent, type AgentMiddleware } from "langchain";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import {
  BinaryReadGuardMiddleware,
  BINARY_READ_GUARD_ENV,
} from "../../../src/guards/binary/BinaryReadGuardMiddleware.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../../src/testing/index.js";
import { makePdf, makePng, makeUnknownBinary } from "./fixtures.js";

const PNG = makePng();
const PDF = makePdf();

/** One tool per way a binary payload reaches a model as text. */
const PAYLOADS: Record<string, { produce: () => string; label: string; evidence: string }> = {
  utf8_png: { produce: () => PNG.toString("utf8"), label: "PNG image", evidence: "magic-number" },
  latin1_pdf: { produce: () => PDF.toString("latin1"), label: "PDF document", evidence: "magic-number" },
  base64_pdf: { produce: () => PDF.toString("base64"), label: "PDF document", evidence: "magic-number-in-base64" },
  data_url: {
    produce: () => `data:image/png;base64,${PNG.toString("base64")}`,
    label: "PNG image",
    evidence: "magic-number-in-base64",
  },
  unknown_dump: {
    produce: () => makeUnknownBinary().toString("utf8"),
    label: "binary file of unknown type",
    evidence: "nul-bytes",
  },
};

const tools = Object.entries(PAYLOADS).map(([name, payload]) =>
  tool(async () => payload.produce(), {
    name,
    description: `returns ${name}`,
    schema: z.object({ path: z.string().optional() }),
  }),
);

/** JSON that describes a file and carries it in base64: the description is kept, the payload goes. */
const jsonWithBase64 = tool(
  async () => JSON.stringify({ name: "scan.png", size: PNG.length, data: PNG.toString("base64") }),
  {
    name: "json_with_base64",
    description: "returns a file as JSON",
    schema: z.object({ path: z.string().optional() }),
  },
);
tools.push(jsonWithBase64);

const declared = tool(
  async (_input: { path?: string }, runtime) =>
    new ToolMessage({
      content: "AAECAwQFBgcICQ==",
      tool_call_id: runtime.toolCall?.id ?? "",
      name: "declared",
      response_metadata: { mimeType: "application/octet-stream" },
    }),
  {
    name: "declared",
    description: "returns a declared octet stream",
    schema: z.object({ path: z.string().optional() }),
  },
);

const plain = tool(async () => "Revenue grew 12% in Q3; see table 2 for details.\n\u001b[32mOK\u001b[0m", {
  name: "plain",
  description: "returns text",
  schema: z.object({}),
});

async function call(name: string, args: Record<string, unknown>, guard = new BinaryReadGuardMiddleware()) {
  const model = new ScriptedChatModel({ turns: [{ toolCalls: [{ name, args }] }, { text: "done" }] });
  const middleware: AgentMiddleware[] = [guard];
  const allTools: StructuredToolInterface[] = [...tools, declared, plain];
  const agent = createAgent({ model, tools: allTools, middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("go")] });
  assertToolCallPairing(result.messages);
  return {
    answer: result.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!,
    messages: result.messages as BaseMessage[],
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const markOf = (message: ToolMessage): Record<string, any> =>
  (message.response_metadata as { harness_kit: Record<string, unknown> }).harness_kit;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("BinaryReadGuardMiddleware through createAgent", () => {
  for (const [name, payload] of Object.entries(PAYLOADS)) {
    it(`catches ${name}`, async () => {
      const { answer } = await call(name, { path: `/in/${name}` });
      expect(answer.status).toBe("error");
      expect(answer.content).toContain(`/in/${name} is a ${payload.label}`);
      expect(answer.content).toContain("Do not guess what it contains");
      expect(markOf(answer).detected.evidence).toBe(payload.evidence);
    });
  }

  it("keeps the metadata of JSON that carries a file in base64, and replaces only the payload", async () => {
    const { answer } = await call("json_with_base64", {});
    expect(answer.status).not.toBe("error");
    const parsed = JSON.parse(String(answer.content)) as { name: string; size: number; data: string };
    expect(parsed).toMatchObject({ name: "scan.png", size: PNG.length });
    expect(parsed.data).toMatch(
      /^\[binary data removed by harness-kit: PNG image as base64, \d+ bytes; to read it, use OCR or an image-description tool\]$/,
    );
    expect(markOf(answer)).toMatchObject({
      action: "warn",
      reason: "binary_parts_removed",
      detected: { removed: [{ label: "PNG image", evidence: "magic-number-in-base64" }] },
    });
  });

  it("catches a non-text media type declared in the message metadata", async () => {
    const { answer } = await call("declared", {});
    expect(answer.status).toBe("error");
    expect(answer.content).toContain("the result of declared is a binary file (application/octet-stream)");
    expect(answer.response_metadata).toMatchObject({
      mimeType: "application/octet-stream",
      harness_kit: { detected: { evidence: "declared-media-type" } },
    });
  });

  it("leaves text alone, ANSI colours included", async () => {
    const { answer } = await call("plain", {});
    expect(answer.status).not.toBe("error");
    expect(answer.content).toContain("Revenue grew 12%");
  });

  it("checks only the named tools", async () => {
    const { answer } = await call("utf8_png", {}, new BinaryReadGuardMiddleware({ tools: ["latin1_pdf"] }));
    expect(answer.status).not.toBe("error");
  });

  it("uses a custom directive", async () => {
    const guard = new BinaryReadGuardMiddleware({
      directive: ({ file, mediaType }) => `Binary ${mediaType} at ${file}: call ocr(path) instead.`,
    });
    const { answer } = await call("base64_pdf", { path: "/q3.pdf" }, guard);
    expect(answer.content).toBe("Binary application/pdf at /q3.pdf: call ocr(path) instead.");
  });

  it(`is disabled by ${BINARY_READ_GUARD_ENV}=0`, async () => {
    vi.stubEnv(BINARY_READ_GUARD_ENV, "0");
    const { answer } = await call("utf8_png", {});
    expect(answer.status).not.toBe("error");
    expect(String(answer.content)).toContain("PNG");
  });
});

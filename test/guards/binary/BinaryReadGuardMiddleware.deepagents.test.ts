import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeepAgent, FilesystemBackend } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { BinaryReadGuardMiddleware } from "../../../src/guards/binary/BinaryReadGuardMiddleware.js";
import { ToolResultBudgetMiddleware } from "../../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import type { Signal } from "../../../src/core/signals.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../../src/testing/index.js";
import { makePdf, makePng, makeUnknownBinary } from "./fixtures.js";

/**
 * deepagents' real read_file over real files on disk: by extension, a PNG comes back as an image
 * block and a PDF as a file block (base64); a file with an unknown extension is decoded as UTF-8
 * text, which for binary data means NULs and U+FFFD mojibake.
 */

let root: string;
let backend: FilesystemBackend;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "harness-kit-binary-"));
  await writeFile(join(root, "chart.png"), makePng());
  await writeFile(join(root, "report.pdf"), makePdf());
  await writeFile(join(root, "capture.dat"), makeUnknownBinary());
  await writeFile(join(root, "photo.bin"), makePng());
  await writeFile(join(root, "notes.txt"), "plain notes\nsecond line\n");
  backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function readWith(file: string, middleware: unknown[]) {
  const model = new ScriptedChatModel({
    turns: [{ toolCalls: [{ name: "read_file", args: { file_path: file }, id: "call_read" }] }, { text: "done" }],
  });
  const agent = createDeepAgent({ model, backend, middleware: middleware as never[] });
  const result = (await agent.invoke({ messages: [new HumanMessage(`read ${file}`)] })) as { messages: BaseMessage[] };
  assertToolCallPairing(result.messages);
  const answer = result.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
  return { answer, model, result };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const markOf = (message: ToolMessage): Record<string, any> =>
  (message.response_metadata as { harness_kit: Record<string, unknown> }).harness_kit;

function textOf(message: ToolMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => ("text" in block && typeof block.text === "string" ? block.text : JSON.stringify(block)))
    .join("\n");
}

describe("BinaryReadGuardMiddleware against deepagents' read_file", () => {
  it("without the guard, the model would get base64 and mojibake (the problem)", async () => {
    const png = await readWith("/chart.png", []);
    expect(JSON.stringify(png.answer.content)).toContain('"type":"image"');
    const dump = await readWith("/capture.dat", []);
    expect(textOf(dump.answer)).toContain("\u0000");
    expect(textOf(dump.answer)).toContain("\ufffd");
  });

  it("replaces a PNG image block with an error naming the file and type", async () => {
    const signals: Signal[] = [];
    const { answer, model } = await readWith("/chart.png", [
      new BinaryReadGuardMiddleware({ onSignal: (s) => signals.push(s) }),
    ]);
    expect(answer.status).toBe("error");
    expect(answer.content).toBe(
      "Not readable as text: /chart.png is a PNG image, so its contents were removed from this result. " +
        "Do not guess what it contains; extract its text with a suitable tool (OCR or an image-description tool) or ask the user for a text version.",
    );
    expect(answer.tool_call_id).toBe("call_read");
    expect(answer.name).toBe("read_file");
    expect(markOf(answer)).toMatchObject({
      guard: "BinaryReadGuardMiddleware",
      action: "directive",
      detected: { label: "PNG image", mediaType: "image/png", evidence: "media-block", file: "/chart.png" },
    });
    expect(JSON.stringify(model.seen[1])).not.toContain("iVBORw0KGgo");
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({
      action: "directive",
      reason: "binary_result",
      tool: "read_file",
      toolCallId: "call_read",
    });
  });

  it("replaces a PDF file block and points to a document-to-text converter", async () => {
    const { answer } = await readWith("/report.pdf", [new BinaryReadGuardMiddleware()]);
    expect(answer.status).toBe("error");
    expect(answer.content).toContain("/report.pdf is a PDF document");
    expect(answer.content).toContain("a document-to-text converter");
    expect(markOf(answer).detected).toMatchObject({ mediaType: "application/pdf", evidence: "media-block" });
  });

  it("catches the mojibake of a binary file with an unknown extension", async () => {
    const { answer, model } = await readWith("/capture.dat", [new BinaryReadGuardMiddleware()]);
    expect(answer.status).toBe("error");
    expect(answer.content).toContain("/capture.dat is a binary file of unknown type");
    expect(["nul-bytes", "replacement-characters"]).toContain(markOf(answer).detected?.evidence);
    expect(JSON.stringify(model.seen[1])).not.toContain("\\u0000");
  });

  it("names the real type of a PNG hidden behind an unknown extension", async () => {
    const { answer } = await readWith("/photo.bin", [new BinaryReadGuardMiddleware()]);
    expect(answer.content).toContain("/photo.bin is a PNG image");
    expect(markOf(answer).detected).toMatchObject({ evidence: "magic-number", mediaType: "image/png" });
  });

  it("lets a text file and allowed media types through untouched", async () => {
    const guard = new BinaryReadGuardMiddleware({ allowedMediaTypes: ["image/*"] });
    const text = await readWith("/notes.txt", [guard]);
    expect(text.answer.status).not.toBe("error");
    expect(textOf(text.answer)).toContain("plain notes");
    const image = await readWith("/chart.png", [guard]);
    expect(JSON.stringify(image.answer.content)).toContain('"type":"image"');
    const pdf = await readWith("/report.pdf", [guard]);
    expect(pdf.answer.status).toBe("error");
  });

  it("works beside the budget in the recommended order", async () => {
    const { answer } = await readWith("/capture.dat", [
      new ToolResultBudgetMiddleware({ limit: 1000, store: new MemoryOffloadStore() }),
      new BinaryReadGuardMiddleware(),
    ]);
    expect(answer.content).toContain("/capture.dat is a binary file of unknown type");
    expect(markOf(answer).guard).toBe("BinaryReadGuardMiddleware");
  });
});

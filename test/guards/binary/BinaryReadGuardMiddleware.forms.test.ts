import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, type AgentMiddleware } from "langchain";
import { createDeepAgent, FilesystemBackend } from "deepagents";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { BinaryReadGuardMiddleware } from "../../../src/guards/binary/BinaryReadGuardMiddleware.js";
import { ToolResultBudgetMiddleware } from "../../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { MemoryOffloadStore } from "../../../src/offload/MemoryOffloadStore.js";
import { assertToolCallPairing, ScriptedChatModel } from "../../../src/testing/index.js";
import { binaryFiles, makeNoise, makePng, makeUnknownBinary, wrapHex } from "./fixtures.js";

/**
 * Issue 12's binary forms through real graphs: tools of a createAgent return them as a tool
 * would, and deepagents' read_file reads them from real files on disk. What the model sees next
 * must hold no payload, documents must keep their text, and wrong encodings must read as text.
 */

const FILES = binaryFiles();
const middleOf = (text: string) => text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 40);
const PNG = makePng();
const png64 = PNG.toString("base64");

const xxd = (bytes: Buffer) =>
  Array.from({ length: Math.ceil(bytes.length / 16) }, (_, i) => {
    const row = bytes.subarray(i * 16, i * 16 + 16);
    return `${(i * 16).toString(16).padStart(8, "0")}: ${(row.toString("hex").match(/.{1,4}/g) ?? []).join(" ").padEnd(39)}  ${[...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("")}`;
  }).join("\n");

const bigExport = () => {
  const records: Record<string, unknown>[] = Array.from({ length: 2600 }, (_, i) => ({
    id: i,
    body: `Plain description number ${i} of the export, with words to read. `.repeat(5),
  }));
  Object.entries(FILES).forEach(([name, file], i) =>
    records.splice(200 + i * 300, 0, { name, data: file.toString("base64") }),
  );
  return JSON.stringify({ export: records });
};

/** The image: a PNG of 53 KB, whose hex is 107 KB. */
const BIG_PNG = Buffer.concat([PNG, makeNoise(53_000, 4)]);
const hexLine = (bytes: Buffer, width: number) => bytes.toString("hex").slice(width * 40, width * 41);

const html = `<html><body><p>Dear customer, your invoice for March is ready.</p><img src="data:image/png;base64,${png64}"><p>Total due: 42.00 EUR.</p></body></html>`;
const french = "Le café de la rue Saint-Étienne ouvre à sept heures; les crêpes sont très appréciées. ".repeat(20);
const report = "Quarterly report\nRevenue: 4.2M\nAll regions grew.\n".repeat(20);

/** What each tool returns, and what the model must (not) see afterwards. */
const FORMS: Record<
  string,
  { produce: () => unknown; absent: string[]; present?: string[]; status: "error" | "success"; reason: string }
> = {
  json_raw_field: {
    produce: () => JSON.stringify({ name: "chart.png", content: FILES["chart.png"]!.toString("utf8") }),
    absent: ["\\u0000", "IHDR"],
    present: ["chart.png", "PNG image"],
    status: "success",
    reason: "binary_parts_removed",
  },
  glued_base64: {
    produce: () => `payload_${FILES["bundle.zip"]!.toString("base64")}`,
    absent: [FILES["bundle.zip"]!.toString("base64").slice(40, 80)],
    status: "error",
    reason: "binary_result",
  },
  hex_dump: {
    produce: () => xxd(FILES["chart.png"]!),
    absent: ["8950 4e47"],
    status: "error",
    reason: "binary_result",
  },
  node_buffer: {
    produce: () => FILES["logs.gz"],
    absent: ['"type":"Buffer"'],
    status: "error",
    reason: "binary_result",
  },
  big_json: {
    produce: bigExport,
    absent: Object.values(FILES).map((f) => middleOf(f.toString("base64"))),
    present: ["Plain description number 1999"],
    status: "success",
    reason: "binary_parts_removed",
  },
  html_email: {
    produce: () => html,
    absent: [png64.slice(50, 90)],
    present: ["Dear customer", "Total due: 42.00 EUR.", "PNG image"],
    status: "success",
    reason: "binary_parts_removed",
  },
  utf16_text: {
    produce: () => Buffer.from(report, "utf16le").toString("utf8"),
    absent: ["\u0000"],
    present: [report.slice(0, 60), "UTF-16LE"],
    status: "success",
    reason: "misencoded_text",
  },
  xxd_p: {
    produce: () => wrapHex(BIG_PNG, 60),
    absent: [hexLine(BIG_PNG, 60)],
    status: "error",
    reason: "binary_result",
  },
  hex_wrapped_upper_crlf: {
    produce: () => wrapHex(BIG_PNG, 128, { upper: true, eol: "\r\n" }),
    absent: [hexLine(BIG_PNG, 128).toUpperCase()],
    status: "error",
    reason: "binary_result",
  },
  hex_wrapped_unknown: {
    produce: () => wrapHex(makeUnknownBinary(8192), 32),
    absent: [hexLine(makeUnknownBinary(8192), 32)],
    status: "error",
    reason: "binary_result",
  },
  uint8array: {
    produce: () => new Uint8Array(BIG_PNG),
    absent: ['"1":80,"2":78'],
    status: "error",
    reason: "binary_result",
  },
  uint8array_in_object: {
    produce: () => JSON.stringify({ name: "chart.png", data: new Uint8Array(PNG) }),
    absent: ['"1":80,"2":78'],
    present: ["chart.png", "PNG image"],
    status: "success",
    reason: "binary_parts_removed",
  },
  byte_array: {
    produce: () => JSON.stringify([...makeUnknownBinary(4096)]),
    absent: [JSON.stringify([...makeUnknownBinary(4096).subarray(2000, 2016)]).slice(1, -1)],
    status: "error",
    reason: "binary_result",
  },
  cp1252_text: {
    produce: () => Buffer.from(french, "latin1").toString("utf8"),
    absent: [],
    present: ["Windows-1252", "rue Saint-"],
    status: "success",
    reason: "misencoded_text",
  },
};

const tools = Object.entries(FORMS).map(([name, form]) =>
  tool(async () => form.produce() as string, { name, description: `returns ${name}`, schema: z.object({}) }),
);

function seenAfterTool(model: ScriptedChatModel): string {
  return JSON.stringify(model.seen[1]!.at(-1)!.content);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const markOf = (message: ToolMessage): Record<string, any> =>
  (message.response_metadata as { harness_kit: Record<string, unknown> }).harness_kit;

describe("BinaryReadGuardMiddleware alone in createAgent, on every form", () => {
  for (const [name, form] of Object.entries(FORMS)) {
    it(name, async () => {
      const model = new ScriptedChatModel({ turns: [{ toolCalls: [{ name, args: {} }] }, { text: "done" }] });
      const middleware: AgentMiddleware[] = [new BinaryReadGuardMiddleware()];
      const agent = createAgent({ model, tools, middleware });
      const result = await agent.invoke({ messages: [new HumanMessage("go")] });
      assertToolCallPairing(result.messages);
      const answer = result.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
      expect(answer.status ?? "success").toBe(form.status);
      expect(markOf(answer).reason).toBe(form.reason);
      const seen = seenAfterTool(model);
      if (form.status === "error") expect(seen.length).toBeLessThan(2_000);
      for (const text of form.absent) expect(seen).not.toContain(JSON.stringify(text).slice(1, -1));
      for (const text of form.present ?? []) expect(seen).toContain(JSON.stringify(text).slice(1, -1));
    });
  }

  it("beside the budget, a cleaned 1 MB export is previewed and offloaded without its files", async () => {
    const store = new MemoryOffloadStore();
    const model = new ScriptedChatModel({ turns: [{ toolCalls: [{ name: "big_json", args: {} }] }, { text: "done" }] });
    const agent = createAgent({
      model,
      tools,
      middleware: [new ToolResultBudgetMiddleware({ limit: 20_000, store }), new BinaryReadGuardMiddleware()],
    });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "t" } });
    assertToolCallPairing(result.messages);
    const answer = result.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    expect(String(answer.content).length).toBeLessThanOrEqual(20_000);
    const key = /stored under the key "([^"]+)"/.exec(String(answer.content))![1]!;
    const stored = (await store.get(key, { toolName: "big_json", toolCallId: "", threadId: "t", state: {} }))!;
    expect(stored).toContain("Plain description number 2599");
    for (const file of Object.values(FILES)) expect(stored).not.toContain(middleOf(file.toString("base64")));
  });
});

describe("BinaryReadGuardMiddleware in createDeepAgent, on real files read with read_file", () => {
  let root: string;
  let backend: FilesystemBackend;
  const notebook = {
    cells: [
      { cell_type: "markdown", source: ["# Sales analysis\n"] },
      {
        cell_type: "code",
        source: ["df.plot()"],
        outputs: [
          {
            output_type: "display_data",
            data: { "image/png": `${(png64.match(/.{1,76}/g) ?? []).join("\n")}\n`, "text/plain": ["<Figure>"] },
          },
        ],
      },
    ],
    nbformat: 4,
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "hk-binary-forms-"));
    await writeFile(join(root, "analysis.ipynb"), JSON.stringify(notebook, null, 1));
    await writeFile(join(root, "invoice.html"), html);
    await writeFile(
      join(root, "README.md"),
      `# Project\n\n![badge](data:image/png;base64,${png64})\n\nRun npm install to start.\n`,
    );
    await writeFile(
      join(root, "report-utf16.txt"),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(report, "utf16le")]),
    );
    await writeFile(join(root, "menu-cp1252.txt"), Buffer.from(french, "latin1"));
    await writeFile(join(root, "chart.hex"), xxd(FILES["chart.png"]!));
    await writeFile(
      join(root, "upload.json"),
      JSON.stringify({ name: "tool.bin", content: FILES["tool.bin"]!.toString("latin1") }),
    );
    await writeFile(join(root, "payload.txt"), `payload_${FILES["report.pdf"]!.toString("base64")}`);
    backend = new FilesystemBackend({ rootDir: root, virtualMode: true });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function read(file: string) {
    const model = new ScriptedChatModel({
      turns: [{ toolCalls: [{ name: "read_file", args: { file_path: file, limit: 5000 } }] }, { text: "done" }],
    });
    const agent = createDeepAgent({ model, backend, middleware: [new BinaryReadGuardMiddleware()] as never[] });
    const result = (await agent.invoke({ messages: [new HumanMessage(`read ${file}`)] })) as {
      messages: BaseMessage[];
    };
    assertToolCallPairing(result.messages);
    const answer = result.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    return { answer, seen: seenAfterTool(model) };
  }

  it("a notebook keeps its cells; only the image goes", async () => {
    const { answer, seen } = await read("/analysis.ipynb");
    expect(answer.status).not.toBe("error");
    expect(seen).toContain("Sales analysis");
    expect(seen).toContain("df.plot()");
    expect(seen).toContain("binary data removed by harness-kit: PNG image");
    expect(seen).not.toContain(png64.slice(100, 140));
  });

  it("an HTML email and a README keep their text; the images go", async () => {
    for (const [file, kept] of [
      ["/invoice.html", "Total due: 42.00 EUR."],
      ["/README.md", "Run npm install to start."],
    ] as const) {
      const { answer, seen } = await read(file);
      expect(answer.status).not.toBe("error");
      expect(seen).toContain(kept);
      expect(seen).toContain("PNG image");
      expect(seen).not.toContain(png64.slice(100, 140));
    }
  });

  it("UTF-16 and Windows-1252 files are text, and the model is told so", async () => {
    const utf16 = await read("/report-utf16.txt");
    expect(utf16.answer.status).not.toBe("error");
    expect(utf16.seen).toContain("Revenue: 4.2M");
    expect(utf16.seen).toContain("It is text, not binary data");
    const legacy = await read("/menu-cp1252.txt");
    expect(legacy.answer.status).not.toBe("error");
    expect(legacy.seen).toContain("Windows-1252");
  });

  it("a hex dump and glued base64 are caught", async () => {
    for (const [file, label] of [
      ["/chart.hex", "PNG image"],
      ["/payload.txt", "PDF document"],
    ] as const) {
      const { answer, seen } = await read(file);
      expect(answer.status, file).toBe("error");
      expect(seen).toContain(`${file} is`);
      expect(seen).toContain(label);
    }
  });

  it("bytes in a JSON field are removed and the file's name kept", async () => {
    const { answer, seen } = await read("/upload.json");
    expect(answer.status).not.toBe("error");
    expect(seen).toContain("tool.bin");
    expect(seen).toContain("binary data removed by harness-kit: ELF executable as raw bytes in a JSON string");
    expect(seen).not.toContain("\\u0000");
  });
});

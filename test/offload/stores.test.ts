import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryStore } from "@langchain/langgraph";
import { FileSystemOffloadStore } from "../../src/node.js";
import { MemoryOffloadStore } from "../../src/offload/MemoryOffloadStore.js";
import { LangGraphOffloadStore } from "../../src/offload/LangGraphOffloadStore.js";
import { AgentFilesOffloadStore } from "../../src/offload/AgentFilesOffloadStore.js";
import { OffloadStoreError } from "../../src/offload/errors.js";
import type { OffloadContext } from "../../src/offload/OffloadStore.js";

const context = (state: Record<string, unknown> = {}): OffloadContext => ({
  toolName: "fetch",
  toolCallId: "call_1",
  state,
});

describe("MemoryOffloadStore", () => {
  it("keeps and returns content by key", async () => {
    const store = new MemoryOffloadStore();
    await store.put("a", "alpha");
    await store.put("a", "alpha 2");
    expect(await store.get("a")).toBe("alpha 2");
    expect(await store.get("b")).toBeUndefined();
    expect(store.size).toBe(1);
  });
});

describe("FileSystemOffloadStore", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("creates its folder, writes atomically and reads back", async () => {
    dir = join(await mkdtemp(join(tmpdir(), "hk-fs-")), "nested", "offload");
    const store = new FileSystemOffloadStore({ dir });
    await store.put("fetch-call_1", "x".repeat(100_000));
    expect(await store.get("fetch-call_1")).toBe("x".repeat(100_000));
    expect(await store.get("missing")).toBeUndefined();
    expect(await readdir(dir)).toEqual(["no-thread"]);
    expect(await readdir(join(dir, "no-thread"))).toEqual(["result-fetch-call_1.txt"]);
  });

  it("leaves exactly one complete version when writers race, and no temporary files", async () => {
    dir = await mkdtemp(join(tmpdir(), "hk-fs-"));
    const store = new FileSystemOffloadStore({ dir });
    const versions = Array.from({ length: 12 }, (_, i) => String(i).repeat(200_000));
    await Promise.all(versions.map((content) => store.put("same", content)));
    expect(versions).toContain(await store.get("same"));
    expect(await readdir(join(dir, "no-thread"))).toEqual(["result-same.txt"]);
  });

  it("keeps hostile keys inside its folder", async () => {
    dir = await mkdtemp(join(tmpdir(), "hk-fs-"));
    await writeFile(join(dir, "outside.txt"), "secret");
    const store = new FileSystemOffloadStore({ dir: join(dir, "store") });
    for (const key of ["../outside.txt", "../../etc/passwd", "/etc/passwd", "..", "a/../../b"]) {
      expect(store.pathFor(key).startsWith(join(dir, "store", "no-thread") + "/")).toBe(true);
      expect(store.pathFor(key, key).startsWith(join(dir, "store") + "/")).toBe(true);
      expect(await store.get(key)).toBeUndefined();
      await store.put(key, "kept");
      expect(await store.get(key)).toBe("kept");
    }
    expect(await readdir(join(dir, "store", "no-thread"))).toHaveLength(5);
    expect(await readFile(join(dir, "outside.txt"), "utf8")).toBe("secret");
  });

  it("rejects when the folder cannot be created, and can recover", async () => {
    dir = await mkdtemp(join(tmpdir(), "hk-fs-"));
    await writeFile(join(dir, "blocker"), "a file where the folder should be");
    const store = new FileSystemOffloadStore({ dir: join(dir, "blocker", "offload") });
    await expect(store.put("k", "v")).rejects.toThrow();
    await rm(join(dir, "blocker"));
    await store.put("k", "v");
    expect(await store.get("k")).toBe("v");
  });
});

describe("LangGraphOffloadStore", () => {
  it("stores items in the thread's namespace with the call they came from", async () => {
    const base = new InMemoryStore();
    const store = new LangGraphOffloadStore({ store: base });
    const inThread = { ...context(), threadId: "thread.1:a" };
    await store.put("fetch-call_1", "content", inThread);
    expect(store.namespaceFor("thread.1:a")).toEqual(["harness-kit", "offload", "thread-thread~002E1~003Aa"]);
    expect((await base.get(store.namespaceFor("thread.1:a"), "fetch-call_1"))?.value).toEqual({
      content: "content",
      tool: "fetch",
      toolCallId: "call_1",
      threadId: "thread.1:a",
      chars: 7,
    });
    expect(await store.get("fetch-call_1", inThread)).toBe("content");
    expect(await store.get("fetch-call_1", context())).toBeUndefined();
    expect(await store.get("other", inThread)).toBeUndefined();
    await base.put(store.namespaceFor(undefined), "odd", { content: 42 });
    expect(await store.get("odd", context())).toBeUndefined();
  });
});

describe("AgentFilesOffloadStore", () => {
  it("writes deepagents' files state and reads it back", async () => {
    const store = new AgentFilesOffloadStore();
    const receipt = await store.put("fetch-call_1", "a\nb", context({ files: {} }));
    expect(receipt.readHint).toBe(
      'use read_file with file_path "/large_tool_results/fetch-call_1.txt" (offset and limit count lines)',
    );
    const files = receipt.stateUpdate!.files as Record<string, { content: string; mimeType: string }>;
    expect(files["/large_tool_results/fetch-call_1.txt"]).toMatchObject({ content: "a\nb", mimeType: "text/plain" });
    expect(await store.get("fetch-call_1", context({ files }))).toBe("a\nb");
    expect(
      await store.get(
        "fetch-call_1",
        context({ files: { "/large_tool_results/fetch-call_1.txt": { content: ["a", "b"] } } }),
      ),
    ).toBe("a\nb");
    expect(await store.get("../secret", context({ files }))).toBeUndefined();
  });

  it("refuses to write where there is no files state, or under an unsafe key", async () => {
    const store = new AgentFilesOffloadStore({ dir: "/offload/" });
    await expect(store.put("k", "v", context())).rejects.toBeInstanceOf(OffloadStoreError);
    await expect(store.put("../k", "v", context({ files: {} }))).rejects.toThrow("not a safe file name");
    expect(store.pathFor("k")).toBe("/offload/k.txt");
  });

  it("writes through a backend when given one", async () => {
    const written = new Map<string, string>();
    const backend = {
      write: async (path: string, content: string) => {
        written.set(path, content);
        return path.includes("full") ? { error: "quota exceeded" } : { path, filesUpdate: null };
      },
      readRaw: async (path: string) =>
        written.has(path) ? { data: { content: written.get(path) } } : { error: "not found" },
    };
    const store = new AgentFilesOffloadStore({ backend });
    const receipt = await store.put("fetch-1", "text", context());
    expect(receipt).toEqual({
      readHint: expect.stringContaining("/large_tool_results/no-thread/fetch-1.txt"),
      lineReader: expect.objectContaining({ tool: "read_file" }),
    });
    expect(receipt?.lineReader?.window(25, 48)).toBe(
      'use read_file with file_path "/large_tool_results/no-thread/fetch-1.txt", offset 25 and limit 48',
    );
    expect(await store.get("fetch-1", { ...context(), threadId: "other" })).toBeUndefined();
    expect(await store.get("fetch-1", context())).toBe("text");
    expect(await store.get("nope", context())).toBeUndefined();
    await expect(store.put("full", "text", context())).rejects.toThrow("quota exceeded");
  });
});

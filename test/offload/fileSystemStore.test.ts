import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { FileSystemOffloadStore } from "../../src/node.js";
import { createMeasure } from "../../src/guards/budget/measure.js";
import { createRetrievalTool } from "../../src/guards/budget/retrievalTool.js";

/** Issue 12: lone surrogates came back as U+FFFD, and paging through 10 MB re-read the file for every page (about 93 s). */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hk-fs-store-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ctx = (threadId?: string) => ({ toolName: "t", toolCallId: "c", threadId, state: {} });

describe("FileSystemOffloadStore", () => {
  it("gives back every string exactly, lone surrogates included (property)", async () => {
    const store = new FileSystemOffloadStore({ dir: join(dir, "exact") });
    const unitsArb = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 300 })
      .map((units) => String.fromCharCode(...units));
    await fc.assert(
      fc.asyncProperty(unitsArb, fc.nat({ max: 320 }), fc.nat({ max: 320 }), async (text, a, b) => {
        await store.put("k", text, ctx("t1"));
        expect(await store.get("k", ctx("t1"))).toBe(text);
        const [start, end] = a <= b ? [a, b] : [b, a];
        const slice = await store.read("k", { start, end }, ctx("t1"));
        expect(slice).toEqual({
          text: text.slice(start, end),
          start: Math.min(start, text.length),
          total: text.length,
        });
      }),
      { numRuns: 150 },
    );
    for (const text of ["\ud800", "a\udc00b", "\ud83d\ude00\ud83d", "\udfff\ud800"]) {
      await store.put("lone", text, ctx());
      expect(await store.get("lone", ctx())).toBe(text);
    }
  });

  it("keeps threads apart and refuses a file it did not write", async () => {
    const store = new FileSystemOffloadStore({ dir: join(dir, "threads") });
    await store.put("k", "alpha", ctx("A"));
    expect(await store.get("k", ctx("B"))).toBeUndefined();
    expect(await store.get("k", ctx())).toBeUndefined();
    expect(await store.get("k", ctx("A"))).toBe("alpha");
    await writeFile(store.pathFor("old", "A"), "utf-8 text from an older version", "utf8");
    await expect(store.get("old", ctx("A"))).rejects.toThrow("not written by this version");
  });

  it("pages through 10 MB with the retrieval tool, reading only the pages it shows", async () => {
    const store = new FileSystemOffloadStore({ dir: join(dir, "paging") });
    const line = (i: number) => `${String(i).padStart(8, "0")} ${"lorem ipsum dolor sit amet ".repeat(3)}é\ud800\n`;
    const content = Array.from({ length: 110_000 }, (_, i) => line(i))
      .join("")
      .slice(0, 10_000_000);
    await store.put("big", content, ctx("T"));
    const retrieval = createRetrievalTool(store, { limit: 20_000, measure: createMeasure("chars") });
    const get = vi.spyOn(store, "get");
    const config = { configurable: { thread_id: "T" } };

    let offset = 0;
    let pages = 0;
    let rebuilt = "";
    const started = performance.now();
    for (;;) {
      const answer = String(await retrieval.invoke({ key: "big", offset }, config));
      const header =
        /^\[Characters (\d+) to (\d+) of (\d+) stored under "big"\. (?:Continue with offset (\d+)\.|This is the end of the result\.)\]\n/.exec(
          answer,
        );
      expect(header, answer.slice(0, 200)).not.toBeNull();
      expect(Number(header![1])).toBe(offset);
      rebuilt += answer.slice(header![0].length);
      pages++;
      if (header![4] === undefined) break;
      offset = Number(header![4]);
    }
    const elapsed = performance.now() - started;
    console.log(
      `paged through ${content.length} characters in ${pages} pages: ${elapsed.toFixed(0)} ms (${(elapsed / pages).toFixed(2)} ms a page)`,
    );
    expect(rebuilt).toBe(content);
    expect(get).not.toHaveBeenCalled();
    expect(elapsed).toBeLessThan(10_000);
  });
});

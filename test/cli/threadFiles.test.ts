import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { collectThreadFiles } from "../../src/replay/sources.js";
import { jsonFilesUnder } from "../../src/replay/threadFiles.js";
import { loadThreads } from "../../src/replay/threads.js";

const dir = mkdtempSync(join(tmpdir(), "hk-thread-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Names where a walk folder by folder and a sort of whole paths would disagree ("a/" against "a.json", "a-b.json").
for (const name of ["b.json", "a/x.json", "a.json", "a-b.json", "B.json", "a/deeper/y.json", "notes.txt"]) {
  mkdirSync(join(dir, name, ".."), { recursive: true });
  writeFileSync(join(dir, name), JSON.stringify({ id: name, messages: [] }));
}

describe("thread files of a folder", () => {
  it("are every *.json file under it, in plain string order of their paths", () => {
    const relative = jsonFilesUnder(dir).map((path) => path.slice(dir.length + 1));
    expect(relative).toEqual(["B.json", "a-b.json", "a.json", "a/deeper/y.json", "a/x.json", "b.json"]);
  });

  it("come in the same order to eval and to loadThreads", () => {
    const files = jsonFilesUnder(dir);
    expect(collectThreadFiles([dir]).files).toEqual(files);
    expect(loadThreads(dir).map((thread) => thread.source)).toEqual(files);
  });
});

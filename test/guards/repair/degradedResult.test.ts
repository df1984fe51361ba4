import { describe, expect, it } from "vitest";
import { degradedResult } from "../../../src/guards/repair/degradedResult.js";

describe("degradedResult recognises what LangChain's formatting leaves of non-JSON values", () => {
  it.each([
    ["[object Object]", "lost"],
    ["[object Map]", "lost"],
    ["", "empty"],
    [[], "emptyList"],
  ])("%j -> %s", (content, kind) => {
    expect(degradedResult(content)).toMatchObject({ kind });
  });

  it("reads a serialised Buffer back into its bytes", () => {
    const content = JSON.stringify(Buffer.from("hello"));
    expect(degradedResult(content)).toEqual({ kind: "binary", bytes: [104, 101, 108, 108, 111] });
  });

  it("reads a serialised byte array (index-keyed object) back into its bytes", () => {
    const bytes = Uint8Array.from({ length: 20 }, (_, i) => i * 10);
    expect(degradedResult(JSON.stringify(bytes))).toEqual({ kind: "binary", bytes: [...bytes] });
  });

  it.each([
    "{}",
    '{"0":"a","1":"b","2":"c","3":"d","4":"e","5":"f","6":"g","7":"h"}',
    '{"0":1,"1":2}',
    '{"type":"Buffer","data":[1,2],"extra":true}',
    "plain text result",
    '{"ok":true}',
  ])("leaves %j alone", (content) => {
    expect(degradedResult(content)).toBeUndefined();
  });

  it("ignores content blocks", () => {
    expect(degradedResult([{ type: "text", text: "" }])).toBeUndefined();
  });
});

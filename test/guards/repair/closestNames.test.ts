import { describe, expect, it } from "vitest";
import { closestNames } from "../../../src/guards/repair/closestNames.js";

const tools = ["read_file", "write_file", "edit_file", "ls", "glob", "grep", "web_search", "task"];

describe("closestNames", () => {
  it.each([
    ["read_fil", "read_file"],
    ["readFile", "read_file"],
    ["Read-File", "read_file"],
    ["raed_file", "read_file"],
    ["search", "web_search"],
    ["list", "ls"],
    ["writefile", "write_file"],
  ])("%s -> %s first", (wanted, best) => {
    expect(closestNames(wanted, tools)[0]).toBe(best);
  });

  it("returns at most `limit` names and none when no tools exist", () => {
    expect(closestNames("x", tools, 2)).toHaveLength(2);
    expect(closestNames("x", [])).toEqual([]);
  });
});

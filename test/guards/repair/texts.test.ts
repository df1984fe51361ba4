import { describe, expect, it } from "vitest";
import { parseToolArguments } from "../../../src/guards/repair/parseArguments.js";
import { malformedCallText, shortErrorText } from "../../../src/guards/repair/texts.js";

describe("texts for the model", () => {
  it("quotes the end of cut-off arguments, bounded", () => {
    const raw = `{"path":"/tmp/x","content":"${"lorem ipsum ".repeat(100)}`;
    const parsed = parseToolArguments(raw);
    const text = parsed.ok ? "" : malformedCallText("write_file", parsed.problem, raw);
    expect(text).toMatch(/^Your call to write_file was not run: its arguments end inside a string/);
    expect(text).toContain("near: …");
    expect(text.length).toBeLessThan(400);
    expect(text).toMatch(/Send the call again/);
  });

  it("shortErrorText drops stack traces and keeps the error class", () => {
    const error = new TypeError("cannot read 'x'\n    at foo (/a/b.js:1:2)\n    at bar (/a/c.js:3:4)");
    expect(shortErrorText(error)).toBe("TypeError: cannot read 'x'");
    expect(shortErrorText("plain string")).toBe("plain string");
    expect(
      shortErrorText({
        toString: () => {
          throw new Error("no");
        },
      }),
    ).toBe("unprintable error value");
    expect(shortErrorText(new Error("x".repeat(1000))).length).toBe(300);
  });

  it("shortErrorText unwraps LangChain's ToolInvocationError to the tool's own error", () => {
    const inner = new Error("Received tool input did not match expected schema");
    const wrapped = Object.assign(new Error(`Error invoking tool 'x' with error: ${inner.stack}`), {
      toolError: inner,
    });
    expect(shortErrorText(wrapped)).toBe("Received tool input did not match expected schema");
  });
});

import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { estimateTokens, MEDIA_TOKENS, RequestMeter } from "../../../src/guards/overflow/estimate.js";
import { isContextOverflowError, overflowNumbers } from "../../../src/guards/overflow/providerErrors.js";

describe("isContextOverflowError", () => {
  it("finds LangChain's ContextOverflowError and the providers' own wording, along the cause chain", () => {
    const wrapped = new Error("Error in middleware X", {
      cause: new Error("Error in middleware Y", { cause: new ContextOverflowError("too long") }),
    });
    expect(isContextOverflowError(wrapped)).toBe(true);
    for (const message of [
      "400 This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      "prompt is too long: 210000 tokens > 200000 maximum",
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      "ValidationException: Input is too long for requested model.",
      "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
      "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
    ]) {
      expect(isContextOverflowError(new Error(message)), message).toBe(true);
    }
    expect(isContextOverflowError({ code: "context_length_exceeded" })).toBe(true);
    expect(isContextOverflowError({ lc_error_code: "CONTEXT_OVERFLOW" })).toBe(true);
  });

  it("leaves other errors alone", () => {
    for (const error of [
      new Error("429 rate limit"),
      new Error("400 invalid tool_calls"),
      new Error("max_tokens: 100000 > 64000, the maximum allowed"),
      "text",
      undefined,
      null,
      42,
    ]) {
      expect(isContextOverflowError(error)).toBe(false);
    }
  });

  it("reads the window and the request's count where the provider states them", () => {
    expect(overflowNumbers(new Error("prompt is too long: 210,000 tokens > 200,000 maximum"))).toEqual({
      limit: 200_000,
      requested: 210_000,
    });
    expect(
      overflowNumbers(
        new Error(
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        ),
      ),
    ).toEqual({ limit: 8192, requested: 9000 });
    expect(
      overflowNumbers(
        new Error("x", {
          cause: new Error("The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
        }),
      ),
    ).toEqual({ limit: 1_048_576, requested: 1_200_000 });
    expect(overflowNumbers(new ContextOverflowError("too long"))).toEqual({});
  });
});

describe("the request estimate", () => {
  it("counts a word as a token, digits by threes, CJK and emoji above a token a character (estimate.test.ts checks the corpus)", () => {
    expect(estimateTokens("abcdefgh")).toBe(1);
    expect(estimateTokens("1234567")).toBe(3);
    expect(estimateTokens("結果結果")).toBe(6);
    expect(estimateTokens("😀")).toBe(3);
  });

  it("counts tool calls, media blocks at a fixed price, and measures each message once", () => {
    let counted = 0;
    const meter = new RequestMeter((text) => ((counted += 1), estimateTokens(text)));
    const ai = new AIMessage({
      content: "",
      tool_calls: [{ id: "c1", name: "write_file", args: { content: "y".repeat(4000) } }],
    });
    expect(meter.message(ai)).toBeGreaterThan(1000);
    const image = new ToolMessage({
      tool_call_id: "c1",
      content: [{ type: "image", mimeType: "image/png", data: "A".repeat(1_000_000) }] as ToolMessage["content"],
    });
    expect(meter.message(image)).toBeLessThan(MEDIA_TOKENS + 10);
    const before = counted;
    meter.message(ai);
    meter.message(image);
    expect(counted).toBe(before);
  });

  it("keeps a running total as the history grows that equals a full count, and starts over on a rewritten history", () => {
    const meter = new RequestMeter();
    const history: (AIMessage | ToolMessage)[] = [];
    for (let i = 0; i < 50; i++) {
      history.push(
        new AIMessage({ content: `step ${i} `.repeat(i), tool_calls: [{ id: `c${i}`, name: "probe", args: { i } }] }),
      );
      history.push(new ToolMessage({ tool_call_id: `c${i}`, content: "r".repeat(i * 37) }));
      const messages = [...history]; // a new array each step, as LangGraph hands it over
      expect(meter.summary(messages, () => null).tokens).toBe(new RequestMeter().messages(messages));
    }
    const rewritten = [history[0]!, ...history.slice(40)]; // a summary kept a tail
    expect(meter.summary(rewritten, () => null).tokens).toBe(new RequestMeter().messages(rewritten));
  });

  it("falls back to the estimate when a counter throws or answers nonsense", () => {
    expect(
      new RequestMeter(() => {
        throw new Error("no tokenizer");
      }).text("abcdefgh"),
    ).toBe(1);
    expect(new RequestMeter(() => Number.NaN).text("abcdefgh")).toBe(1);
  });
});

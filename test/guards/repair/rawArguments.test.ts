import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { rawArgumentsOf } from "../../../src/guards/repair/rawArguments.js";

describe("rawArgumentsOf", () => {
  it("reads OpenAI's raw function arguments by call id", () => {
    const message = new AIMessage({
      content: "",
      additional_kwargs: {
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"/etc/pas' } }],
      },
    });
    expect(rawArgumentsOf(message)).toEqual(new Map([["call_1", '{"path":"/etc/pas']]));
  });

  it("joins Anthropic's streamed input_json_delta blocks to their tool_use block", () => {
    const message = {
      content: [
        { type: "text", text: "reading" },
        { index: 1, type: "tool_use", id: "toolu_1", name: "read", input: "" },
        { index: 1, type: "input_json_delta", input: '{"path":' },
        { index: 2, type: "tool_use", id: "toolu_2", name: "read", input: { path: "done" } },
        { index: 1, type: "input_json_delta", input: '"/etc/pas' },
      ],
    };
    expect(rawArgumentsOf(message)).toEqual(new Map([["toolu_1", '{"path":"/etc/pas']]));
  });

  it("finds nothing in plain messages", () => {
    expect(rawArgumentsOf(new AIMessage("hi")).size).toBe(0);
    expect(rawArgumentsOf(null).size).toBe(0);
  });
});

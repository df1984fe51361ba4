import type { ToolMessage } from "@langchain/core/messages";
import { rewriteToolMessage, type ToolMessageMark } from "../../core/answers.js";
import type { ToolCallView } from "../../core/messages.js";
import { contentText } from "../../observe/content.js";
import { RETRIEVAL_TOOL_NAME } from "../budget/texts.js";
import { findInstructionLikeText } from "./envelope.js";
import { envelopeText } from "./texts.js";
import { signalFrom, type ValidatorContext } from "./validatorSignals.js";
import { observedDetail } from "../../core/signals.js";

/** Which tools' output goes inside the envelope, from the `envelope` option. */
export function envelopedTools(option: boolean | readonly string[]): (tool: string) => boolean {
  const wrapped = envelopedToolNames(option);
  if (wrapped === true) return () => true;
  return (tool) => wrapped.has(tool);
}

/** The names of the tools whose output goes inside the envelope; `true` for every tool. */
export function envelopedToolNames(option: boolean | readonly string[]): true | ReadonlySet<string> {
  if (option === true) return true;
  const wrapped = new Set(Array.isArray(option) ? option : []);
  // The retrieval tool reads back offloaded results: wrapped whenever any tool's output is.
  if (wrapped.size > 0) wrapped.add(RETRIEVAL_TOOL_NAME);
  return wrapped;
}

/**
 * The untrusted-data envelope: puts a wrapped tool's output between delimiters that say it is
 * data, and flags (signals and marks) text in it that reads like instructions.
 */
export class DataEnvelope {
  constructor(
    private readonly context: ValidatorContext,
    private readonly wraps: (tool: string) => boolean,
  ) {}

  /**
   * `message` with `content`, inside the envelope when that tool is wrapped. Observe-only
   * returns `message` as it came, after flagging instruction-like text.
   */
  wrapped(
    call: ToolCallView,
    message: ToolMessage,
    content: ToolMessage["content"],
  ): ToolMessage | Promise<ToolMessage> {
    if (!this.wraps(call.name)) return content === message.content ? message : rewriteToolMessage(message, { content });
    return this.enveloped(call, message, content);
  }

  /** `text` inside the envelope, when this tool's output is wrapped. */
  async wrappedText(call: ToolCallView, text: string): Promise<string> {
    if (!this.wraps(call.name)) return text;
    return envelopeText(call.name, text, await this.flagInstructions(call, text));
  }

  private async enveloped(
    call: ToolCallView,
    message: ToolMessage,
    content: ToolMessage["content"],
  ): Promise<ToolMessage> {
    const flagged = await this.flagInstructions(call, contentText(content));
    if (this.context.observeOnly) return message;
    // A flagged output is marked, so `instructionsPauseWrites` can pause writes from the history alone.
    const mark: ToolMessageMark | undefined =
      flagged.length > 0
        ? {
            guard: this.context.guard,
            action: "warn",
            reason: "instruction_like_text",
            outcome: "instructions_flagged",
            patterns: flagged,
          }
        : undefined;
    if (typeof content === "string")
      return rewriteToolMessage(message, { content: envelopeText(call.name, content, flagged), mark });
    const blocks = content.map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === "text" && typeof b.text === "string"
        ? { ...b, text: envelopeText(call.name, b.text, flagged) }
        : block;
    });
    return rewriteToolMessage(message, { content: blocks as ToolMessage["content"], mark });
  }

  /** Names the instruction-like patterns in `text`, with a warn signal when there are any. */
  private async flagInstructions(call: ToolCallView, text: string): Promise<string[]> {
    const flagged = findInstructionLikeText(text);
    if (flagged.length > 0) {
      await signalFrom(this.context, {
        action: "warn",
        toolCallId: call.id,
        tool: call.name,
        code: "instruction_like_text",
        reason: `instruction_like_text: the output of "${call.name}" contains ${flagged.join(", ")}`,
        detail: observedDetail({ patterns: flagged }, this.context.observeOnly),
      });
    }
    return flagged;
  }
}

import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { isCommand, type Command } from "@langchain/langgraph";
import { guardToolMessage, rewriteToolMessage } from "../../core/answers.js";
import { REPLACED_RESULT } from "../../core/marks.js";
import type { ToolCallView } from "../../core/messages.js";
import { describeBytes, hexPreview } from "../../core/renderValue.js";
import { emptyResultText } from "../../core/resultTexts.js";
import { toolErrorOutsideText, warnOnce } from "../../core/composition.js";
import { probedRequest, stampRan, type RunProbe } from "../../core/ranStamps.js";
import { defaultToolErrorMessage, leftToOthers, type ToolHandler } from "../../core/toolErrors.js";
import { observedDetail } from "../../core/signals.js";
import { toolsThatAnswered } from "./answeredTools.js";
import { degradedResult, type DegradedResult } from "./degradedResult.js";
import { signalRepair, type RepairGuard } from "./repairGuard.js";
import { lostResultText, schemaMismatchText, shortErrorText, toolFailedText } from "./texts.js";
import { checkArguments } from "./validateArguments.js";
import { rewriteCommandMessages } from "../../core/toolResults.js";

/** The part of LangChain's tool-call request the tool side reads. */
interface ToolRequestLike {
  toolCall: { id?: string; name: string; args: unknown };
  tool?: unknown;
  state?: { messages?: readonly BaseMessage[] };
}

export type FormatToolError = (error: unknown, call: ToolCallView) => string;

/**
 * The tool side of the repair guard, next to the tool: arguments the tool's schema refused get
 * a one-line answer naming each problem, a tool's exception a short error ToolMessage (as
 * LangChain's `toolErrorMiddleware` would write it; interrupts still propagate), and a result
 * LangChain could not turn into text an explicit error or a bounded description. In observe-only
 * mode it signals, and a thrown tool gets LangChain's usual error message.
 */
export function readableToolCall(guard: RepairGuard, formatToolError: FormatToolError | undefined) {
  const format = safeFormatter(formatToolError);
  const observed = (detail: Record<string, unknown>) => observedDetail(detail, guard.observeOnly);

  /** What LangChain's `toolErrorMiddleware` would answer, with our short text. */
  const toolErrorMessage = async (error: unknown, call: ToolCallView): Promise<ToolMessage> => {
    await signalRepair(guard, {
      action: "warn",
      code: "tool_error",
      reason: "tool_error",
      toolCallId: call.id,
      tool: call.name,
      detail: { error: shortErrorText(error) },
    });
    return new ToolMessage({ content: format(error, call), tool_call_id: call.id, name: call.name, status: "error" });
  };

  const schemaRefusal = async (call: ToolCallView, tool: unknown): Promise<ToolMessage | undefined> => {
    if (tool === null || typeof tool !== "object") return undefined;
    let check;
    try {
      check = await checkArguments((tool as { schema?: unknown }).schema, call.args);
    } catch {
      return undefined; // the tool validates again itself; its error is caught like any other
    }
    if (check.ok) return undefined;
    await signalRepair(guard, {
      action: "directive",
      code: "schema_mismatch",
      reason: "schema_mismatch",
      toolCallId: call.id,
      tool: call.name,
      detail: observed({ issues: check.issues }),
    });
    return guardToolMessage(call, guard.guard, "directive", schemaMismatchText(call.name, check.issues));
  };

  const degradedAnswer = async (
    result: ToolMessage,
    call: ToolCallView,
    degraded: DegradedResult,
    history: readonly BaseMessage[] | undefined,
  ): Promise<ToolMessage> => {
    const where = { toolCallId: call.id, tool: call.name };
    switch (degraded.kind) {
      case "lost":
        await signalRepair(guard, {
          action: "directive",
          code: "unserialisable_result",
          reason: "unserialisable_result",
          ...where,
          detail: observed({ hint: "wrap the tool with withSafeResults() to keep its result" }),
        });
        return rewriteToolMessage(result, {
          content: lostResultText(call.name),
          status: "error",
          mark: { guard: guard.guard, action: "directive", reason: "unserialisable_result", outcome: REPLACED_RESULT },
        });
      case "empty":
        if (result.artifact !== undefined) return result; // the text is empty, the answer is not
        // Said in words either way (as withSafeResults does); warned of only when it is news.
        if (!emptyIsNews(call.name, history))
          return rewriteToolMessage(result, { content: emptyResultText(call.name) });
        await signalRepair(guard, {
          action: "warn",
          code: "empty_result",
          reason: "empty_result",
          ...where,
          detail: observed({}),
        });
        return rewriteToolMessage(result, {
          content: emptyResultText(call.name),
          mark: { guard: guard.guard, action: "warn", reason: "empty_result" },
        });
      case "emptyList":
        // The value it was, as withSafeResults renders it: an empty list says "nothing found".
        return rewriteToolMessage(result, { content: "[]" });
      case "binary":
        await signalRepair(guard, {
          action: "warn",
          code: "binary_result",
          reason: "binary_result",
          ...where,
          detail: observed({ bytes: degraded.bytes.length }),
        });
        return rewriteToolMessage(result, {
          content: describeBytes(degraded.bytes.length, hexPreview(degraded.bytes)),
          mark: { guard: guard.guard, action: "warn", reason: "binary_result" },
        });
    }
  };

  /** A result LangChain could not turn into text, made readable (in observe-only mode only signalled), and stamped. */
  const readableAnswer = async (
    result: ToolMessage,
    degraded: DegradedResult,
    request: ToolRequestLike,
    probe: RunProbe,
  ): Promise<ToolMessage> => {
    const answer = await degradedAnswer(result, callOf(request), degraded, request.state?.messages);
    return stampRan(guard.observeOnly ? result : answer, probe, request.toolCall.id);
  };

  /** A tool's exception as a short error ToolMessage, stamped; what is left to others is thrown again. */
  const errorAnswer = async (error: unknown, request: ToolRequestLike, probe: RunProbe): Promise<ToolMessage> => {
    // What a middleware listed after the guards let through is its to handle (core/toolErrors.ts).
    if (leftToOthers(error, probe)) throw error;
    const call = callOf(request);
    // The tool checks its arguments before it runs: only a refused call costs a second check,
    // whose issues make a one-line answer.
    const refusal = isInputParsingError(error) ? await schemaRefusal(call, request.tool) : undefined;
    if (!refusal) warnOnce("tool-error-outside", () => toolErrorOutsideText(call.name), true);
    const answer = guard.observeOnly
      ? defaultToolErrorMessage(error, request.toolCall)
      : (refusal ?? (await toolErrorMessage(error, call)));
    return stampRan(answer, probe, request.toolCall.id);
  };

  // Next to the tool, this wrapper is the one that can tell whether it ran (core/ranStamps.ts).
  return <R extends ToolRequestLike>(request: R, handler: ToolHandler<R>): Promise<ToolMessage | Command> => {
    const { request: probed, probe } = probedRequest(request);
    let pending: ReturnType<ToolHandler<R>>;
    try {
      pending = handler(probed);
    } catch (error) {
      // A handler that throws at once is answered as one whose promise rejects.
      return errorAnswer(error, probed, probe);
    }
    return Promise.resolve(pending).then(
      (result) => {
        // Nearly every result is text LangChain made of the value: it goes back as it is, in this
        // promise step; only one degradedResult flags takes another.
        if (ToolMessage.isInstance(result) && result.status !== "error") {
          const degraded = degradedResult(result.content);
          if (degraded) return readableAnswer(result, degraded, probed, probe);
        } else if (isCommand(result)) {
          // A tool that updates state answers inside its Command: the same answer, made readable there.
          return rewriteCommandMessages(result, (answer) => {
            if (answer.tool_call_id !== request.toolCall.id || answer.status === "error") return undefined;
            const degraded = degradedResult(answer.content);
            return degraded
              ? readableAnswer(answer, degraded, probed, probe).then((readable) =>
                  readable === answer ? undefined : { message: readable },
                )
              : undefined;
          }).then((rewritten) => stampRan(rewritten, probe, request.toolCall.id));
        }
        return stampRan(result, probe, request.toolCall.id);
      },
      (error: unknown) => errorAnswer(error, probed, probe),
    );
  };
}

/** The call as the answers name it. */
function callOf(request: ToolRequestLike): ToolCallView {
  return { id: request.toolCall.id ?? "", name: request.toolCall.name, args: request.toolCall.args };
}

/** The user's formatter, falling back to the default text when it throws. */
function safeFormatter(custom: FormatToolError | undefined): FormatToolError {
  if (!custom) return (error, call) => toolFailedText(call.name, error);
  return (error, call) => {
    try {
      return custom(error, call);
    } catch {
      return toolFailedText(call.name, error);
    }
  };
}

/** The tool refused its arguments before running (ToolNode wraps that in a ToolInvocationError). */
function isInputParsingError(error: unknown): boolean {
  const inner = error !== null && typeof error === "object" && "toolError" in error ? error.toolError : error;
  return inner instanceof ToolInputParsingException;
}

/**
 * Whether a tool's empty result is worth a warn. LangChain tools declare no output, so the thread
 * is the only promise a tool has made: one that has answered with something before (a search that
 * found pages) went silent, which the model could take for an answer; one that has only ever
 * answered empty (a `think` tool, a fire-and-forget write) answered as it always does. Its first
 * empty answer is taken as normal too: there is nothing yet to contrast it with.
 */
function emptyIsNews(tool: string, history: readonly BaseMessage[] | undefined): boolean {
  return history !== undefined && toolsThatAnswered(history).has(tool);
}

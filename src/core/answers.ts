import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { withMark, type Mark, type StopFacts } from "./marks.js";
import type { ToolCallView } from "./messages.js";

/**
 * Messages our guards write in place of a tool or the model. Each carries a mark (core/marks.ts)
 * so that later decisions, replay and `harness-kit inspect` can tell them from real results.
 */

/**
 * Read by the model: the answer to a call the guard did not let run. A stop's answers carry what
 * the stop was (core/marks.ts `StopFacts`), from which the next model call writes the run's final
 * message, in whichever process takes it.
 */
export function guardToolMessage(
  call: ToolCallView,
  guard: string,
  action: "directive" | "stop",
  text: string,
  stop?: StopFacts,
): ToolMessage {
  return new ToolMessage({
    content: text,
    tool_call_id: call.id,
    name: call.name,
    status: "error",
    response_metadata: withMark(
      undefined,
      stop === undefined ? { guard, action } : { guard, action, ...stopMark(stop) },
    ),
  });
}

function stopMark({ reason, on, code, detail }: StopFacts): Record<string, unknown> {
  return detail === undefined
    ? { stopReason: reason, stopOn: on, stopCode: code }
    : { stopReason: reason, stopOn: on, stopCode: code, stopDetail: detail };
}

/** Read by the model: the answer to a sibling call that never ran because the run stopped. */
export function notRunText(guard: string): string {
  return `Not run: ${guard} stopped the run before this call executed.`;
}

/**
 * Read by the user: the run's last message, stating why it ended. `explanation`, when given,
 * follows the machine-readable `reason` (which is also `response_metadata.harness_kit.stopReason`).
 */
export function stopNotice(guard: string, reason: string, explanation?: string): AIMessage {
  return new AIMessage({
    content: `Run stopped by ${guard}: ${reason}${explanation ? ` — ${explanation}` : ""}`,
    response_metadata: withMark(undefined, { guard, action: "stop", stopReason: reason }),
  });
}

/** A guard's mark with the reason it acted and fields of its own, for later decisions and replay. */
export interface ToolMessageMark extends Mark {
  reason: string;
}

/**
 * `result` with its content, status or mark changed. Everything else is kept: id, name,
 * tool_call_id, artifact, additional_kwargs, metadata and the other response_metadata keys
 * (docs/architecture.md, contract 3). A mark replaces any earlier mark.
 */
export function rewriteToolMessage(
  result: ToolMessage,
  changes: { content?: ToolMessage["content"]; status?: "success" | "error"; mark?: ToolMessageMark },
): ToolMessage {
  const responseMetadata = changes.mark ? withMark(result.response_metadata, changes.mark) : result.response_metadata;
  return new ToolMessage({
    content: changes.content ?? result.content,
    tool_call_id: result.tool_call_id,
    name: result.name,
    id: result.id,
    status: changes.status ?? result.status,
    artifact: result.artifact,
    additional_kwargs: result.additional_kwargs,
    response_metadata: responseMetadata,
    metadata: result.metadata,
  });
}

import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { ToolCallView } from "./messages.js";

/**
 * Messages our guards write in place of a tool or the model. Each carries
 * `response_metadata.harness_kit = {guard, action}` so that later decisions, replay and
 * `harness-kit inspect` can tell them from real results.
 */

/** Read by the model: the answer to a call the guard did not let run. */
export function guardToolMessage(call: ToolCallView, guard: string, action: "directive" | "stop", text: string): ToolMessage {
  return new ToolMessage({
    content: text,
    tool_call_id: call.id,
    name: call.name,
    status: "error",
    response_metadata: { harness_kit: { guard, action } },
  });
}

/** Read by the model: the answer to a sibling call that never ran because the run stopped. */
export function notRunText(guard: string): string {
  return `Not run: ${guard} stopped the run before this call executed.`;
}

/** Read by the user: the run's last message, stating why it ended. */
export function stopNotice(guard: string, reason: string): AIMessage {
  return new AIMessage({
    content: `Run stopped by ${guard}: ${reason}`,
    response_metadata: { harness_kit: { guard, action: "stop", stopReason: reason } },
  });
}

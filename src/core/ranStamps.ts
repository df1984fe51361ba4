import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ToolInputParsingException } from "@langchain/core/tools";
import { isCommand, type Command } from "@langchain/langgraph";
import {
  ANSWERED_BEFORE_KEY,
  hasRanStamp,
  isStampedTurn,
  markOf,
  RAN_KEY,
  STAMPED_KEY,
  withWouldBeRefusals,
  wouldBeRefusalsOf,
  type WouldBeRefusal,
} from "./marks.js";

/**
 * Stamps what really ran (docs/architecture.md, "Judge as one"). Only the wrapper nearest the
 * tool can tell whether it ran: any middleware between may answer in its place (a guard's
 * refusal, LangChain's call limit, a reviewer's reject). So every guard hands the next handler a
 * request whose tool notes that it was invoked, and stamps the answer that comes back with whether it was.
 * A guard that judges history also stamps each AI turn it sees: in a stamped turn, an answer
 * without the stamp did not run.
 */

/** Whether a call's tool ran; shared by every guard of a stack along one call. */
export interface RunProbe {
  ran: boolean;
  /**
   * Whether a middleware listed after the guards looked at the call on its way to the tool (it
   * read which tool runs, as LangChain's `toolRetryMiddleware` and `toolErrorMiddleware` do
   * first). An exception that comes back through such a middleware is its to handle: it let the
   * exception through on purpose, or re-threw it (core/toolErrors.ts).
   */
  passedOn: boolean;
  /**
   * The request held no tool to watch: LangChain looks the tool up by its name (a reviewer's edit
   * into another tool) or a middleware inside supplies it, so the answer tells whether it ran.
   */
  byName?: boolean;
}

interface InvokableTool {
  invoke(input: unknown, config?: unknown): unknown;
}

/** Where a probing tool keeps its call's probe: a symbol, so no tool property is shadowed. */
const PROBE = Symbol("harness-kit.probe");

type ProbingTool = InvokableTool & { [PROBE]: RunProbe };

/** `request` with its tool replaced by one that notes its run; an outer guard's probe is reused. */
export function probedRequest<R extends { tool?: unknown }>(request: R): { request: R; probe: RunProbe } {
  const tool = request.tool as InvokableTool | undefined;
  if (tool === null || typeof tool !== "object" || typeof tool.invoke !== "function")
    return { request, probe: { ran: false, passedOn: false, byName: true } };
  const known = (tool as Partial<ProbingTool>)[PROBE];
  if (known) return { request, probe: known };
  const probe: RunProbe = { ran: false, passedOn: false };
  const probing = Object.create(probingPrototype(tool)) as ProbingTool;
  probing[PROBE] = probe;
  return { request: { ...request, tool: probing }, probe };
}

/**
 * What every probing stand-in for `tool` inherits, made once per tool: defining accessors on each
 * call's object was the guards' costliest line per step. The guards read a tool's schema, never
 * its name, and the tool reads its own on itself: a read of the name here is another middleware's.
 */
function probingPrototype(tool: InvokableTool): object {
  let prototype = prototypes.get(tool);
  if (!prototype) {
    prototype = Object.create(tool, {
      name: {
        get(this: ProbingTool) {
          this[PROBE].passedOn = true;
          return (tool as { name?: unknown }).name;
        },
      },
      invoke: {
        // The tool's invoke, noting that it ran, with no closure of ours made per call.
        value(this: ProbingTool, input: unknown, config?: unknown): Promise<unknown> {
          const probe = this[PROBE];
          probe.ran = true;
          try {
            return Promise.resolve(tool.invoke(input, config)).catch((error: unknown) => {
              throw noteRefusal(error, probe);
            });
          } catch (error) {
            return Promise.reject(noteRefusal(error, probe));
          }
        },
      },
    }) as object;
    prototypes.set(tool, prototype);
  }
  return prototype;
}

const prototypes = new WeakMap<object, object>();

/** `error`, noted on the probe: arguments the tool's schema refused mean the tool itself never ran. */
function noteRefusal(error: unknown, probe: RunProbe): unknown {
  if (error instanceof ToolInputParsingException) probe.ran = false;
  return error;
}

/**
 * Stamps the answer to `callId` in `result` with whether the probe saw the tool run. An answer
 * stamped either way reached the guards (replay tells these from calls answered before the tools
 * node, by LangChain's call limit or a reviewer's reject).
 */
export function stampRan<T extends ToolMessage | Command>(result: T, probe: RunProbe, callId: string | undefined): T {
  if (ToolMessage.isInstance(result)) stamp(result, RAN_KEY, probe.byName ? ranByName(result) : probe.ran);
  else for (const m of answersIn(result, callId)) stamp(m, RAN_KEY, probe.byName ? ranByName(m) : probe.ran);
  return result;
}

/**
 * Whether a tool LangChain looked up by name ran: unless a guard answered in its place (its mark)
 * or LangChain found no tool of that name (its own error answer), the tool gave this answer.
 */
function ranByName(answer: ToolMessage): boolean {
  if (markOf(answer) !== undefined) return false;
  const notFound = `Error: ${answer.name ?? ""} is not a valid tool, try one of [`;
  return !(answer.status === "error" && typeof answer.content === "string" && answer.content.startsWith(notFound));
}

/**
 * Records on the answer to `callId` in `result` that `refusal.guard` would have refused the call
 * and let it run (an observe-only guard), so that its later judgements, live, after a restore and
 * in replay, read the repeat that follows as a refusal ignored (core/marks.ts WOULD_REFUSE_KEY).
 */
export function recordWouldBeRefusal<T extends ToolMessage | Command>(
  result: T,
  refusal: WouldBeRefusal,
  callId: string | undefined,
): T {
  const record = (m: BaseMessage) => {
    const refusals = [...wouldBeRefusalsOf(m).filter((r) => r.guard !== refusal.guard), refusal];
    setMetadata(m, withWouldBeRefusals(m.response_metadata, refusals));
  };
  if (ToolMessage.isInstance(result)) record(result);
  else for (const m of answersIn(result, callId)) record(m);
  return result;
}

/**
 * Writes on the answer to `callId` in `result` which calls of its batch were answered when the
 * guards judged it (core/marks.ts ANSWERED_BEFORE_KEY); false when `result` holds no such answer.
 */
export function recordAnsweredBefore(
  result: ToolMessage | Command,
  ids: readonly string[],
  callId: string | undefined,
): boolean {
  const answers = ToolMessage.isInstance(result) ? [result] : answersIn(result, callId);
  for (const m of answers) setMetadata(m, { ...m.response_metadata, [ANSWERED_BEFORE_KEY]: ids });
  return answers.length > 0;
}

/** The answers to `callId` a tool's Command carries in its state update (none for anything else). */
function answersIn(result: unknown, callId: string | undefined): ToolMessage[] {
  const messages = isCommand(result) ? (result.update as { messages?: unknown } | undefined)?.messages : undefined;
  return Array.isArray(messages)
    ? messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.tool_call_id === callId)
    : [];
}

/** Stamps the model's answer as a turn a guard saw (only a turn with tool calls needs it). */
export function stampTurn<T>(response: T): T {
  if (AIMessage.isInstance(response) && response.tool_calls?.length && !isStampedTurn(response))
    stamp(response, STAMPED_KEY, true);
  return response;
}

/**
 * Sets `key` in a message's response_metadata, in place: the message is new (the tool's or the
 * model's answer, not yet in state), and a copy per call would cost every step. The first stamp
 * stands: an inner guard saw the same run. Serialisation writes the fields a message was built
 * with (`lc_kwargs`), so the stamp goes there too.
 */
function stamp(message: BaseMessage, key: string, value: boolean): void {
  if (key === RAN_KEY && hasRanStamp(message)) return;
  setMetadata(message, { ...message.response_metadata, [key]: value });
}

/** Replaces a new message's response_metadata in place, where serialisation reads it too. */
function setMetadata(message: BaseMessage, metadata: Record<string, unknown>): void {
  message.response_metadata = metadata;
  (message.lc_kwargs as Record<string, unknown>).response_metadata = metadata;
}

import { ToolMessage } from "@langchain/core/messages";
import { tool, type ToolRuntime } from "@langchain/core/tools";
import { z } from "zod";
import { fields } from "../../core/fields.js";
import {
  badRetrievalArgumentsText,
  missingKeyText,
  RETRIEVAL_ARG_DESCRIPTIONS,
  RETRIEVAL_TOOL_DESCRIPTION,
  RETRIEVAL_TOOL_NAME,
  storeReadFailedText,
  type RetrievalArgument,
} from "./texts.js";
import type { Measure } from "./measure.js";
import { fitToBudget } from "./preview.js";
import type { CharRange, OffloadContext, OffloadStore, StoredSlice } from "../../offload/OffloadStore.js";
import { renderMatches, renderSlice } from "./readBack.js";
import { compileLinePattern, isRefused, searchLines } from "./search.js";
import { threadIdOf } from "../../offload/threads.js";
import { DEFAULT_STORE_TIMEOUT_MS, storeName, withStoreTimeout } from "../../offload/timeouts.js";

export interface RetrievalBudget {
  /** Largest answer, in the measure's unit. */
  limit: number;
  measure: Measure;
  /** How long to wait for the store, in ms. Default `DEFAULT_STORE_TIMEOUT_MS` (10 s). */
  timeoutMs?: number;
}

/** How long a search may scan before it answers with what it found and where to continue. */
export const SEARCH_TIME_MS = 30;

const schema = z.object({
  key: z.string().describe(RETRIEVAL_ARG_DESCRIPTIONS.key),
  offset: z.coerce.number().optional().describe(RETRIEVAL_ARG_DESCRIPTIONS.offset),
  length: z.coerce.number().optional().describe(RETRIEVAL_ARG_DESCRIPTIONS.length),
  pattern: z.string().optional().describe(RETRIEVAL_ARG_DESCRIPTIONS.pattern),
});

/** Room for the answer's header, in characters: the answer's content gets the rest. */
const HEADER_ROOM = 200;

/**
 * The tool the budget registers so the model can read offloaded results back. Its answers fit
 * the same budget as any result, and it never throws: a missing key or a failing store is an
 * answer the model can act on.
 */
export function createRetrievalTool(store: OffloadStore, budget: RetrievalBudget) {
  return answeringBadArguments(
    tool(
      async (input: z.infer<typeof schema>, runtime: ToolRuntime) => {
        const context = {
          toolName: RETRIEVAL_TOOL_NAME,
          toolCallId: runtime?.toolCallId ?? "",
          threadId: threadIdOf(runtime),
          state: fields(runtime?.state),
        };
        const offset = Number.isFinite(input.offset) ? input.offset! : 0;
        const length = Number.isFinite(input.length) && input.length! > 0 ? input.length : undefined;
        const pattern =
          input.pattern === undefined || input.pattern === "" ? undefined : compileLinePattern(input.pattern);
        if (pattern && isRefused(pattern)) return pattern.refused;
        let read: StoredSlice | undefined;
        try {
          read = await readStored(
            store,
            input.key,
            pattern ? undefined : pageOf(offset, budget),
            context,
            budget.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS,
          );
        } catch (error) {
          return storeReadFailedText(input.key, error);
        }
        if (read === undefined) return missingKeyText(input.key);
        const stored = read;
        const search = pattern
          ? searchLines(stored.text, pattern, offset, pageChars(budget), SEARCH_TIME_MS)
          : undefined;
        const render = (room: number) =>
          search ? renderMatches(input.key, search, room) : renderSlice(input.key, stored, offset, length, room);
        return fitToBudget(render, budget.limit, budget.measure, firstRoom(stored, offset, budget));
      },
      { name: RETRIEVAL_TOOL_NAME, description: RETRIEVAL_TOOL_DESCRIPTION, schema },
    ),
  );
}

/**
 * `retrieval`, answering arguments its schema rejects in a sentence. LangChain's own answer is
 * its schema error with a stack trace: longer than a small budget, naming server paths, and
 * left uncut (the budget does not cut its own tool).
 */
function answeringBadArguments<T extends { call: (...args: never[]) => Promise<unknown> }>(retrieval: T): T {
  const call = retrieval.call.bind(retrieval) as (arg: unknown, config?: unknown, tags?: unknown) => Promise<unknown>;
  const checked = async (arg: unknown, config?: unknown, tags?: unknown): Promise<unknown> => {
    const parsed = schema.safeParse(arg);
    if (parsed.success) return call(arg, config, tags);
    const wrong = [...new Set(parsed.error.issues.map((issue) => issue.path[0]))].filter(isRetrievalArgument);
    return answerFor(config, badRetrievalArgumentsText(wrong));
  };
  return Object.assign(retrieval, { call: checked });
}

function isRetrievalArgument(name: unknown): name is RetrievalArgument {
  return typeof name === "string" && name in RETRIEVAL_ARG_DESCRIPTIONS;
}

/** The tool's answer as LangChain's ToolNode expects it: a ToolMessage for a tool call, else the text. */
function answerFor(config: unknown, text: string): ToolMessage | string {
  const id = fields(fields(config).toolCall).id;
  return typeof id === "string"
    ? new ToolMessage({ content: text, tool_call_id: id, name: RETRIEVAL_TOOL_NAME, status: "error" })
    : text;
}

/** Most characters one answer can show: the limit, or for tokens a generous 16 characters a token. */
function pageChars(budget: RetrievalBudget): number {
  return budget.measure.unit === "chars" ? budget.limit : budget.limit * 16;
}

/**
 * The part of the result a slice answer can show, read instead of the whole result, from one
 * character before the offset: an offset inside a surrogate pair then starts the page at the pair.
 */
function pageOf(offset: number, budget: RetrievalBudget): CharRange {
  const start = Math.max(0, Math.floor(offset));
  return { start: Math.max(0, start - 1), end: start + pageChars(budget) };
}

function firstRoom(stored: StoredSlice, offset: number, budget: RetrievalBudget): number {
  const room = budget.limit - HEADER_ROOM / (budget.measure.unit === "chars" ? 1 : 4);
  if (budget.measure.unit === "chars") return room;
  const from = Math.max(0, offset - stored.start);
  const sample = stored.text.slice(from, from + 4000) || "x";
  return room * (sample.length / Math.max(budget.measure.text(sample), 1));
}

/**
 * Reads a stored result for the retrieval tool within `timeoutMs`: the page `range` through the
 * store's `read` when it has one (a page of a 10 MB file costs a page, not the file), else the
 * whole content through `get`. Without a range, the whole content.
 */
async function readStored(
  store: OffloadStore,
  key: string,
  range: CharRange | undefined,
  context: OffloadContext,
  timeoutMs: number,
): Promise<StoredSlice | undefined> {
  const name = storeName(store);
  if (range && typeof store.read === "function") {
    return withStoreTimeout(store.read(key, range, context), timeoutMs, name, key, "read");
  }
  const text = await withStoreTimeout(store.get(key, context), timeoutMs, name, key, "read");
  if (typeof text !== "string") return undefined;
  if (!range) return { text, start: 0, total: text.length };
  const start = Math.min(Math.max(0, range.start), text.length);
  return { text: text.slice(start, Math.max(start, range.end)), start, total: text.length };
}

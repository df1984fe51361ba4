import { tool, type ToolRuntime } from "@langchain/core/tools";
import { z } from "zod";
import { fields } from "../../core/fields.js";
import { RETRIEVAL_TOOL_NAME } from "./texts.js";
import type { Measure } from "./measure.js";
import { fitToBudget } from "./preview.js";
import type { CharRange, OffloadStore, StoredSlice } from "../../offload/OffloadStore.js";
import { renderMatches, renderSlice } from "./readBack.js";
import { readStored } from "./readStored.js";
import { compileLinePattern, isRefused, searchLines } from "./search.js";
import { threadIdOf } from "../../offload/threads.js";
import { DEFAULT_STORE_TIMEOUT_MS } from "../../offload/timeouts.js";

export interface RetrievalBudget {
  /** Largest answer, in the measure's unit. */
  limit: number;
  measure: Measure;
  /** How long to wait for the store, in ms. Default `DEFAULT_STORE_TIMEOUT_MS` (10 s). */
  timeoutMs?: number;
}

/** How long a search may scan before it answers with what it found and where to continue. */
export const SEARCH_TIME_MS = 30;

const DESCRIPTION =
  "Reads a tool result that was too large to show in full and was stored under a key (its preview names the key). " +
  "Give an offset (a character position, 0 by default) and optionally a length to read a slice, " +
  "or a pattern (a regular expression in RE2 syntax, or plain text) to list the lines that match. Each answer is capped and says where to continue.";

const schema = z.object({
  key: z.string().describe("The key the preview gave, exactly."),
  offset: z.coerce.number().optional().describe("Character position to start from; 0 by default."),
  length: z.coerce.number().optional().describe("Characters to read; as many as fit by default."),
  pattern: z.string().optional().describe("Regular expression (RE2 syntax) or plain text: list matching lines instead of reading a slice."),
});

/** Room for the answer's header, in characters: the answer's content gets the rest. */
const HEADER_ROOM = 200;

/**
 * The tool the budget registers so the model can read offloaded results back. Its answers fit
 * the same budget as any result, and it never throws: a missing key or a failing store is an
 * answer the model can act on.
 */
export function createRetrievalTool(store: OffloadStore, budget: RetrievalBudget) {
  return tool(
    async (input: z.infer<typeof schema>, runtime: ToolRuntime) => {
      const context = {
        toolName: RETRIEVAL_TOOL_NAME,
        toolCallId: runtime?.toolCallId ?? "",
        threadId: threadIdOf(runtime),
        state: fields(runtime?.state),
      };
      const offset = Number.isFinite(input.offset) ? input.offset! : 0;
      const length = Number.isFinite(input.length) && input.length! > 0 ? input.length : undefined;
      const pattern = input.pattern === undefined || input.pattern === "" ? undefined : compileLinePattern(input.pattern);
      if (pattern && isRefused(pattern)) return pattern.refused;
      let read: StoredSlice | undefined;
      try {
        read = await readStored(store, input.key, pattern ? undefined : pageOf(offset, budget), context, budget.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS);
      } catch (error) {
        return storeReadFailedText(input.key, error);
      }
      if (read === undefined) return missingKeyText(input.key);
      const stored = read;
      const search = pattern ? searchLines(stored.text, pattern, offset, pageChars(budget), SEARCH_TIME_MS) : undefined;
      const render = (room: number) =>
        search ? renderMatches(input.key, search, room) : renderSlice(input.key, stored, offset, length, room);
      return fitToBudget(render, budget.limit, budget.measure, firstRoom(stored, offset, budget));
    },
    { name: RETRIEVAL_TOOL_NAME, description: DESCRIPTION, schema },
  );
}

/** Most characters one answer can show: the limit, or for tokens a generous 16 characters a token. */
function pageChars(budget: RetrievalBudget): number {
  return budget.measure.unit === "chars" ? budget.limit : budget.limit * 16;
}

/** The part of the result a slice answer can show, read instead of the whole result. */
function pageOf(offset: number, budget: RetrievalBudget): CharRange {
  const start = Math.max(0, Math.floor(offset));
  return { start, end: start + pageChars(budget) };
}

function firstRoom(stored: StoredSlice, offset: number, budget: RetrievalBudget): number {
  const room = budget.limit - HEADER_ROOM / (budget.measure.unit === "chars" ? 1 : 4);
  if (budget.measure.unit === "chars") return room;
  const from = Math.max(0, offset - stored.start);
  const sample = stored.text.slice(from, from + 4000) || "x";
  return room * (sample.length / Math.max(budget.measure.text(sample), 1));
}

/** Read by the model when the key names nothing stored. */
export function missingKeyText(key: string): string {
  return `Nothing is stored under the key "${key}". Use the key exactly as the preview gave it; if the result is gone, call the original tool again.`;
}

/** Read by the model when the store could not be read. */
export function storeReadFailedText(key: string, error: unknown): string {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return `The result stored under "${key}" could not be read (${reason}). Try again later, or call the original tool again with narrower arguments.`;
}

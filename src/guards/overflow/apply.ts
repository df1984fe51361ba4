import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { messageKind, nameOf, toolCallIdOf } from "../../core/messages.js";
import type { Hasher } from "../../observe/hash.js";
import type { Measure } from "../budget/measure.js";
import type { OffloadKeeper } from "./keep.js";
import type { PlanEntry, ShrinkPlan } from "./plan.js";
import type { RemovedPart } from "./record.js";
import {
  noteMessage,
  previewResult,
  resultParts,
  stubbedText,
  stubMessage,
  stubReadBack,
  stubResult,
  type ReadBackOrigin,
} from "./replacements.js";
import { partsOf } from "./spanParts.js";
import { droppedSpanNote, transcriptOf, type KeptWhere, type SpanPart } from "./texts.js";

/** Where the content stored for one shrink goes, and what the store asked to write into state. */
export interface ShrinkContext {
  threadId: string | undefined;
  hash: Hasher;
  /** State updates of stores that write graph state, collected for the answer's Command. */
  collected: Record<string, unknown>[];
}

/**
 * A shrink plan carried out: what a message leaves out is stored first, then the shortened
 * messages take the originals' places and each dropped span becomes one note. A shortened
 * message is built once, and built again only when its action or where its content went change.
 */
export class PlanApplier {
  private readonly renders = new WeakMap<object, { id: string; message: BaseMessage }>();

  constructor(
    private readonly keeper: OffloadKeeper,
    private readonly previewTokens: number,
    private readonly measure: Measure,
    /** Where a read back in the request was read from (EntrySizer.readBackOf): pointed to rather than stored again. */
    private readonly readBackOf: (message: BaseMessage) => ReadBackOrigin | undefined,
  ) {}

  async apply(
    messages: readonly BaseMessage[],
    entries: readonly PlanEntry[],
    plan: ShrinkPlan,
    context: ShrinkContext,
  ): Promise<{ shrunk: BaseMessage[]; removed: RemovedPart[] }> {
    const { threadId, hash, collected } = context;
    const removed: RemovedPart[] = [];
    const replaced = new Map<number, BaseMessage>();
    const spanAt = new Map(plan.droppedSpans.map(([from, to]) => [from, to]));

    await Promise.all(
      plan.actions.map(async (action, i) => {
        if (action === undefined || action === "drop") return;
        const message = messages[i]!;
        const part = partOf(message, i, entries[i]!, action);
        const tool = ToolMessage.isInstance(message) ? message : undefined;
        const readBack = tool && this.readBackOf(tool);
        if (tool && readBack) {
          replaced.set(
            i,
            this.rendered(message, action, { key: readBack.key, howToRead: readBack.again }, () =>
              stubReadBack(tool, readBack),
            ),
          );
          removed.push({ ...part, key: readBack.key });
          return;
        }
        const stored = tool
          ? {
              name: nameOf(tool) ?? "tool",
              id: tool.tool_call_id,
              text: () => (action === "preview" ? resultParts(tool).text : stubbedText(tool)),
            }
          : { name: `${part.kind}_message`, id: message.id ?? `message-${i}`, text: () => transcriptOf([message], i) };
        // A transcript names positions: its key is kept per position.
        const where = await this.keeper.keep(
          message,
          tool ? action : `${action}:${i}`,
          stored,
          collected,
          threadId,
          hash,
        );
        replaced.set(
          i,
          this.rendered(message, action, where, () =>
            tool
              ? action === "preview"
                ? previewResult(tool, where, this.previewTokens, this.measure)
                : stubResult(tool, where)
              : stubMessage(message, where),
          ),
        );
        removed.push({ ...part, ...(where.key ? { key: where.key } : {}) });
      }),
    );

    const shrunk: BaseMessage[] = [];
    for (let i = 0; i < messages.length; i++) {
      const to = spanAt.get(i);
      if (to !== undefined) {
        const span = messages.slice(i, to);
        const parts: SpanPart[] = [];
        for (const [from, end] of partsOf(entries, i, to)) {
          const stored = {
            name: "earlier_messages",
            id: messages[from]!.id ?? `message-${from}`,
            text: () => transcriptOf(messages.slice(from, end), from),
          };
          const where = await this.keeper.keep(
            messages[from]!,
            `part:${from}-${end}:${messages[end - 1]!.id ?? ""}`,
            stored,
            collected,
            threadId,
            hash,
          );
          parts.push({ first: from, last: end - 1, where });
          for (let k = from; k < end; k++)
            removed.push({ ...partOf(messages[k]!, k, entries[k]!, "drop"), ...(where.key ? { key: where.key } : {}) });
        }
        const toolResults = span.filter((m) => messageKind(m) === "tool").length;
        shrunk.push(noteMessage(droppedSpanNote(span.length, toolResults, parts)));
        i = to - 1;
        continue;
      }
      shrunk.push(replaced.get(i) ?? messages[i]!);
    }
    removed.sort((a, b) => a.index - b.index);
    return { shrunk, removed };
  }

  /** The shortened message for `message`, `action` and `where`, built once while they stay the same. */
  private rendered(message: BaseMessage, action: string, where: KeptWhere, render: () => BaseMessage): BaseMessage {
    const id = `${action}\u0000${where.key !== undefined ? `${where.key}\u0000${where.howToRead}` : where.failure}`;
    const known = this.renders.get(message);
    if (known?.id === id) return known.message;
    const made = render();
    this.renders.set(message, { id, message: made });
    return made;
  }
}

function partOf(message: BaseMessage, index: number, entry: PlanEntry, action: RemovedPart["action"]): RemovedPart {
  const kind = entry.kind === "system" ? "other" : entry.kind;
  const part: RemovedPart = { index, kind, action, tokens: entry.tokens };
  if (kind === "tool") {
    const id = toolCallIdOf(message);
    const tool = nameOf(message);
    if (id !== undefined) part.toolCallId = id;
    if (tool !== undefined) part.tool = tool;
  }
  return part;
}

import { splitContent, type Measure, type MediaPart, type SplitContent } from "./measure.js";
import { mediaRemovedNote, renderPreview, type PreviewFacts } from "./texts.js";
import { cutHeadTail, emptyCut, fitToBudget, type HeadTailCut } from "./preview.js";

/** The smallest budget that still leaves room for a preview's notices. */
export const MIN_LIMIT = { chars: 1000, tokens: 250 } as const;

/** A tool result measured against its budget. */
export interface BudgetAssessment {
  split: SplitContent;
  /** Size of the text in the budget's unit. */
  textSize: number;
  /** Size of each media block, in the order of `split.media`. */
  mediaSizes: number[];
  /** Whole result: text plus media. */
  size: number;
}

export function assessContent(content: unknown, measure: Measure): BudgetAssessment {
  const split = splitContent(content);
  const textSize = measure.text(split.text);
  const mediaSizes = split.media.map((part) => measure.media(part.view.payloadSize));
  return { split, textSize, mediaSizes, size: mediaSizes.reduce((sum, s) => sum + s, textSize) };
}

/** What an over-budget result keeps: media blocks that fit, and whether the text must be cut. */
export interface BudgetPlan {
  kept: MediaPart[];
  dropped: MediaPart[];
  /** Budget left for the text (with the note on dropped media). */
  textRoom: number;
  /** The text does not fit its room: it is previewed, and offloaded when a store is there. */
  cutText: boolean;
  /** Read by the model: the media blocks that were removed; undefined when none was. */
  mediaNote: string | undefined;
}

/**
 * Media blocks are kept, in order, while they fit beside the text; the text always keeps at
 * least half the budget (or all it needs, when less), so a large image cannot crowd it out.
 */
export function planBudget(assessment: BudgetAssessment, limit: number, measure: Measure): BudgetPlan {
  const { split, textSize, mediaSizes } = assessment;
  const noteAllowance = split.media.length > 0 ? measure.text(mediaRemovedNote(split.media)) + 1 : 0;
  const reserve = Math.min(textSize + noteAllowance, Math.floor(limit / 2));
  const kept: MediaPart[] = [];
  const dropped: MediaPart[] = [];
  let keptSize = 0;
  split.media.forEach((part, i) => {
    const size = mediaSizes[i]!;
    if (keptSize + size <= limit - reserve) {
      kept.push(part);
      keptSize += size;
    } else dropped.push(part);
  });
  const mediaNote = dropped.length > 0 ? mediaRemovedNote(dropped) : undefined;
  const noteSize = mediaNote === undefined ? 0 : measure.text(mediaNote) + (split.text ? 1 : 0);
  const textRoom = limit - keptSize;
  return { kept, dropped, textRoom, cutText: textSize + noteSize > textRoom, mediaNote };
}

/** The result rebuilt within budget. */
export interface BudgetedContent {
  content: unknown;
  /** Set when the text was cut: what the preview kept. */
  cut: HeadTailCut | undefined;
}

/**
 * Builds the content the model gets: the text (cut into a preview when the plan says so) with the
 * media note, followed by the media blocks that were kept. A string result stays a string when it
 * had no media. `facts` describe the preview's notices (including where the full text went).
 */
export function renderBudgeted(
  assessment: BudgetAssessment,
  plan: BudgetPlan,
  facts: PreviewFacts,
  measure: Measure,
): BudgetedContent {
  const { split, textSize } = assessment;
  let cut: HeadTailCut | undefined;
  let textPart: string;
  if (plan.cutText) {
    const render = (room: number): string => {
      cut = room > 0 ? cutHeadTail(split.text, room) : emptyCut(split.text);
      return renderPreview(facts, cut, plan.mediaNote);
    };
    const frame = measure.text(renderPreview(facts, emptyCut(split.text), plan.mediaNote));
    const charsPerUnit = measure.unit === "chars" ? 1 : split.text.length / Math.max(textSize, 1);
    textPart = fitToBudget(render, plan.textRoom, measure, (plan.textRoom - frame) * charsPerUnit);
  } else {
    textPart = [split.text, plan.mediaNote].filter((part) => part).join("\n");
  }
  if (!split.blocks && split.media.length === 0) return { content: textPart, cut };
  const blocks: unknown[] = textPart ? [{ type: "text", text: textPart }] : [];
  for (const part of plan.kept) blocks.push(part.block);
  return { content: blocks, cut };
}

import { z } from "zod";
import { fn, stoppingGuardOptions, toolNames, wholeNumber } from "../../core/baseOptions.js";
import type { DeltaFunction } from "../../observe/novelty.js";

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const progressGuardOptions = stoppingGuardOptions.extend({
  stopAt: wholeNumber()
    .default(3)
    .describe("Wasted repeats (errors count double) at which a run that already ignored a directive stops."),
  progressFloor: z
    .number()
    .min(0, "must be in [0, 1)")
    .lt(1, "must be in [0, 1)")
    .default(0.02)
    .describe("A result whose share of new content is at most this brought nothing new."),
  deltaOverrides: z
    .record(z.string(), fn<DeltaFunction>())
    .readonly()
    .optional()
    .describe(
      'Novelty functions per tool, e.g. `{ write_todos: makeSetMembershipDelta("todos", "content") }` (`harness-kit/observe`).',
    ),
  volatilePatterns: z
    .array(z.instanceof(RegExp, { message: "must hold regular expressions" }))
    .readonly()
    .optional()
    .describe(
      "Patterns replaced before results are compared (a pattern with the `m` flag drops the lines it matches). Default: ISO timestamps, UUIDs, hex ids, request ids, relative times, counters of the asking, visit-notice lines.",
    ),
  ignoreTools: toolNames().default(["think"]).describe("No-op tools that neither count nor break a chain."),
  readOnlyTools: toolNames()
    .default([])
    .describe("Tools that only read: calling them never justifies repeating another call."),
  stateChangingTools: toolNames()
    .default([])
    .describe("Tools that change the world: a new call to one starts every judgement afresh."),
  pollingTools: toolNames()
    .default([])
    .describe(
      "Tools polled until something changes (a job's status, a log being tailed). They only read; while each answer brings something new they are never counted, and an unchanged answer is waited on `pollPatience` times before a directive.",
    ),
  pollPatience: wholeNumber().default(5).describe("Unchanged answers of a polling tool before a directive."),
});

export type ProgressAwareLoopGuardOptions = z.input<typeof progressGuardOptions>;

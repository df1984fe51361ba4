import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { RequestMeter } from "./estimate.js";
import type { OverflowNumbers } from "./providerErrors.js";
import { readContextRecord, type ContextRecord } from "./record.js";
import type { RoomParts } from "./texts.js";
import { answerReserve, calibration, MAX_CALIBRATION, profileWindow, providerWindowIn } from "./window.js";

/** The parts of LangChain's model request the guard reads and rewrites. */
export interface ModelRequestLike {
  model?: unknown;
  messages: BaseMessage[];
  systemMessage?: unknown;
  tools?: readonly unknown[];
  state?: unknown;
  runtime?: unknown;
}
export type ModelHandler<R> = (request: R) => AIMessage | Command | Promise<AIMessage | Command>;

/** The guard's options the measure reads. */
export interface WindowOptions {
  maxInputTokens?: number;
  reserveTokens?: number;
  shrinkTo: number;
}

/** The recovery's target after a refusal, and the window (and answer's room) the refusal stated. */
export interface Forced {
  target: number;
  /** The most the retry may take by the provider's numbers, in estimated tokens: above it, the retry would be refused again. */
  ceiling: number;
  /** Provider tokens per estimated token, measured on the refused request. */
  ratio: number;
  /** Estimated tokens of the refused request. */
  refusedTokens: number;
  window: number | undefined;
  reserve: number;
  providerWindow: number | undefined;
  providerReserve: number | undefined;
}

/** A request ready to send, with what the guard did to it. */
export interface Sendable<R> {
  kind: "send";
  request: R;
  record?: ContextRecord;
  sentTokens: number;
  window: number | undefined;
  reserve: number;
  providerWindow: number | undefined;
  providerReserve: number | undefined;
}

/** A request ready to send, or the stop because even the smallest request would not fit. */
export type Prepared<R> = Sendable<R> | { kind: "stop"; window?: number; room: RoomTaken };

/** What takes the room of the smallest request, in the provider's tokens as calibrated: for the stop's explanation. */
export type RoomTaken = RoomParts;

/**
 * The most the estimate overcounts a text, measured with o200k_base and cl100k_base: prose and
 * code close to 1, accented prose 1.2, CJK 1.8 (JSON, base64 and digits are undercounted). Only
 * long runs of one character (spaces, dashes), which a tokenizer packs into a few tokens, go
 * beyond it. Below its share of the estimate no request is proven over the window.
 */
export const ESTIMATE_MAX_OVERCOUNT = 2;

/**
 * Whether the smallest request the guard can make (`smallest` estimated tokens, `factor` the
 * calibration) is proven over the limit, so that sending it would only be refused. Otherwise it
 * is sent: a false stop costs the whole run, a refusal one round trip that teaches the provider's
 * numbers. After a refusal, the proof is the provider's: it refused a request no larger than the
 * smallest, or the smallest at the rate the provider counted is over its window even at the
 * estimate's error bound.
 */
export function provenOver(
  smallest: number,
  over: Pick<Over<unknown>, "forced" | "factor" | "limit">,
): "provider" | "estimate" | undefined {
  const { forced, factor, limit } = over;
  if (forced) {
    if (smallest <= forced.ceiling) return undefined;
    if (smallest >= forced.refusedTokens) return "provider";
    const providerLimit = forced.window === undefined ? undefined : forced.window - forced.reserve;
    return providerLimit !== undefined && (smallest * forced.ratio) / ESTIMATE_MAX_OVERCOUNT > providerLimit
      ? "provider"
      : undefined;
  }
  if (limit === undefined || smallest * factor <= limit) return undefined;
  return smallest / ESTIMATE_MAX_OVERCOUNT > limit ? "estimate" : undefined;
}

/** A request over the limit, by these numbers. */
export interface Over<R> {
  kind: "over";
  unchanged: Sendable<R>;
  forced: Forced | undefined;
  fixedTokens: number;
  fullTokens: number;
  factor: number;
  limit: number | undefined;
  window: number | undefined;
  reserve: number;
  providerWindow: number | undefined;
  providerReserve: number | undefined;
}

/**
 * A request measured: it fits as it is, or it is over the limit. A fitting request with no window
 * to measure it against is not measured: `prepared` is then left out, and `sentUnmeasured` works
 * it out if the provider refuses the request.
 */
export type Assessed<R> = { kind: "fits"; prepared?: Sendable<R> } | Over<R>;

/**
 * Below this share of the limit, a request is accepted on the running total of its history (see
 * `RequestMeter.summary`); at or above it, every message is measured again.
 */
const FAST_ACCEPT_SHARE = 0.5;

/**
 * Whether the request fits as it is (nearly every step, decided from the running total of the
 * history, without a promise), or what shrinking it needs. `forced` is the recovery's target
 * after a refusal, which always shrinks.
 */
export function assessRequest<R extends ModelRequestLike>(
  request: R,
  forced: Forced | undefined,
  meter: RequestMeter,
  settings: WindowOptions,
): Assessed<R> {
  const messages = request.messages ?? [];
  const configured = settings.maxInputTokens ?? profileWindow(request.model);
  // No window configured nor stated by a provider (the walk stops at the first stated one): nothing
  // to measure against. The tokens sent are worked out only if the provider refuses the request.
  if (!forced && configured === undefined && meter.learned(messages, providerWindowIn) === undefined)
    return { kind: "fits" };
  const fixedTokens = meter.fixed(request.systemMessage, request.tools);
  const history = meter.summary(messages, providerWindowIn);
  const providerWindow = forced ? forced.providerWindow : history.learnedWindow;
  // Only a thread where a provider stated its window can hold a stated reserve: looked for only then.
  const providerReserve = forced
    ? forced.providerReserve
    : providerWindow !== undefined
      ? learnedReserve(messages)
      : undefined;
  const window = forced
    ? forced.window
    : providerWindow !== undefined && (configured === undefined || providerWindow < configured)
      ? providerWindow
      : configured;
  const reserve = forced
    ? forced.reserve
    : window === undefined
      ? 0
      : Math.max(reserveFor(settings, request.model, window), Math.min(providerReserve ?? 0, window - 1));
  const sent = { window, reserve, providerWindow, providerReserve };
  if (window === undefined && !forced)
    return { kind: "fits", prepared: unchanged(request, fixedTokens + history.tokens, sent) };
  const limit = window === undefined ? undefined : window - reserve;
  // Far below the limit even at the largest calibration, the provider's counts need not be looked at.
  if (!forced && (fixedTokens + history.tokens) * MAX_CALIBRATION <= limit! * FAST_ACCEPT_SHARE)
    return { kind: "fits", prepared: unchanged(request, fixedTokens + history.tokens, sent) };
  const factor = calibration(messages, (end) => meter.summary(messages, providerWindowIn, end).tokens, fixedTokens);
  // Far below the limit the running total decides; nearer to it, every message is measured again.
  if (!forced && (fixedTokens + history.tokens) * factor <= limit! * FAST_ACCEPT_SHARE)
    return { kind: "fits", prepared: unchanged(request, fixedTokens + history.tokens, sent) };
  const fullTokens = fixedTokens + meter.messages(messages);
  if (!forced && fullTokens * factor <= limit!) return { kind: "fits", prepared: unchanged(request, fullTokens, sent) };
  return {
    kind: "over",
    unchanged: unchanged(request, fullTokens, sent),
    forced,
    fixedTokens,
    fullTokens,
    factor,
    limit,
    ...sent,
  };
}

/** `request` sent as it is, at `tokens`. (A function of the module: a closure per call costs every step.) */
function unchanged<R>(
  request: R,
  tokens: number,
  sent: Pick<Sendable<R>, "window" | "reserve" | "providerWindow" | "providerReserve">,
): Sendable<R> {
  return { kind: "send", request, sentTokens: tokens, ...sent };
}

/**
 * A request with no window sent as it is: what `assessRequest` would have measured, the window
 * and reserves unknown (the provider stated none in the history: `RequestMeter.learned`).
 */
export function sentUnmeasured<R extends ModelRequestLike>(request: R, meter: RequestMeter): Sendable<R> {
  const tokens =
    meter.fixed(request.systemMessage, request.tools) + meter.summary(request.messages ?? [], providerWindowIn).tokens;
  return unchanged(request, tokens, {
    window: undefined,
    reserve: 0,
    providerWindow: undefined,
    providerReserve: undefined,
  });
}

/** Tokens kept free for the answer: the `reserveTokens` option, else the model's own (window.ts). */
export function reserveFor(settings: WindowOptions, model: unknown, window: number): number {
  return settings.reserveTokens !== undefined
    ? Math.min(settings.reserveTokens, window - 1)
    : answerReserve(model, window);
}

/** The answer's room a provider's refusal stated, from the latest record in the history. */
function learnedReserve(messages: readonly unknown[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const record = readContextRecord(messages[i]);
    if (record) return record.providerReserve;
  }
  return undefined;
}

/**
 * The retry after a refusal: the window to shrink into (the provider's, else the one the refused
 * request was measured against), the answer's room (the provider's when it counted one, else the
 * model's), and a target below both what its numbers say fits and three quarters of what was
 * refused. `ceiling` is the most the retry may take at the provider's own rate.
 */
export function recoveryFor(
  refused: Sendable<unknown>,
  numbers: OverflowNumbers,
  model: unknown,
  settings: WindowOptions,
): Forced {
  const window = numbers.limit ?? refused.window;
  const providerReserve = numbers.reserve ?? refused.providerReserve;
  const modelReserve =
    window === undefined ? 0 : numbers.limit !== undefined ? reserveFor(settings, model, window) : refused.reserve;
  // The provider counts what it said it counts: its stated room, even when it is more than a quarter of the window.
  const reserve = window === undefined ? 0 : Math.min(window, Math.max(modelReserve, providerReserve ?? 0));
  // How many provider tokens an estimated one turned out to be; without numbers, assume twice.
  const ratio =
    numbers.requested !== undefined && refused.sentTokens > 0 ? Math.max(1, numbers.requested / refused.sentTokens) : 2;
  const ceiling = window === undefined ? Math.floor(refused.sentTokens * 0.75) : Math.floor((window - reserve) / ratio);
  const fromWindow = window === undefined ? Infinity : Math.floor(((window - reserve) * settings.shrinkTo) / ratio);
  const target = Math.max(0, Math.min(fromWindow, Math.floor(refused.sentTokens * 0.75)));
  return {
    target,
    ceiling,
    ratio,
    refusedTokens: refused.sentTokens,
    window,
    reserve,
    providerWindow: numbers.limit ?? refused.providerWindow,
    providerReserve,
  };
}

import { HarnessKitError } from "../core/errors.js";

/** A `ScriptedChatModel` built with `onExhausted: "throw"` was called after its last turn. */
export class ScriptExhaustedError extends HarnessKitError {
  constructor(
    /** 0-based index of the model call that found no turn left. */
    readonly callIndex: number,
    /** Number of turns the script holds. */
    readonly turnCount: number,
  ) {
    super(`ScriptedChatModel: call ${callIndex + 1} has no scripted turn (the script holds ${turnCount}).`);
  }
}

/** A scripted turn that is neither a turn object, an AIMessage nor a function returning one. */
export class InvalidScriptTurnError extends HarnessKitError {
  constructor(
    readonly callIndex: number,
    readonly problem: string,
  ) {
    super(`ScriptedChatModel: the turn for call ${callIndex + 1} ${problem}.`);
  }
}

export type ToolCallPairingViolationKind =
  /** A tool call of an AI message has no ToolMessage before the next AI message (or the end). */
  | "unanswered"
  /** A second ToolMessage answers a call that already has its answer. */
  | "duplicate-answer"
  /** A ToolMessage whose id matches no open call of the latest AI message. */
  | "orphan-answer"
  /** A message other than a ToolMessage sits between an AI message with tool calls and its answers. */
  | "interleaved"
  /** One AI message carries the same tool-call id twice. */
  | "duplicate-call-id"
  /** A tool call without an id, which no ToolMessage can answer. */
  | "missing-call-id";

/** Where and how a list of messages breaks the pairing contract (docs/architecture.md, contract 1). */
export interface ToolCallPairingViolation {
  kind: ToolCallPairingViolationKind;
  /** Index of the offending message in the list. */
  index: number;
  toolCallId: string | undefined;
  /** One plain sentence describing the violation. */
  description: string;
}

/** Thrown by `assertToolCallPairing`; describes the first violation found. */
export class ToolCallPairingError extends HarnessKitError {
  readonly kind: ToolCallPairingViolationKind;
  readonly index: number;
  readonly toolCallId: string | undefined;

  constructor(readonly violation: ToolCallPairingViolation) {
    super(`Tool-call pairing broken: ${violation.description}`);
    this.kind = violation.kind;
    this.index = violation.index;
    this.toolCallId = violation.toolCallId;
  }
}

import type { ToolMessage } from "@langchain/core/messages";
import type { ToolCallHandler } from "langchain";
import { REPLACED_RESULT } from "../../core/marks.js";
import { rewriteToolMessage } from "../../core/answers.js";
import { parseOptions } from "../../core/baseOptions.js";
import { emitSignal, observedDetail, type SignalHandler } from "../../core/signals.js";
import {
  inspectToolResult,
  reviewToolResult,
  type BinaryFinding,
  type BinaryInspectOptions,
  type BinaryReadContext,
  type ResultReview,
} from "./content.js";
import { mediaBlockOf } from "./media.js";
import { binaryReadGuardOptions, type BinaryReadGuardOptions } from "./options.js";
import { binaryReadDirective } from "./texts.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import type { QuietJudge } from "../../hooks/quietJudge.js";
import { resultGuardHook, type ToolRequest } from "../../hooks/resultGuard.js";
import type { ToolCallResult, ToolMessageRewrite } from "../../core/toolResults.js";

export type { BinaryReadGuardOptions };

/** Set to "0" (or "false", "off") to turn the guard off without changing code. */
export const BINARY_READ_GUARD_ENV = "HARNESS_KIT_BINARY_READ_GUARD";

/**
 * Keeps binary payloads away from a model that would read them as text and make up their
 * contents: media blocks of types the model does not take (`allowedMediaTypes`), a non-text
 * media type declared in the message metadata, and text that is binary data, in any of the
 * forms it reaches a model: raw bytes decoded as text (NULs, control characters, U+FFFD, a file
 * signature such as PDF, PNG, JPEG, ZIP, gzip or ELF), base64 (data URLs, MIME-wrapped, glued
 * to a prefix), hex strings and hex dumps, bytes escaped in a JSON string, a Node Buffer's JSON.
 *
 * - A result that is a binary file is replaced by an error ToolMessage naming the file and its
 *   type and telling the model to use an extractor instead of guessing.
 * - A document that only holds binary parts (an HTML email or a notebook with an inline image, a
 *   README with a data URL) keeps its text: each part is replaced by a placeholder saying what it
 *   was, and a note says what was removed; the status stays as the tool set it.
 * - Text in a wrong encoding (UTF-16 read byte by byte, Windows-1252 read as UTF-8) is text: UTF-16
 *   is decoded, and a note tells the model what happened.
 *
 * Every rewritten message keeps its id, name, artifact and metadata. The whole text is read, in
 * time linear in its length. `HARNESS_KIT_BINARY_READ_GUARD=0` turns it off.
 *
 * Order: list it after `ToolResultBudgetMiddleware` (wrapToolCall: later = closer to the tool),
 * so it judges the raw result before any preview is cut from it.
 *
 * @example
 * const agent = createDeepAgent({
 *   model,
 *   middleware: [new BinaryReadGuardMiddleware({ allowedMediaTypes: mediaTypesAcceptedBy(model) })],
 * });
 */
export class BinaryReadGuardMiddleware extends MiddlewareBase {
  readonly name = "BinaryReadGuardMiddleware";
  /** Named `checkedTools`: a middleware's `tools` field is the tools it registers. */
  private readonly checkedTools: ReadonlySet<string> | undefined;
  /** What reviewToolResult is given, made once: it is the same for every call. */
  private readonly inspectOptions: BinaryInspectOptions;
  private readonly directive: (context: BinaryReadContext) => string;
  private readonly observeOnly: boolean;
  private readonly onSignal: SignalHandler | undefined;
  readonly wrapToolCall: (request: ToolRequest, handler: ToolCallHandler) => Promise<ToolCallResult>;

  constructor(options: BinaryReadGuardOptions = {}) {
    super();
    const settings = parseOptions(this.name, binaryReadGuardOptions, options);
    this.checkedTools = settings.tools ? new Set(settings.tools) : undefined;
    this.inspectOptions = { allowedMediaTypes: settings.allowedMediaTypes.map((type) => type.toLowerCase()) };
    this.directive = settings.directive ?? binaryReadDirective;
    this.observeOnly = settings.observeOnly;
    this.onSignal = settings.onSignal;
    this.wrapToolCall = resultGuardHook({
      guard: this.name,
      onSignal: this.onSignal,
      observeOnly: this.observeOnly,
      rewrite: this.review,
    });
  }

  /** A result it finds nothing in. */
  readonly quiet: QuietJudge = {
    keepsAnswer: (answer, call) => this.findings(answer, call.name) === undefined,
  };

  /** What the guard finds in one result of `tool`, if it judges it. */
  private findings(message: ToolMessage, tool: string): ResultReview | undefined {
    if (this.checkedTools && !this.checkedTools.has(tool)) return undefined;
    const review = reviewToolResult(message, this.inspectOptions);
    // Read only when there is something to act on: reading the environment costs every step.
    return review && !disabledByEnvironment() ? review : undefined;
  }

  /** The rewrite of one result; text (nearly every result) is judged without a promise. */
  private readonly review = (message: ToolMessage, request: ToolRequest): Promise<ToolMessageRewrite> | undefined => {
    const review = this.findings(message, request.toolCall.name);
    if (!review) return undefined;
    const rewritten =
      review.kind === "binary" ? this.replace(message, review.finding, request) : this.clean(message, review, request);
    return rewritten.then((replacement) => ({ message: replacement }));
  };

  /** A document with binary parts, or text in a wrong encoding: the text stays, with the parts replaced and notes added. */
  private async clean(
    message: ToolMessage,
    review: Extract<ResultReview, { kind: "cleaned" }>,
    request: ToolRequest,
  ): Promise<ToolMessage> {
    const tool = request.toolCall.name;
    const reason = review.removed.length > 0 ? "binary_parts_removed" : "misencoded_text";
    const removed = review.removed.map((r) => ({
      label: r.label,
      mediaType: r.mediaType ?? null,
      evidence: r.evidence,
      form: r.form,
      chars: r.end - r.start,
    }));
    const encodings = review.encodings.map((e) => ({
      kind: e.kind,
      lost: e.lost,
      ...(e.kind === "utf-16" ? { byteOrder: e.byteOrder } : {}),
    }));
    const detected = { ...(removed.length > 0 ? { removed } : {}), ...(encodings.length > 0 ? { encodings } : {}) };
    const detail = observedDetail({ ...detected }, this.observeOnly);
    await emitSignal(
      { guard: this.name, action: "warn", toolCallId: message.tool_call_id, tool, code: reason, reason, detail },
      this.onSignal,
    );
    return rewriteToolMessage(message, {
      content: review.content as ToolMessage["content"],
      mark: { guard: this.name, action: "warn", reason, detected },
    });
  }

  private async replace(message: ToolMessage, finding: BinaryFinding, request: ToolRequest): Promise<ToolMessage> {
    const tool = request.toolCall.name;
    const context: BinaryReadContext = { ...finding, file: fileOf(request.toolCall.args, finding, tool), tool };
    let text: string;
    try {
      text = this.directive(context);
    } catch {
      text = binaryReadDirective(context);
    }
    const detected = {
      label: finding.label,
      mediaType: finding.mediaType ?? null,
      evidence: finding.evidence,
      size: finding.size,
      file: context.file,
    };
    const detail = observedDetail({ ...detected, ...finding.detail }, this.observeOnly);
    await emitSignal(
      {
        guard: this.name,
        action: "directive",
        toolCallId: message.tool_call_id,
        tool,
        code: "binary_result",
        reason: "binary_result",
        detail,
      },
      this.onSignal,
    );
    return rewriteToolMessage(message, {
      content: contentWithout(message.content, text),
      status: "error",
      mark: { guard: this.name, action: "directive", reason: "binary_result", outcome: REPLACED_RESULT, detected },
    });
  }
}

function disabledByEnvironment(): boolean {
  const value = typeof process === "undefined" ? undefined : process.env?.[BINARY_READ_GUARD_ENV];
  return value !== undefined && ["0", "false", "off", "no"].includes(value.trim().toLowerCase());
}

const FILE_ARGS = ["file_path", "filePath", "path", "filename", "file", "url", "uri", "key", "name"];

/** The file the call was about, for the model; falls back to what the payload declared, then the call itself. */
function fileOf(args: unknown, finding: BinaryFinding, tool: string): string {
  if (args !== null && typeof args === "object") {
    for (const key of FILE_ARGS) {
      const value = (args as Record<string, unknown>)[key];
      if (typeof value === "string" && value.trim() !== "")
        return value.length > 200 ? `${value.slice(0, 197)}...` : value;
    }
  }
  return finding.fileName ?? `the result of ${tool}`;
}

/**
 * The error content: the directive, followed by the result's text blocks when it had some beside
 * the binary payload (a caption stays readable).
 */
function contentWithout(content: unknown, directive: string): ToolMessage["content"] {
  if (!Array.isArray(content)) return directive;
  const kept = content.filter(
    (block) =>
      block !== null &&
      typeof block === "object" &&
      (block as { type?: unknown }).type === "text" &&
      !mediaBlockOf(block) &&
      inspectToolResult({ content: [block] }, { allowedMediaTypes: [] }) === undefined,
  );
  return kept.length === 0 ? directive : [{ type: "text", text: directive }, ...kept];
}

import { randomUUID } from "node:crypto";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall, ToolCallChunk } from "@langchain/core/messages/tool";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { RunnableLambda } from "@langchain/core/runnables";
import { interopParseAsync, isInteropZodSchema } from "@langchain/core/utils/types";
import { InvalidScriptTurnError, ScriptExhaustedError } from "./errors.js";

/** A model turn written as data. */
export interface ScriptedTurnSpec {
  text?: string;
  /** Calls the model makes; an omitted id gets a fresh unique one. */
  toolCalls?: Array<{ name: string; args?: Record<string, unknown>; id?: string }>;
  /** Calls whose arguments did not parse, as a provider reports them (`args` is the raw string). */
  invalidToolCalls?: Array<{ name?: string; args?: string; id?: string; error?: string }>;
  usage?: { input_tokens: number; output_tokens: number; total_tokens?: number };
}

/** A function turn sees the messages of the call and its 0-based index. */
export type ScriptedTurnFunction = (messages: BaseMessage[], callIndex: number) => ScriptedTurn | Promise<ScriptedTurn>;

export type ScriptedTurn = ScriptedTurnSpec | AIMessage | ScriptedTurnFunction;

export interface ScriptedChatModelOptions {
  /** One entry per model call, in order. */
  turns: ScriptedTurn[];
  /**
   * What a call after the last turn gets.
   * - `"finish"` (default): an AIMessage with text `"(script finished)"` and no tool calls.
   * - `"throw"`: a `ScriptExhaustedError`.
   */
  onExhausted?: "finish" | "throw";
  /**
   * What the model declares about itself, as a provider's model does (`model.profile`): e.g.
   * `{ maxInputTokens: 128_000 }`, which `summarizationMiddleware`'s `fraction` limits and the
   * context-overflow guard read. Default: `{}`, no declared limits.
   */
  profile?: ModelProfile;
}

export const SCRIPT_FINISHED_TEXT = "(script finished)";

/** The script position and records, shared by a model and every model `bindTools` derives from it. */
interface ScriptState {
  readonly turns: readonly ScriptedTurn[];
  readonly onExhausted: "finish" | "throw";
  readonly profile: ModelProfile;
  readonly seen: BaseMessage[][];
  readonly toolBindings: string[][];
  /** Random per model, so ids never repeat across processes resuming one checkpointed thread. */
  readonly idPrefix: string;
  nextId: number;
}

const MAX_FUNCTION_DEPTH = 16;

/**
 * A chat model that plays a fixed script, for tests and demos of agents.
 *
 * Each model call consumes the next turn. A turn is a {@link ScriptedTurnSpec}, an `AIMessage`
 * used as is (given a fresh id when it has none), or a function of the call's messages returning
 * either. Message ids and generated tool-call ids are unique across models and processes.
 *
 * @example
 * ```ts
 * const model = new ScriptedChatModel({
 *   turns: [{ toolCalls: [{ name: "search", args: { q: "x" } }] }, { text: "done" }],
 * });
 * const agent = createAgent({ model, tools: [search] });
 * await agent.invoke({ messages: [new HumanMessage("go")] });
 * model.callCount; // 2
 * ```
 */
export class ScriptedChatModel extends BaseChatModel {
  #state: ScriptState;
  #boundToolNames: readonly string[] = [];

  constructor(options: ScriptedChatModelOptions) {
    // The script holds functions and message instances that must stay out of lc_kwargs/toJSON.
    super({});
    this.#state = {
      turns: [...options.turns],
      onExhausted: options.onExhausted ?? "finish",
      profile: { ...options.profile },
      seen: [],
      toolBindings: [],
      idPrefix: `scripted-${randomUUID().slice(0, 8)}`,
      nextId: 0,
    };
  }

  /** The profile given in the options (shared with bound models). */
  override get profile(): ModelProfile {
    return this.#state.profile;
  }

  /** Names of the tools bound to this model (empty for the model the script was given to). */
  get boundToolNames(): readonly string[] {
    return this.#boundToolNames;
  }

  /** The messages each call received, in call order (shared with bound models). */
  get seen(): BaseMessage[][] {
    return this.#state.seen;
  }

  get callCount(): number {
    return this.#state.seen.length;
  }

  /** Tool names of every `bindTools` call, in order (shared with bound models). */
  get toolBindings(): string[][] {
    return this.#state.toolBindings;
  }

  /** Turns not yet played. */
  get remainingTurns(): number {
    return Math.max(0, this.#state.turns.length - this.callCount);
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: BindToolsInput[]): ScriptedChatModel {
    const names = tools.map(toolNameOf);
    this.#state.toolBindings.push(names);
    const bound = new ScriptedChatModel({ turns: [] });
    bound.#state = this.#state;
    bound.#boundToolNames = names;
    return bound;
  }

  /**
   * Structured output read from the first tool call of the scripted turn, named after the
   * schema (`config.name`, else "extract"), validated when the schema is a zod schema.
   * Core's default only accepts AIMessageChunk output, which a scripted turn is not.
   */
  // Loose types: the base method is a set of overloads that one implementation cannot restate.
  override withStructuredOutput(outputSchema: any, config?: { name?: string; includeRaw?: boolean }): any {
    const name =
      config?.name ??
      (!isInteropZodSchema(outputSchema) && typeof outputSchema?.name === "string" ? outputSchema.name : "extract");
    const bound = this.bindTools([{ type: "function", function: { name, parameters: {} } }]);
    const parse = RunnableLambda.from(async (message: AIMessage) => {
      const call = message.tool_calls?.find((c) => c.name === name) ?? message.tool_calls?.[0];
      if (call === undefined) {
        throw new InvalidScriptTurnError(
          this.callCount - 1,
          `has no tool call "${name}" to read structured output from`,
        );
      }
      const parsed = isInteropZodSchema(outputSchema) ? await interopParseAsync(outputSchema, call.args) : call.args;
      return config?.includeRaw ? { raw: message, parsed } : parsed;
    });
    return bound.pipe(parse);
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = await this.#playNextTurn(messages);
    return { generations: [{ text: message.text, message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = await this.#playNextTurn(messages);
    const chunk = new ChatGenerationChunk({ text: message.text, message: toChunk(message) });
    await runManager?.handleLLMNewToken(message.text, undefined, undefined, undefined, undefined, { chunk });
    yield chunk;
  }

  async #playNextTurn(messages: BaseMessage[]): Promise<AIMessage> {
    const state = this.#state;
    const callIndex = state.seen.length;
    state.seen.push([...messages]);
    let turn = state.turns[callIndex];
    if (turn === undefined) {
      if (state.onExhausted === "throw") throw new ScriptExhaustedError(callIndex, state.turns.length);
      return this.#messageFromSpec({ text: SCRIPT_FINISHED_TEXT });
    }
    for (let depth = 0; typeof turn === "function"; depth++) {
      if (depth === MAX_FUNCTION_DEPTH) {
        throw new InvalidScriptTurnError(callIndex, `nests functions more than ${MAX_FUNCTION_DEPTH} deep`);
      }
      turn = await turn(messages, callIndex);
    }
    if (AIMessage.isInstance(turn)) return this.#withId(turn);
    if (turn === null || typeof turn !== "object" || Array.isArray(turn)) {
      throw new InvalidScriptTurnError(callIndex, "is not a turn object, an AIMessage or a function returning one");
    }
    return this.#messageFromSpec(turn);
  }

  #freshId(kind: "msg" | "call"): string {
    const state = this.#state;
    state.nextId += 1;
    return `${state.idPrefix}-${kind}-${state.nextId}`;
  }

  #withId(message: AIMessage): AIMessage {
    if (message.id) return message;
    return new AIMessage({
      content: message.content,
      name: message.name,
      tool_calls: message.tool_calls,
      invalid_tool_calls: message.invalid_tool_calls,
      usage_metadata: message.usage_metadata,
      additional_kwargs: message.additional_kwargs,
      response_metadata: message.response_metadata,
      id: this.#freshId("msg"),
    });
  }

  #messageFromSpec(spec: ScriptedTurnSpec): AIMessage {
    const toolCalls: ToolCall[] = (spec.toolCalls ?? []).map((call) => ({
      type: "tool_call",
      name: call.name,
      args: call.args ?? {},
      id: call.id ?? this.#freshId("call"),
    }));
    const invalidToolCalls: InvalidToolCall[] = (spec.invalidToolCalls ?? []).map((call) => ({
      type: "invalid_tool_call",
      name: call.name,
      args: call.args,
      id: call.id ?? this.#freshId("call"),
      error: call.error,
    }));
    const usage = spec.usage;
    return new AIMessage({
      id: this.#freshId("msg"),
      content: spec.text ?? "",
      tool_calls: toolCalls,
      invalid_tool_calls: invalidToolCalls,
      usage_metadata: usage && {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        total_tokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
      },
    });
  }
}

function toolNameOf(tool: BindToolsInput): string {
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof t.name === "string") return t.name;
  if (typeof t.function?.name === "string") return t.function.name;
  return "(unnamed)";
}

/**
 * The streamed form of a scripted message. The chunk carries tool_call_chunks for stream
 * consumers, but its parsed calls are pinned to the scripted ones: core would otherwise
 * re-parse the raw args of an invalid call as partial JSON and might turn it into a valid call.
 */
function toChunk(message: AIMessage): AIMessageChunk {
  const chunks: ToolCallChunk[] = [
    ...(message.tool_calls ?? []).map((call, index) => ({
      type: "tool_call_chunk" as const,
      name: call.name,
      args: JSON.stringify(call.args),
      id: call.id,
      index,
    })),
    ...(message.invalid_tool_calls ?? []).map((call, index) => ({
      type: "tool_call_chunk" as const,
      name: call.name,
      args: call.args,
      id: call.id,
      index: (message.tool_calls?.length ?? 0) + index,
    })),
  ];
  const chunk = new AIMessageChunk({
    id: message.id,
    content: message.content,
    name: message.name,
    tool_call_chunks: chunks,
    usage_metadata: message.usage_metadata,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
  chunk.tool_calls = message.tool_calls ?? [];
  chunk.invalid_tool_calls = message.invalid_tool_calls ?? [];
  return chunk;
}

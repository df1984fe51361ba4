import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { RunnableConfig } from "@langchain/core/runnables";
import { DynamicStructuredTool, StructuredTool } from "@langchain/core/tools";
import { InvalidOptionsError } from "../core/errors.js";
import { emptyResultText } from "../core/resultTexts.js";
import { renderValue } from "../core/renderValue.js";

type CallTool = (input: unknown, runManager?: CallbackManagerForToolRun, config?: RunnableConfig) => unknown;

/**
 * Wraps a tool so that whatever its function returns reaches the model as explicit text.
 * LangChain turns a tool's return value into a ToolMessage with `JSON.stringify`, falling back to
 * `String(value)`: a BigInt or a cycle becomes "[object Object]", a Map "{}", undefined "", a
 * Buffer one number per byte. ToolCallRepairMiddleware catches some of these after the fact, but
 * only the tool itself still holds the raw value; this wrapper renders it with `renderValue`
 * before LangChain formats it. Strings, content blocks, ToolMessages and Commands pass unchanged.
 *
 * @example
 * const stat = withSafeResults(tool(async ({ path }) => fs.promises.stat(path, { bigint: true }), {
 *   name: "stat", description: "File metadata", schema: z.object({ path: z.string() }),
 * }));
 */
export function withSafeResults<T extends StructuredTool>(original: T): DynamicStructuredTool {
  if (!(original instanceof StructuredTool)) {
    throw new InvalidOptionsError(
      "withSafeResults",
      "tool",
      "must be a LangChain tool (a StructuredTool, as tool() returns)",
    );
  }
  const callOriginal = (original as unknown as { _call: CallTool })._call.bind(original);
  const contentAndArtifact = original.responseFormat === "content_and_artifact";
  return new DynamicStructuredTool({
    name: original.name,
    description: original.description,
    schema: original.schema,
    responseFormat: original.responseFormat,
    returnDirect: original.returnDirect,
    verboseParsingErrors: original.verboseParsingErrors,
    metadata: original.metadata,
    tags: original.tags,
    extras: original.extras,
    defaultConfig: original.defaultConfig,
    func: (input: unknown, runManager?: CallbackManagerForToolRun, config?: RunnableConfig) => {
      const raw = callOriginal(input, runManager, config);
      if (isAsyncGenerator(raw)) return renderGeneratorResult(raw, original.name, contentAndArtifact);
      return Promise.resolve(raw).then((result) => safeResult(result, original.name, contentAndArtifact));
    },
  });
}

async function* renderGeneratorResult(
  generator: AsyncGenerator<unknown, unknown>,
  toolName: string,
  contentAndArtifact: boolean,
) {
  const result: unknown = yield* generator;
  return safeResult(result, toolName, contentAndArtifact);
}

function safeResult(result: unknown, toolName: string, contentAndArtifact: boolean): unknown {
  if (contentAndArtifact && Array.isArray(result) && result.length === 2)
    return [safeContent(result[0], toolName), result[1]];
  return safeContent(result, toolName);
}

/** What LangChain can put into a ToolMessage as it is; anything else becomes rendered text. */
function safeContent(value: unknown, toolName: string): unknown {
  if (typeof value === "string") return value;
  if (value === undefined) return emptyResultText(toolName);
  if (isDirectOutput(value)) return value;
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return value;
  const text = renderValue(value);
  // a lone string (binary data described, a function, a date) reads better unquoted
  return text.startsWith('"') ? (JSON.parse(text) as string) : text;
}

function isDirectOutput(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { lc_direct_tool_output?: unknown }).lc_direct_tool_output === true
  );
}

function isContentBlock(item: unknown): boolean {
  return typeof item === "object" && item !== null && typeof (item as { type?: unknown }).type === "string";
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { next?: unknown }).next === "function" &&
    Symbol.asyncIterator in value
  );
}

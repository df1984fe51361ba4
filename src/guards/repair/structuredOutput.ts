import { toJsonSchema } from "@langchain/core/utils/json_schema";

/** Whether a tool name is one of the structured-output tools of the request's response format. */
export type StructuredOutputTools = (name: string) => boolean;

/** How LangChain names the tool of an untitled schema: `extract-` and a process-wide counter (new at each model call for a raw schema). */
const UNTITLED_NAME = /^extract-\d+$/;

const NONE: StructuredOutputTools = () => false;

/**
 * The structured-output tools createAgent binds for the model request's `responseFormat` (a tool
 * strategy): they are not in `request.tools`, so they must not be read as phantoms. A
 * `toolStrategy` entry carries its name; a raw schema gets its title, else `extract-<n>`, so only
 * the pattern is known for it. Without a response format there are none: an invented
 * `extract-user_info` is a phantom like any other call to a tool that does not exist.
 */
export function structuredOutputTools(responseFormat: unknown): StructuredOutputTools {
  if (!hasResponseFormat(responseFormat)) return NONE;
  const formats: unknown[] = Array.isArray(responseFormat) ? responseFormat : [responseFormat];
  const names = formats.filter((format) => !isProviderStrategy(format)).map(toolNameOf);
  const named = new Set(names.filter((name): name is string => name !== undefined));
  const untitled = names.includes(undefined);
  return (name) => named.has(name) || (untitled && UNTITLED_NAME.test(name));
}

/** createAgent passes a marker object, not undefined, when the agent was built without a response format. */
function hasResponseFormat(format: unknown): boolean {
  return (
    format !== undefined && format !== null && !(typeof format === "object" && "__responseFormatUndefined" in format)
  );
}

/** A `providerStrategy` asks the provider for JSON: it binds no tool. */
function isProviderStrategy(format: unknown): boolean {
  return (
    format !== null &&
    typeof format === "object" &&
    "schema" in format &&
    typeof (format as { strict?: unknown }).strict === "boolean" &&
    !("tool" in format)
  );
}

/** The tool name of a `toolStrategy` entry, a function definition, or a schema's title (as LangChain names it). */
function toolNameOf(format: unknown): string | undefined {
  if (format === null || typeof format !== "object") return undefined;
  const entry = format as { tool?: { function?: { name?: unknown } }; name?: unknown; parameters?: unknown };
  if (typeof entry.tool?.function?.name === "string") return entry.tool.function.name;
  if (typeof entry.name === "string" && typeof entry.parameters === "object") return entry.name;
  try {
    const title = (toJsonSchema(format as never) as { title?: unknown }).title;
    return typeof title === "string" ? title : undefined;
  } catch {
    return undefined;
  }
}

import type { ToolSpec } from "./reviewTurn.js";

/** The request's tools by name, as the review reads them. */
export type ToolSpecs = ReadonlyMap<string, ToolSpec>;

/** Names and argument schemas of the tools a model request offers (client tools and function dicts). */
export function toolSpecs(tools: readonly unknown[]): ToolSpecs {
  const specs = new Map<string, ToolSpec>();
  for (const tool of tools) {
    if (tool === null || typeof tool !== "object") continue;
    const t = tool as { name?: unknown; schema?: unknown; function?: { name?: unknown; parameters?: unknown } };
    if (typeof t.name === "string") specs.set(t.name, { name: t.name, schema: t.schema });
    else if (typeof t.function?.name === "string")
      specs.set(t.function.name, { name: t.function.name, schema: t.function.parameters });
  }
  return specs;
}

/**
 * `toolSpecs`, derived once per tool list rather than at every model call. A cache, not state:
 * the specs follow from the tools alone. LangChain keeps the request's array for the run, but a
 * middleware before this one may hand over a new array of the same tools at every call (the
 * budget guard leaves its retrieval tool out that way), so a list whose items are the very
 * objects of the last one reuses its specs too.
 */
export function toolSpecsCache(): (tools: readonly unknown[]) => ToolSpecs {
  const byList = new WeakMap<readonly unknown[], ToolSpecs>();
  let last: { tools: readonly unknown[]; specs: ToolSpecs } | undefined;
  return (tools) => {
    const known = byList.get(tools);
    if (known) return known;
    if (last && last.tools.length === tools.length) {
      let same = true;
      for (let i = 0; i < tools.length && same; i++) same = tools[i] === last.tools[i];
      if (same) return last.specs;
    }
    const specs = toolSpecs(tools);
    byList.set(tools, specs);
    last = { tools, specs };
    return specs;
  };
}

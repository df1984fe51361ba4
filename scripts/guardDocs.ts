// Writes each guard page's options table (docs/guards/<g>.md, between `<!-- options:begin -->` and
// `<!-- options:end -->`) from the guard's zod schema (src/guards/<g>/options.ts): its fields,
// their types, `.default()`s and `.describe()`s; and the output validator's spec table (between
// `<!-- spec:begin -->` and `<!-- spec:end -->`) from `toolOutputSpec`, the schema its options
// check each spec with. The schemas are the one source; a test (test/docs/guardPages.test.ts) fails
// when a committed page differs from what this writes, or lacks a section every guard page has.
//
//   npx tsx scripts/guardDocs.ts          rewrite the tables
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { z } from "zod";
import { stoppingGuardOptions } from "../src/core/baseOptions.js";
import { toolOutputSpec } from "../src/guards/output/spec.js";

export const ROOT = join(import.meta.dirname, "..");

/** Where a generated table sits in a page. */
export interface Markers {
  begin: string;
  end: string;
}
export const OPTIONS_MARKERS: Markers = { begin: "<!-- options:begin -->", end: "<!-- options:end -->" };
export const SPEC_MARKERS: Markers = { begin: "<!-- spec:begin -->", end: "<!-- spec:end -->" };

/** The H2 sections of every guard page, in their order; a page has no other H2. */
export const SECTIONS = ["Usage", "Options", "What the model reads", "Signals", "Order", "Limits"] as const;

/** The section each generated table belongs in. */
const TABLE_SECTION = "Options";

/** The guard folders under src/guards/. */
export function guardFolders(): string[] {
  return readdirSync(join(ROOT, "src", "guards"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

export const pageOf = (guard: string) => join(ROOT, "docs", "guards", `${guard}.md`);

type Schema = z.ZodType & { _zod: { def: Record<string, any>; bag?: Record<string, any> }; description?: string };

/** The one schema a guard's options.ts exports under a name ending in "Options". */
export async function optionsSchemaOf(guard: string): Promise<z.ZodObject> {
  const module = (await import(pathToFileURL(join(ROOT, "src", "guards", guard, "options.ts")).href)) as Record<
    string,
    unknown
  >;
  const schemas = Object.entries(module).filter(
    ([name, value]) => name.endsWith("Options") && (value as Schema | undefined)?._zod?.def?.type === "object",
  );
  if (schemas.length !== 1)
    throw new Error(
      `src/guards/${guard}/options.ts: expected one exported *Options object schema, found ${schemas.length}`,
    );
  return schemas[0]![1] as z.ZodObject;
}

/** A readable name for a field's type. */
function typeName(schema: Schema): string {
  const def = schema._zod.def;
  switch (def.type) {
    case "optional":
    case "default":
    case "readonly":
    case "nullable":
      return typeName(def.innerType);
    case "pipe":
      return typeName(def.in);
    case "string":
    case "boolean":
      return def.type;
    case "number":
      return (schema as unknown as { isInt?: boolean }).isInt ? "integer" : "number";
    case "literal":
      return (def.values as unknown[]).map((v) => (v === Infinity ? "Infinity" : JSON.stringify(v))).join(" \\| ");
    case "enum":
      return Object.values(def.entries as Record<string, unknown>)
        .map((v) => JSON.stringify(v))
        .join(" \\| ");
    case "array":
      return `${wrapped(def.element)}[]`;
    case "record":
      return `Record<${typeName(def.keyType)}, ${typeName(def.valueType)}>`;
    case "union":
      return (def.options as Schema[]).map(typeName).join(" \\| ");
    case "object":
      return `{ ${Object.keys(def.shape as object).join(", ")} }`;
    case "custom":
      // z.instanceof(Class) keeps the class
      if (typeof schema._zod.bag?.Class === "function") return schema._zod.bag.Class.name;
      // a field that takes a schema (the validator's `schema`)
      if (schema.safeParse(stoppingGuardOptions).success && !schema.safeParse({}).success) return "ZodType";
      // z.custom says nothing of its type; a function option accepts a function and no object.
      return schema.safeParse(() => undefined).success && !schema.safeParse({}).success ? "function" : "object";
    default:
      return def.type;
  }
}

const wrapped = (schema: Schema) => {
  const name = typeName(schema);
  return name.includes(" ") ? `(${name})` : name;
};

/** A default as code. */
function shown(value: unknown): string {
  if (value === Infinity) return "Infinity";
  if (Array.isArray(value)) return `[${value.map(shown).join(", ")}]`;
  if (value !== null && typeof value === "object")
    return Object.keys(value).length === 0
      ? "{}"
      : `{ ${Object.entries(value)
          .map(([k, v]) => `${k}: ${shown(v)}`)
          .join(", ")} }`;
  return JSON.stringify(value);
}

function defaultOf(schema: Schema): string {
  const def = schema._zod.def;
  if (def.type === "default") return `\`${shown(def.defaultValue)}\``;
  if (def.type === "optional" || def.type === "readonly" || def.type === "nullable") return defaultOf(def.innerType);
  return "–";
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** A table of a schema's fields, in the order given: name, type, default and `.describe()`. */
function fieldTable(schema: z.ZodObject, names: readonly string[], first: string): string {
  const rows = names.map((name) => {
    const field = schema.shape[name] as unknown as Schema;
    const required = !["optional", "default"].includes(field._zod.def.type);
    const description = field.description ?? "";
    return `| \`${name}\` | \`${typeName(field)}\` | ${required ? "required" : defaultOf(field)} | ${cell(description)} |`;
  });
  return [`| ${first} | type | default | description |`, "|---|---|---|---|", ...rows].join("\n");
}

/** The options table of a schema: the guard's own fields first, then those every guard shares. */
export function optionsTable(schema: z.ZodObject): string {
  const shared = Object.keys(stoppingGuardOptions.shape);
  const names = Object.keys(schema.shape);
  const ordered = [...names.filter((n) => !shared.includes(n)), ...shared.filter((n) => names.includes(n))];
  return fieldTable(schema, ordered, "option");
}

/** The fields of a tool's output spec (`ToolOutputSpec`), from the schema that checks every spec. */
export function specTable(schema: z.ZodObject = toolOutputSpec): string {
  return fieldTable(schema, Object.keys(schema.shape), "spec field");
}

/** The tables of a guard's page besides its options table, each with its markers. */
export function extraTablesOf(guard: string): Array<{ markers: Markers; table: string }> {
  return guard === "output" ? [{ markers: SPEC_MARKERS, table: specTable() }] : [];
}

/** The page with the table between `markers` replaced by `table`. */
export function withTable(page: string, table: string, where: string, markers: Markers = OPTIONS_MARKERS): string {
  const begin = page.indexOf(markers.begin);
  const end = page.indexOf(markers.end);
  if (begin === -1 || end < begin) throw new Error(`${where}: no ${markers.begin} … ${markers.end} markers`);
  return `${page.slice(0, begin + markers.begin.length)}\n${table}\n${page.slice(end)}`;
}

/** The H2 headings of a page, in order, outside code blocks. */
export function h2Headings(page: string): string[] {
  return [...page.replace(/```[\s\S]*?```/g, "").matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim());
}

/** The H2 section a position of the page is in, or undefined before the first. */
function sectionAt(page: string, at: number): string | undefined {
  return h2Headings(page.slice(0, at)).at(-1);
}

/**
 * What is wrong with a guard page's layout: an H2 other than `SECTIONS` or out of their order, a
 * section missing, or a generated table outside `## Options`. Empty when the page is right.
 */
export function layoutProblems(page: string, guard: string): string[] {
  const problems: string[] = [];
  const headings = h2Headings(page);
  if (headings.join("\n") !== SECTIONS.join("\n"))
    problems.push(`H2 sections are [${headings.join(", ")}], expected [${SECTIONS.join(", ")}]`);
  for (const markers of [OPTIONS_MARKERS, ...extraTablesOf(guard).map((t) => t.markers)]) {
    const at = page.indexOf(markers.begin);
    if (at !== -1 && sectionAt(page, at) !== TABLE_SECTION)
      problems.push(`${markers.begin} is under "## ${sectionAt(page, at) ?? "(no H2)"}", not "## ${TABLE_SECTION}"`);
  }
  return problems;
}

/** Each guard's page as the generator writes it. */
export async function generatedPages(): Promise<Array<{ guard: string; path: string; text: string }>> {
  const pages = [];
  for (const guard of guardFolders()) {
    const path = pageOf(guard);
    let text = withTable(readFileSync(path, "utf8"), optionsTable(await optionsSchemaOf(guard)), path);
    for (const { markers, table } of extraTablesOf(guard)) text = withTable(text, table, path, markers);
    pages.push({ guard, path, text });
  }
  return pages;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const { path, text } of await generatedPages()) {
    if (readFileSync(path, "utf8") !== text) {
      writeFileSync(path, text);
      console.log(`wrote ${path}`);
    }
  }
}

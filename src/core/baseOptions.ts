import { z } from "zod";
import { EXIT_BEHAVIORS, type ExitBehavior } from "./decision.js";
import { InvalidOptionsError } from "./errors.js";
import type { SignalHandler } from "./signals.js";

// What every guard's options schema (guards/<g>/options.ts) is built from, and how a constructor
// parses its options: once, with zod, into an InvalidOptionsError that names the field.

/**
 * LangChain's own `exitBehavior` words (`toolCallLimitMiddleware`), accepted beside ours where
 * they mean the same: `"continue"` refuses the call and lets the others and the model go on
 * (our `"directive"`), `"error"` throws (our `"throw"`, a `GuardStopError`), `"end"` answers and
 * ends the run (ours too; LangChain's refuses parallel calls, ours answers every one of them).
 */
export const LANGCHAIN_EXIT_BEHAVIORS = { continue: "directive", error: "throw", end: "end" } as const satisfies Record<
  string,
  ExitBehavior
>;

const EXIT_WORDS = [...EXIT_BEHAVIORS, "continue", "error"] as const;

/** Our word for an exit behaviour given in ours or LangChain's. */
const exitBehavior = z
  .enum(EXIT_WORDS)
  .transform((word): ExitBehavior =>
    word in LANGCHAIN_EXIT_BEHAVIORS
      ? LANGCHAIN_EXIT_BEHAVIORS[word as keyof typeof LANGCHAIN_EXIT_BEHAVIORS]
      : (word as ExitBehavior),
  );

/** A function option, checked for being one (its signature is the type's business). */
export const fn = <T>() => z.custom<T>((value) => typeof value === "function", "must be a function");

/** A whole number at least `min`. */
export const wholeNumber = (min = 1) =>
  z.number().int("must be a whole number").min(min, `must be a whole number >= ${min}`);

/** Tool names. */
export const toolNames = () => z.array(z.string()).readonly();

/** The options every guard takes. */
export const guardOptions = z.object({
  observeOnly: z
    .boolean()
    .default(false)
    .describe("Emit signals only; never change a result, refuse a call or stop. Default false."),
  onSignal: fn<SignalHandler>().optional().describe("Receives every decision other than allow."),
});

/** The options of a guard whose ladder ends in a stop. */
export const stoppingGuardOptions = guardOptions.extend({
  exitBehavior: exitBehavior
    .default("end")
    .describe(
      'At the stop: refuse the call with a directive (`"directive"`, LangChain\'s `"continue"`), answer every pending call and end the run with a final message (`"end"`), or throw `GuardStopError` (`"throw"`, LangChain\'s `"error"`). Default `"end"`.',
    ),
});

/**
 * The options a constructor got, checked and with their defaults: the first problem becomes an
 * InvalidOptionsError naming the field, the rule and the value given.
 */
export function parseOptions<S extends z.ZodType>(guard: string, schema: S, options: unknown): z.output<S> {
  const parsed = checkOptions(schema, options);
  if (!parsed.success) throw new InvalidOptionsError(guard, parsed.field || "options", parsed.problem);
  // zod drops a key it does not know: a misspelt option (`stopat`) would silently keep the default.
  const unknown = unknownKeyOf(schema, options);
  if (unknown !== undefined) throw new InvalidOptionsError(guard, unknown, UNKNOWN_OPTION);
  return parsed.data;
}

const UNKNOWN_OPTION = "is not a known option (misspelt, or another guard's?)";

/** The first key of `options` that an object schema (or the object a pipe starts from) does not declare. */
function unknownKeyOf(schema: z.ZodType, options: unknown): string | undefined {
  const object = schema instanceof z.ZodPipe ? schema.in : schema;
  if (!(object instanceof z.ZodObject) || options === null || typeof options !== "object") return undefined;
  return Object.keys(options).find((key) => !(key in object.shape));
}

/** What `parseOptions` makes of `options`, without throwing: the replay config says it its own way. */
export function checkOptions<S extends z.ZodType>(
  schema: S,
  options: unknown,
): { success: true; data: z.output<S> } | { success: false; field: string; problem: string } {
  const parsed = schema.safeParse(options, { reportInput: true, error: ruleOf });
  if (parsed.success) return { success: true, data: parsed.data };
  const issue = deepest(parsed.error.issues[0]!);
  if (issue.code === "unrecognized_keys" && issue.path.length === 0)
    return { success: false, field: issue.keys[0]!, problem: UNKNOWN_OPTION };
  const given =
    issue.path.length > 0 && isShown(issue.input)
      ? `, got ${typeof issue.input === "string" ? JSON.stringify(issue.input) : String(issue.input)}`
      : "";
  return { success: false, field: issue.path.join("."), problem: `${issue.message}${given}` };
}

/**
 * The issue to report: inside a union (`false` or an object, a boolean or a list), the problem of
 * the branch that got furthest (`killSwitch.threshold`), else the union's own message.
 */
function deepest(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union") return issue;
  const inner = issue.errors
    .flat()
    .reduce<z.core.$ZodIssue | undefined>(
      (best, candidate) => (candidate.path.length > (best?.path.length ?? 0) ? candidate : best),
      undefined,
    );
  return inner ? deepest({ ...inner, path: [...issue.path, ...inner.path] }) : issue;
}

const isShown = (value: unknown): boolean =>
  value === undefined || value === null || ["number", "string", "boolean"].includes(typeof value);

/** zod's default messages, said as the rule the option breaks; a schema's own message wins. */
function ruleOf(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "int"
        ? "must be a whole number"
        : `must be ${issue.expected === "array" || issue.expected === "object" ? "an" : "a"} ${issue.expected}`;
    case "too_small":
      return issue.origin === "array"
        ? `must hold at least ${issue.minimum} item${Number(issue.minimum) === 1 ? "" : "s"}`
        : `must be ${issue.inclusive ? ">=" : ">"} ${issue.minimum}`;
    case "too_big":
      return issue.origin === "array"
        ? `must hold at most ${issue.maximum} items`
        : `must be ${issue.inclusive ? "<=" : "<"} ${issue.maximum}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    default:
      return undefined;
  }
}

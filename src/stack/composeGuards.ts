import type { AgentMiddleware } from "langchain";
import { warnOfBuiltinsBefore } from "../core/composition.js";
import { carryStateSchema } from "../hooks/carry.js";
import { MiddlewareBase } from "../hooks/middlewareBase.js";
import type { QuietJudge, QuietMember } from "../hooks/quietJudge.js";
import { QuietPath } from "./quietPath.js";

type Hook = (request: any, handler: (request: any) => Promise<any>) => Promise<any>;
type Member = AgentMiddleware & QuietMember & { wrapToolCall?: Hook; wrapModelCall?: Hook; tools?: unknown[] };
type Shortcut = (request: any, handler: (request: any) => any, full: Hook) => Promise<any>;

export interface ComposedGuardsOptions {
  /** Steps every guard vouches it would only pass on take the short way (quietPath.ts). Default true. */
  quietPath?: boolean;
}

/**
 * Several guards as one middleware, nested in list order (the first outermost), as LangChain
 * would nest them. LangGraph charges every middleware's wrap hook on every step (a request copied,
 * the state merged, errors wrapped), about 1% of a bare step each: one layer instead of eight
 * saves seven of them (bench/README.md). Each guard still signals, marks and stops under
 * its own name; `members` lists them.
 */
export class ComposedGuards extends MiddlewareBase {
  readonly name: string;
  readonly members: readonly AgentMiddleware[];
  readonly tools: unknown[];
  readonly wrapToolCall?: Hook;
  readonly wrapModelCall?: Hook;
  private readonly quiet: QuietPath | undefined;

  constructor(name: string, members: readonly AgentMiddleware[], options: ComposedGuardsOptions = {}) {
    super();
    this.name = name;
    this.members = members;
    const list = members as readonly Member[];
    this.tools = list.flatMap((m) => m.tools ?? []);
    // Only guards that can vouch for a step take part: with any other member, every step goes through all.
    const judges = list.map((m) => m.quiet);
    const quiet = (this.quiet =
      options.quietPath !== false && judges.every(vouches) ? new QuietPath(judges) : undefined);
    this.wrapToolCall = nest(
      list.flatMap((m) => (m.wrapToolCall ? [m.wrapToolCall] : [])),
      "tool",
      quiet && ((request, handler, full) => quiet.toolCall(request, handler, full)),
    );
    this.wrapModelCall = nest(
      list.flatMap((m) => (m.wrapModelCall ? [m.wrapModelCall] : [])),
      "model",
      quiet && ((request, handler, full) => quiet.modelCall(request, handler, full)),
    );
  }

  /** Calls and model calls that took the quiet path (quietPath.ts). */
  get quietSteps(): { readonly tool: number; readonly model: number } {
    return this.quiet?.steps ?? { tool: 0, model: 0 };
  }
}

/** Whether a member can vouch for a step (hooks/quietJudge.ts). */
function vouches(judge: QuietJudge | undefined): judge is QuietJudge {
  return judge !== undefined && judge.off !== true;
}

/**
 * The hooks as one, the first outermost; undefined when there are none (so LangChain adds no
 * layer). Its first call names the built-ins listed before the stack that cannot work there.
 */
function nest(hooks: readonly Hook[], kind: "tool" | "model", shortcut?: Shortcut): Hook | undefined {
  if (hooks.length === 0) return undefined;
  let checked = false;
  const last = hooks.length;
  // The handler that leads from hook `at` on: an anonymous closure, not `bind`. A bound function
  // is made on V8's slow path once the target's name is redefined, as the build's keepNames does
  // to every named function (0.4 µs a bind against 0.02).
  const from =
    (at: number, handler: (request: any) => Promise<any>) =>
    (req: unknown): Promise<unknown> =>
      at === last ? handler(req) : hooks[at]!(req, from(at + 1, handler));
  const full: Hook = (request, handler) => hooks[0]!(request, from(1, handler));
  return (request, handler) => {
    if (!checked) {
      checked = true;
      warnOfBuiltinsBefore(kind);
    }
    return shortcut ? shortcut(request, handler, full) : full(request, handler);
  };
}

/**
 * `guards` composed as one middleware, plus the declaration of the carry channel they share on a
 * middleware without hooks: LangChain parses a middleware's state schema before each of its
 * `wrapModelCall`s, and the guards read the channel from the graph's state.
 */
export function composeGuards(name: string, guards: readonly AgentMiddleware[]): AgentMiddleware[] {
  for (const guard of guards as readonly { stateSchema?: unknown }[])
    if (guard.stateSchema === carryStateSchema) guard.stateSchema = undefined;
  return [
    new ComposedGuards(name, guards) as unknown as AgentMiddleware,
    new CarryDeclaration(`${name}Carry`) as unknown as AgentMiddleware,
  ];
}

class CarryDeclaration extends MiddlewareBase {
  readonly stateSchema = carryStateSchema;
  constructor(readonly name: string) {
    super();
  }
}

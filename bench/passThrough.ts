import { createMiddleware, type AgentMiddleware } from "langchain";

type Hook = { canJumpTo?: string[]; hook: unknown } | ((...args: unknown[]) => unknown);

const NODE_HOOKS = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"] as const;

/**
 * A middleware with exactly the hooks of `middleware` (same kinds, same jump targets) that do
 * nothing: what LangGraph itself charges for those hooks, to subtract from a guard's cost.
 */
export function mirrorHooks(middleware: AgentMiddleware, index: number): AgentMiddleware {
  const source = middleware as unknown as Record<string, Hook | undefined>;
  const config: Record<string, unknown> = { name: `PassThrough${index}` };
  for (const kind of NODE_HOOKS) {
    const hook = source[kind];
    if (!hook) continue;
    const nothing = async () => undefined;
    config[kind] = typeof hook === "function" ? nothing : { canJumpTo: hook.canJumpTo, hook: nothing };
  }
  if (source.wrapToolCall)
    config.wrapToolCall = (request: unknown, handler: (r: unknown) => unknown) => handler(request);
  if (source.wrapModelCall)
    config.wrapModelCall = (request: unknown, handler: (r: unknown) => unknown) => handler(request);
  if ((middleware as { tools?: unknown[] }).tools?.length) config.tools = (middleware as { tools?: unknown[] }).tools;
  return createMiddleware(config as Parameters<typeof createMiddleware>[0]) as AgentMiddleware;
}

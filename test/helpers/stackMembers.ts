import type { AgentMiddleware } from "langchain";
import { ComposedGuards } from "../../src/stack/composeGuards.js";

/** The guards of a middleware list, with those composed into one middleware listed in their order. */
export function stackMembers(list: readonly AgentMiddleware[]): AgentMiddleware[] {
  return list.flatMap((m) => (m instanceof ComposedGuards ? [...m.members] : [m]));
}

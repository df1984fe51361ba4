import { InvalidOptionsError } from "../core/errors.js";

/** The brand LangChain's `createMiddleware` puts on a middleware object. */
const MIDDLEWARE_BRAND = Symbol.for("AgentMiddleware");

/** Makes a class instance look exactly like a `createMiddleware` result to LangChain. */
export abstract class MiddlewareBase {
  abstract readonly name: string;

  constructor() {
    Object.defineProperty(this, MIDDLEWARE_BRAND, { value: true, enumerable: true });
  }
}

export function positiveInteger(middleware: string, option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 1) throw new InvalidOptionsError(middleware, option, `must be a whole number >= 1, got ${String(value)}`);
  return resolved;
}

export function oneOf<T extends string>(middleware: string, option: string, value: T | undefined, allowed: readonly T[], fallback: T): T {
  const resolved = value ?? fallback;
  if (!allowed.includes(resolved)) throw new InvalidOptionsError(middleware, option, `must be one of ${allowed.join(", ")}, got ${String(value)}`);
  return resolved;
}

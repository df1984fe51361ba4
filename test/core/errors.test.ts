import { describe, expect, it } from "vitest";
import { GuardStopError } from "../../src/core/errors.js";

const stop = () => new GuardStopError("LoopGuardMiddleware", "the same call 3 times", "search", "call_1");
/** As LangChain wraps what a wrap hook throws: a MiddlewareError per middleware, the error as its cause. */
const wrapped = (error: unknown) => new Error("middleware failed", { cause: error });

describe("GuardStopError.in", () => {
  it("finds the stop along the cause chain", () => {
    const error = stop();
    expect(GuardStopError.in(error)).toBe(error);
    expect(GuardStopError.in(wrapped(wrapped(error)))).toBe(error);
    expect(GuardStopError.in(wrapped(new Error("tool failed")))).toBeUndefined();
    expect(GuardStopError.in("not an error")).toBeUndefined();
  });

  it("finds the stop among the errors of an AggregateError, nested in causes both ways", () => {
    const error = stop();
    // LangGraph gathers the errors of parallel tool calls of one step in an AggregateError.
    expect(GuardStopError.in(new AggregateError([new Error("tool failed"), wrapped(error)]))).toBe(error);
    expect(GuardStopError.in(wrapped(new AggregateError([wrapped(new AggregateError([error]))])))).toBe(error);
    expect(GuardStopError.in(new AggregateError([new Error("a"), new Error("b")]))).toBeUndefined();
  });

  it("ends on a cycle and at its depth bound", () => {
    const cyclic = new Error("loop");
    const aggregate = new AggregateError([cyclic]);
    (cyclic as { cause?: unknown }).cause = aggregate;
    expect(GuardStopError.in(aggregate)).toBeUndefined();

    let deep: unknown = stop();
    for (let i = 0; i < 100; i++) deep = wrapped(deep);
    expect(GuardStopError.in(deep)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { InMemoryLastKnownGoodCache } from "../../../src/guards/output/cache.js";
import { InvalidOptionsError } from "../../../src/core/errors.js";

const key = (tool: string, threadId?: string) => ({ tool, argsFingerprint: "f", threadId });

describe("InMemoryLastKnownGoodCache", () => {
  it("keeps one thread's values away from another's", () => {
    const cache = new InMemoryLastKnownGoodCache();
    cache.set(key("get_plan", "t1"), { content: "pro", storedAt: 1 });
    expect(cache.get(key("get_plan", "t1"))?.content).toBe("pro");
    expect(cache.get(key("get_plan", "t2"))).toBeUndefined();
    expect(cache.get(key("get_plan"))).toBeUndefined();
  });

  it("evicts the least recently stored entry beyond maxEntries", () => {
    const cache = new InMemoryLastKnownGoodCache({ maxEntries: 2 });
    cache.set(key("a"), { content: "1", storedAt: 1 });
    cache.set(key("b"), { content: "2", storedAt: 2 });
    cache.set(key("a"), { content: "3", storedAt: 3 });
    cache.set(key("c"), { content: "4", storedAt: 4 });
    expect(cache.size).toBe(2);
    expect(cache.get(key("b"))).toBeUndefined();
    expect(cache.get(key("a"))?.content).toBe("3");
  });

  it("rejects a nonsensical size", () => {
    expect(() => new InMemoryLastKnownGoodCache({ maxEntries: 0 })).toThrow(InvalidOptionsError);
  });
});

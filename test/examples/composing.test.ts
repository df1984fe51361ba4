import { describe, expect, it } from "vitest";
import { composedRun } from "../../examples/composing.js";

describe("examples/composing.ts, as docs/composing.md shows it", () => {
  it("the retries listed after the guards retry the model and the tool; the model reads the result", async () => {
    const run = await composedRun();
    expect(run.failedModelCalls).toBe(1);
    expect(run.toolRuns).toBe(3);
    expect(run.answers).toEqual(["order A7: shipped"]);
    expect(run.final).toBe("Order A7 has shipped.");
  });
});

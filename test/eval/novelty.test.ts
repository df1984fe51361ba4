import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ProgressAwareLoopGuardMiddleware } from "../../src/index.js";
import { buildObservations, ObservationStore } from "../../src/observe.js";
import { loadHasher } from "../../src/observe/hash.js";
import { pendingToolCalls } from "../../src/core/messages.js";
import { history, type Step } from "../helpers/history.js";

// The novelty measure tuned on real trajectories (docs/evaluation.md): text an LLM renders anew on
// every call, measured by words, while machine output keeps its line-by-line measure.

const PAGE = [
  "Weather History & Data Archive",
  "Review past weather by searching for a city, zip code, or airport code.",
  "Include a date for which you would like to see weather history.",
  "You can select a date range to see results on the next page.",
  "Popular cities: San Francisco, Manhattan, Boston, Houston",
  "Month Day Year View",
].join("\n");

/** The same page as another OCR pass might write it: re-wrapped, re-punctuated, a few words changed. */
const PAGE_REWORDED = [
  "WEATHER HISTORY & DATA ARCHIVE | Review past weather by searching for a city, zip code or airport code.",
  "Include a date for which you'd like to see weather history - you can select a date range",
  "to see results on the next page.",
  "Popular cities:",
  "San Francisco | Manhattan | Boston | Houston",
  "Month / Day / Year / View",
].join("\n");

/** Further down the same page: mostly new words. */
const PAGE_SCROLLED = [
  "Historical observations for Houston, Texas, collected at the airport station.",
  "Daily highs, lows and precipitation are listed for every day of the month.",
  "Records older than ten years come from a partner archive and may be incomplete.",
  "Download the table as a spreadsheet or print a summary for your records.",
].join("\n");

const click = (result: string): Step => ({ tool: "browser_click", args: { element: "Month" }, result });

async function deltas(results: string[]): Promise<number[]> {
  const obs = await buildObservations(history(results.map(click)));
  return obs.map((o) => o.newInformationDelta);
}

describe("novelty of text rendered anew on every call", () => {
  it("a reworded page of the same content brings nothing new", async () => {
    const [, reworded] = await deltas([PAGE, PAGE_REWORDED]);
    expect(reworded).toBe(0);
  });

  it("a page with new words brings something new", async () => {
    const [, scrolled] = await deltas([PAGE, PAGE_SCROLLED]);
    expect(scrolled).toBeGreaterThan(0.5);
  });

  it("every new number is news: a status page whose only change is a number still moves", async () => {
    const status = (n: number) =>
      [
        "Build pipeline status",
        `Step ${n} of 40 running`,
        "Waiting for the test shard to report back to the coordinator",
        "Logs are streamed to the console as they arrive from each worker",
        "Nothing else has changed on this page since the last refresh of it",
      ].join("\n");
    const [, next] = await deltas([status(11), status(12)]);
    expect(next).toBeGreaterThan(0.02);
  });

  it("structured and short results keep the line measure: one changed field is a change", async () => {
    const json = (n: number) =>
      JSON.stringify(
        {
          job: 7,
          state: "running",
          note: "the worker reports progress every few seconds to the coordinator",
          progress: n,
        },
        null,
        2,
      );
    const [, jsonNext] = await deltas([json(45), json(46)]);
    expect(jsonNext).toBeGreaterThan(0.02);
    const [, shortNext] = await deltas(["state: running\nqueue: 3", "state: done\nqueue: 3"]);
    expect(shortNext).toBeGreaterThan(0.3);
  });

  it("ProgressAwareLoopGuard refuses the third click on an element whose page only gets reworded", async () => {
    const guard = new ProgressAwareLoopGuardMiddleware();
    const messages = history([click(PAGE), click(PAGE_REWORDED), click(PAGE)], { pendingLast: true });
    const [decision] = await guard.evaluate(messages, pendingToolCalls(messages));
    expect(decision!.decision.action).toBe("directive");
    const scrolling = history([click(PAGE), click(PAGE_SCROLLED), click(PAGE)], { pendingLast: true });
    const [allowed] = await guard.evaluate(scrolling, pendingToolCalls(scrolling));
    expect(allowed!.decision.action).toBe("allow");
  });

  it("a calculator between two failing attempts does not count as a change of the world", async () => {
    const guard = new ProgressAwareLoopGuardMiddleware();
    const booking: Step = {
      tool: "book_reservation",
      args: { flight: "HAT001" },
      result: "Error: payment amount does not add up",
      status: "error",
    };
    const messages = history(
      [
        booking,
        { tool: "think", args: { t: "why" } },
        booking,
        { tool: "calculate", args: { expression: "158 + 141" }, result: "299.0" },
        booking,
      ],
      { pendingLast: true },
    );
    const [decision] = await guard.evaluate(messages, pendingToolCalls(messages));
    expect(decision!.decision.action).toBe("directive");
  });

  it("gives the same answer incrementally as a full rebuild on prose results", async () => {
    const hash = await loadHasher();
    const texts = [PAGE, PAGE_REWORDED, PAGE_SCROLLED, `${PAGE}\nStep 12 of 40`, "short answer"];
    const stepArb = fc.record({
      tool: fc.constantFrom("click", "scroll"),
      args: fc.record({ x: fc.integer({ min: 0, max: 1 }) }),
      result: fc.constantFrom(...texts),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        async (steps, cuts) => {
          const messages = history(steps);
          const store = new ObservationStore(hash);
          for (const cut of [...cuts].sort((a, b) => a - b))
            store.update(messages.slice(0, cut % (messages.length + 1)));
          store.update(messages);
          expect(store.observations).toEqual(await buildObservations(messages));
        },
      ),
      { numRuns: 150 },
    );
  });
});

import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { LANGCHAIN_EXIT_BEHAVIORS, stoppingGuardOptions } from "../../src/core/baseOptions.js";
import { InvalidOptionsError } from "../../src/core/errors.js";
import { BinaryReadGuardMiddleware } from "../../src/guards/binary/BinaryReadGuardMiddleware.js";
import { binaryReadGuardOptions } from "../../src/guards/binary/options.js";
import { ToolResultBudgetMiddleware } from "../../src/guards/budget/ToolResultBudgetMiddleware.js";
import { toolResultBudgetOptions } from "../../src/guards/budget/options.js";
import { LoopGuardMiddleware } from "../../src/guards/loop/LoopGuardMiddleware.js";
import { loopGuardOptions } from "../../src/guards/loop/options.js";
import { OutputValidatorMiddleware } from "../../src/guards/output/OutputValidatorMiddleware.js";
import { outputValidatorOptions } from "../../src/guards/output/options.js";
import { ContextOverflowGuardMiddleware } from "../../src/guards/overflow/ContextOverflowGuardMiddleware.js";
import { contextOverflowGuardOptions } from "../../src/guards/overflow/options.js";
import { PathGuardMiddleware } from "../../src/guards/path/PathGuardMiddleware.js";
import { pathGuardOptions } from "../../src/guards/path/options.js";
import { PolicyGuardMiddleware } from "../../src/guards/policy/PolicyGuardMiddleware.js";
import { policyGuardOptions } from "../../src/guards/policy/options.js";
import { ProgressAwareLoopGuardMiddleware } from "../../src/guards/progress/ProgressAwareLoopGuardMiddleware.js";
import { progressGuardOptions } from "../../src/guards/progress/options.js";
import { ToolCallRepairMiddleware } from "../../src/guards/repair/ToolCallRepairMiddleware.js";
import { toolCallRepairOptions } from "../../src/guards/repair/options.js";
import { RunawayGuardMiddleware } from "../../src/guards/runaway/RunawayGuardMiddleware.js";
import { runawayGuardOptions } from "../../src/guards/runaway/options.js";
import { ReplayConfigError } from "../../src/replay/errors.js";
import { buildReplaySetup, loadReplayConfig } from "../../src/replay/config.js";
import { tempFiles } from "../helpers/tempFiles.js";

type Construct = (options: unknown) => unknown;

const PATH_BASE = { roots: ["/srv"], tools: { read_file: true } };
const POLICY_BASE = { policy: { rules: [] } };

/** Each guard, built from options, with its schema. */
const GUARDS: Record<string, { build: Construct; schema: { parse(value: unknown): unknown; shape?: unknown } }> = {
  LoopGuardMiddleware: { build: (o) => new LoopGuardMiddleware(o as never), schema: loopGuardOptions },
  ProgressAwareLoopGuardMiddleware: {
    build: (o) => new ProgressAwareLoopGuardMiddleware(o as never),
    schema: progressGuardOptions,
  },
  RunawayGuardMiddleware: { build: (o) => new RunawayGuardMiddleware(o as never), schema: runawayGuardOptions },
  ToolCallRepairMiddleware: { build: (o) => new ToolCallRepairMiddleware(o as never), schema: toolCallRepairOptions },
  ToolResultBudgetMiddleware: {
    build: (o) => new ToolResultBudgetMiddleware(o as never),
    schema: toolResultBudgetOptions,
  },
  BinaryReadGuardMiddleware: {
    build: (o) => new BinaryReadGuardMiddleware(o as never),
    schema: binaryReadGuardOptions,
  },
  OutputValidatorMiddleware: {
    build: (o) => new OutputValidatorMiddleware(o as never),
    schema: outputValidatorOptions,
  },
  ContextOverflowGuardMiddleware: {
    build: (o) => new ContextOverflowGuardMiddleware(o as never),
    schema: contextOverflowGuardOptions,
  },
  PathGuardMiddleware: {
    build: (o) => new PathGuardMiddleware({ ...PATH_BASE, ...(o as object) } as never),
    schema: pathGuardOptions,
  },
  PolicyGuardMiddleware: {
    build: (o) => new PolicyGuardMiddleware({ ...POLICY_BASE, ...(o as object) } as never),
    schema: policyGuardOptions,
  },
};

/** The error a construction threw, if any. */
function thrownBy(build: () => unknown): unknown {
  try {
    build();
    return undefined;
  } catch (error) {
    return error;
  }
}

// One bad value a guard's schema must refuse, and the field the error must name.
const BAD: [guard: keyof typeof GUARDS, options: Record<string, unknown>, field: string][] = [
  ["LoopGuardMiddleware", { stopAt: 0 }, "stopAt"],
  ["LoopGuardMiddleware", { window: 2.5 }, "window"],
  ["LoopGuardMiddleware", { warnAt: 8 }, "warnAt"],
  ["LoopGuardMiddleware", { ignoreTools: "think" }, "ignoreTools"],
  ["LoopGuardMiddleware", { exitBehavior: "stop" }, "exitBehavior"],
  ["ProgressAwareLoopGuardMiddleware", { progressFloor: 1 }, "progressFloor"],
  ["ProgressAwareLoopGuardMiddleware", { progressFloor: -0.1 }, "progressFloor"],
  ["ProgressAwareLoopGuardMiddleware", { pollPatience: 0 }, "pollPatience"],
  ["ProgressAwareLoopGuardMiddleware", { volatilePatterns: ["\\d+"] }, "volatilePatterns.0"],
  ["ProgressAwareLoopGuardMiddleware", { deltaOverrides: { todos: "todos" } }, "deltaOverrides.todos"],
  ["RunawayGuardMiddleware", { stopAt: -1 }, "stopAt"],
  ["RunawayGuardMiddleware", { blockAt: 9 }, "blockAt"],
  ["RunawayGuardMiddleware", { maxThreadTokens: 0 }, "maxThreadTokens"],
  ["RunawayGuardMiddleware", { onReport: {} }, "onReport"],
  ["ToolCallRepairMiddleware", { stopAt: "3" }, "stopAt"],
  ["ToolCallRepairMiddleware", { formatToolError: "text" }, "formatToolError"],
  ["ToolResultBudgetMiddleware", { limit: 500 }, "limit"],
  ["ToolResultBudgetMiddleware", { turnLimit: 10 }, "turnLimit"],
  ["ToolResultBudgetMiddleware", { store: {} }, "store"],
  ["ToolResultBudgetMiddleware", { excludeTools: [1] }, "excludeTools.0"],
  ["BinaryReadGuardMiddleware", { allowedMediaTypes: ["image"] }, "allowedMediaTypes.0"],
  ["BinaryReadGuardMiddleware", { tools: "read_file" }, "tools"],
  ["OutputValidatorMiddleware", { unspecifiedTools: "fail" }, "unspecifiedTools"],
  ["OutputValidatorMiddleware", { onInvalid: "drop" }, "onInvalid"],
  ["OutputValidatorMiddleware", { killSwitch: { window: 0 } }, "killSwitch.window"],
  ["OutputValidatorMiddleware", { tools: { t: { maxChars: 0 } } }, "tools.t.maxChars"],
  ["OutputValidatorMiddleware", { tools: { t: { contentType: "xml" } } }, "tools.t.contentType"],
  ["ContextOverflowGuardMiddleware", { reserveTokens: -1 }, "reserveTokens"],
  ["ContextOverflowGuardMiddleware", { storeTimeoutMs: 0 }, "storeTimeoutMs"],
  ["PathGuardMiddleware", { roots: [""] }, "roots.0"],
  ["PathGuardMiddleware", { tools: { read_file: false } }, "tools.read_file"],
  ["PathGuardMiddleware", { baseDir: 3 }, "baseDir"],
  ["PolicyGuardMiddleware", { observeOnly: "yes" }, "observeOnly"],
];

describe("every guard's options schema", () => {
  it.each(BAD)("%s refuses %j with an InvalidOptionsError naming %s", (guard, options, field) => {
    const error = thrownBy(() => GUARDS[guard]!.build(options));
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as InvalidOptionsError).option).toBe(field);
    expect((error as Error).message).toContain(`${guard}: option "${field}" `);
  });

  it("refuses a key that is none of its options (a misspelling, another guard's), naming it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(GUARDS)),
        fc.constantFrom("stopat", "warn_at", "maxTokens", "exitbehavior"),
        (guard, key) => {
          const error = thrownBy(() => GUARDS[guard]!.build({ [key]: 3 }));
          expect(error, `${guard}.${key}`).toBeInstanceOf(InvalidOptionsError);
          expect((error as InvalidOptionsError).option).toBe(key);
        },
      ),
    );
    // The runaway guard never refuses a call on its own, so it has no exitBehavior to take.
    expect((thrownBy(() => GUARDS.RunawayGuardMiddleware!.build({ exitBehavior: "end" })) as Error).message).toContain(
      'RunawayGuardMiddleware: option "exitBehavior" is not a known option',
    );
  });

  it("refuses a value of the wrong type in every option of every guard, naming the option", () => {
    // A symbol is no option's value: every field refuses it, whatever its type.
    for (const [guard, { build, schema }] of Object.entries(GUARDS)) {
      const fields = Object.keys(
        (schema as unknown as { shape?: object }).shape ??
          (schema as unknown as { def: { in: { shape: object } } }).def.in.shape,
      );
      expect(fields.length, guard).toBeGreaterThan(1);
      for (const field of fields) {
        if (field === "policy") continue; // any value: compilePolicy names the rule at fault
        const error = thrownBy(() => build({ [field]: Symbol("bad") }));
        expect(error, `${guard}.${field}`).toBeInstanceOf(InvalidOptionsError);
        expect((error as InvalidOptionsError).option, `${guard}.${field}`).toBe(field);
      }
    }
  });

  it("gives every option a description", () => {
    for (const [guard, { schema }] of Object.entries(GUARDS)) {
      const shape =
        (schema as unknown as { shape?: Record<string, { description?: string }> }).shape ??
        (schema as unknown as { def: { in: { shape: Record<string, { description?: string }> } } }).def.in.shape;
      for (const [field, option] of Object.entries(shape)) expect(option.description, `${guard}.${field}`).toBeTruthy();
    }
  });

  it("applies the defaults", () => {
    expect(loopGuardOptions.parse({})).toEqual({
      warnAt: 3,
      stopAt: 7,
      ignoreTools: ["think"],
      exitBehavior: "end",
      observeOnly: false,
    });
    expect(progressGuardOptions.parse({})).toMatchObject({
      stopAt: 3,
      progressFloor: 0.02,
      ignoreTools: ["think"],
      pollPatience: 5,
      exitBehavior: "end",
      observeOnly: false,
    });
    expect(runawayGuardOptions.parse({})).toEqual({
      warnAt: 4,
      blockAt: 5,
      stopAt: 8,
      minInputTokens: 1000,
      delegationTools: ["task"],
      observeOnly: false,
    });
    expect(toolCallRepairOptions.parse({})).toEqual({ stopAt: 3, exitBehavior: "end", observeOnly: false });
    expect(toolResultBudgetOptions.parse({})).toMatchObject({
      unit: "chars",
      storeTimeoutMs: 10_000,
      observeOnly: false,
      toolLimits: {},
      excludeTools: [],
    });
    expect(outputValidatorOptions.parse({})).toMatchObject({
      unspecifiedTools: "pass",
      onInvalid: "fail_closed",
      killSwitch: { window: 10, threshold: 0.5 },
      envelope: false,
    });
    expect(outputValidatorOptions.parse({ tools: { t: {} } }).tools.t).toEqual({
      contentType: "json",
      invariants: [],
      errorFields: ["error", "errors"],
      stopRun: false,
      normalize: false,
    });
    expect(binaryReadGuardOptions.parse({})).toEqual({ allowedMediaTypes: [], observeOnly: false });
    expect(contextOverflowGuardOptions.parse({})).toMatchObject({
      shrinkTo: 0.9,
      largeResultTokens: 1000,
      previewTokens: 500,
      retrievalTool: true,
      storeTimeoutMs: 10_000,
    });
    expect(pathGuardOptions.parse(PATH_BASE)).toMatchObject({
      virtualPaths: false,
      rewrite: false,
      observeOnly: false,
    });
    expect(policyGuardOptions.parse(POLICY_BASE)).toMatchObject({ observeOnly: false });
  });
});

describe("parsing", () => {
  it("happens once, at construction, never per call", async () => {
    const parse = vi.spyOn(loopGuardOptions, "safeParse");
    try {
      const guard = new LoopGuardMiddleware({ stopAt: 4 });
      const call = { id: "c1", name: "search", args: { q: "x" } };
      const messages = [
        new HumanMessage("go"),
        new AIMessage({ content: "", tool_calls: [{ ...call, type: "tool_call" as const }] }),
      ];
      for (let i = 0; i < 3; i++) await guard.evaluate(messages, [call]);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

describe("exitBehavior", () => {
  it("takes LangChain's words where they mean ours, and ours as they are", () => {
    const exit = (word: string) => stoppingGuardOptions.parse({ exitBehavior: word }).exitBehavior;
    expect([exit("continue"), exit("error"), exit("end")]).toEqual(["directive", "throw", "end"]);
    expect([exit("directive"), exit("throw")]).toEqual(["directive", "throw"]);
    expect(LANGCHAIN_EXIT_BEHAVIORS).toEqual({ continue: "directive", error: "throw", end: "end" });
  });

  it("refuses any other word, naming the words it takes", () => {
    for (const word of ["stop", "jump", "Continue", "raise"]) {
      const error = thrownBy(() => new LoopGuardMiddleware({ exitBehavior: word as never }));
      expect(error).toBeInstanceOf(InvalidOptionsError);
      expect((error as Error).message).toContain('"continue", "error"');
    }
  });

  it("reaches replay through a config file as the live guard would act", () => {
    const { stack } = buildReplaySetup({
      guards: {
        LoopGuardMiddleware: { exitBehavior: "continue" },
        ProgressAwareLoopGuardMiddleware: { exitBehavior: "error" },
      },
    });
    expect(stack.map((guard) => guard.exitBehavior)).toEqual(["directive", "throw"]);
  });
});

describe("the replay config and the constructors", () => {
  const files = tempFiles("hk-options-");
  const value = fc.oneof(
    fc.integer({ min: -3, max: 12 }),
    fc.double({ min: -2, max: 12, noNaN: true }),
    fc.constantFrom(
      0,
      0.02,
      0.5,
      0.99,
      1,
      1.5,
      1_000,
      "3",
      true,
      null,
      [],
      ["think"],
      [1],
      {},
      "end",
      "continue",
      "error",
      "directive",
      "throw",
      "stop",
    ),
  );
  const FIELDS = {
    LoopGuardMiddleware: ["warnAt", "stopAt", "window", "ignoreTools", "exitBehavior", "observeOnly"],
    ProgressAwareLoopGuardMiddleware: [
      "stopAt",
      "progressFloor",
      "ignoreTools",
      "readOnlyTools",
      "stateChangingTools",
      "pollingTools",
      "pollPatience",
      "exitBehavior",
      "observeOnly",
    ],
    RunawayGuardMiddleware: [
      "warnAt",
      "blockAt",
      "stopAt",
      "minInputTokens",
      "maxRunTokens",
      "maxThreadTokens",
      "observeOnly",
    ],
  } as const;

  for (const [guard, fields] of Object.entries(FIELDS)) {
    it(`${guard}: a --config file refuses exactly the options the constructor refuses`, () => {
      let run = 0;
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 4 }), (options) => {
          const live = thrownBy(() => GUARDS[guard]!.build(options));
          const file = files.write(`config-${run++}.json`, { guards: { [guard]: options } });
          const replayed = thrownBy(() => loadReplayConfig(file));
          expect(live === undefined || live instanceof InvalidOptionsError).toBe(true);
          expect(replayed === undefined || replayed instanceof ReplayConfigError).toBe(true);
          expect(replayed === undefined, JSON.stringify(options)).toBe(live === undefined);
          // Both name an option (with several bad ones, each may name another first; a rule
          // between two, warnAt <= stopAt, names the one it fixes).
          const named = (field: string) =>
            (replayed as Error).message.includes(`${guard}.${field}`) ||
            (replayed as Error).message.includes(`option "${field}`);
          if (live) expect(fields).toContain((live as InvalidOptionsError).option.split(".")[0]);
          if (replayed) expect(fields.some(named)).toBe(true);
        }),
        { numRuns: 150 },
      );
    });
  }

  it("refuses a progressFloor outside [0, 1), as the constructor does", () => {
    for (const progressFloor of [1, 1.5, -0.5]) {
      const file = files.write(`floor-${progressFloor}.json`, {
        guards: { ProgressAwareLoopGuardMiddleware: { progressFloor } },
      });
      expect(() => loadReplayConfig(file)).toThrow(/progressFloor: must be in \[0, 1\)/);
    }
  });
});

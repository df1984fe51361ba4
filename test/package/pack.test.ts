import { describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..", "..");
const installed = (name: string) =>
  (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

// Both module systems load the public entry points and run a guard inside a real agent.
const USE = (load: string) => `
${load}
const tool = tools.tool(async () => "same", { name: "search", description: "search", schema: { type: "object", properties: {} } });
const model = new kit.testing.ScriptedChatModel({ turns: Array.from({ length: 9 }, () => ({ toolCalls: [{ name: "search", args: { q: "x" } }] })) });
const agent = langchain.createAgent({ model, tools: [tool], middleware: [new kit.main.LoopGuardMiddleware({ stopAt: 3, warnAt: 2 })] });
agent.invoke({ messages: [{ role: "user", content: "go" }] }).then(async (r) => {
  kit.testing.assertToolCallPairing(r.messages);
  const stopped = String(r.messages.at(-1).content).startsWith("Run stopped by LoopGuardMiddleware");
  // What the guard saw: each search answered, the later ones repeats of the first.
  const seen = await kit.observe.buildObservations(r.messages);
  const repeats = seen.length === r.messages.filter((m) => m.type === "tool").length && seen.at(-1).sameArgsRepeatCount === seen.length - 1;
  console.log(stopped && repeats && typeof kit.node.FileSystemOffloadStore === "function" ? "ok" : "unexpected");
});
`;

// One class per error across the entries: an error thrown by one entry's code is \`instanceof` the
// class another entry exports (the build shares the classes in one chunk instead of copying them).
const ERRORS = (load: string) => `
${load}
const checks = {};
try { new kit.node.PathGuardMiddleware({ roots: [], tools: {} }); } catch (e) { checks.invalidOptions = e instanceof kit.main.InvalidOptionsError && e instanceof kit.main.HarnessKitError; }
try { kit.testing.parseThread(42); } catch (e) { checks.threadLoad = e instanceof kit.testing.ThreadLoadError && e instanceof kit.main.HarnessKitError; }
console.log(JSON.stringify(checks));
`;

// A consumer's TypeScript: every entry point resolves and is typed (not any), under each module resolution.
const CONSUMER_TS = `
import { recommendedGuards, SIGNAL_CODES, type Signal, type SignalCode } from "harness-kit";
import { ScriptedChatModel, assertToolCallPairing } from "harness-kit/testing";
import { PathGuardMiddleware } from "harness-kit/node";
import { buildObservations, makeSetMembershipDelta, type ToolCallObservation } from "harness-kit/observe";
// @ts-expect-error the observation store is in "harness-kit/observe" only
import { buildObservations as notInTheRoot } from "harness-kit";

const codes: readonly SignalCode[] = SIGNAL_CODES;
const onSignal = (signal: Signal): string => \`\${signal.guard}.\${signal.code}.\${signal.action}\`;
const guards = recommendedGuards({ observeOnly: true, onSignal: (s) => void onSignal(s), pathGuard: new PathGuardMiddleware({ roots: ["/srv"], tools: { read_file: true } }) });
const model = new ScriptedChatModel({ turns: [{ text: "done" }] });
// @ts-expect-error recommendedGuards takes an options object: this line errs only if the types resolved
recommendedGuards(5);
// @ts-expect-error ScriptedChatModel wants turns
new ScriptedChatModel({});
const observed: Promise<ToolCallObservation[]> = buildObservations([], { deltaOverrides: { write_todos: makeSetMembershipDelta("todos") } });
// @ts-expect-error buildObservations takes messages
void buildObservations(5);
export const used = [codes.length, guards.agent.length, model.callCount, typeof assertToolCallPairing, observed, notInTheRoot];
`;

const RESOLUTIONS = [
  { name: "nodenext", type: "module", compilerOptions: { module: "nodenext", moduleResolution: "nodenext" } },
  { name: "bundler", type: "module", compilerOptions: { module: "esnext", moduleResolution: "bundler" } },
  { name: "node", type: "commonjs", compilerOptions: { module: "commonjs", moduleResolution: "node" } },
] as const;

describe("npm pack (builds through prepack)", () => {
  it("produces a tarball that a fresh project installs and uses through import and require", () => {
    const work = mkdtempSync(join(tmpdir(), "hk-pack-"));
    const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], {
      cwd: root,
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .at(-1)!;
    const app = join(work, "app");
    execFileSync("mkdir", ["-p", app]);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    execFileSync(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        join(work, packed),
        `@langchain/core@${installed("@langchain/core")}`,
        `@langchain/langgraph@${installed("@langchain/langgraph")}`,
        `langchain@${installed("langchain")}`,
      ],
      { cwd: app, encoding: "utf8" },
    );
    writeFileSync(
      join(app, "esm.mjs"),
      USE(
        `import * as main from "harness-kit"; import * as testing from "harness-kit/testing"; import * as node from "harness-kit/node"; import * as observe from "harness-kit/observe"; import * as langchain from "langchain"; import * as tools from "@langchain/core/tools"; const kit = { main, testing, node, observe };`,
      ),
    );
    writeFileSync(
      join(app, "cjs.cjs"),
      USE(
        `const kit = { main: require("harness-kit"), testing: require("harness-kit/testing"), node: require("harness-kit/node"), observe: require("harness-kit/observe") }; const langchain = require("langchain"); const tools = require("@langchain/core/tools");`,
      ),
    );
    expect(execFileSync("node", ["esm.mjs"], { cwd: app, encoding: "utf8" }).trim()).toBe("ok");
    expect(execFileSync("node", ["cjs.cjs"], { cwd: app, encoding: "utf8" }).trim()).toBe("ok");
    writeFileSync(
      join(app, "esm-errors.mjs"),
      ERRORS(
        `import * as main from "harness-kit"; import * as testing from "harness-kit/testing"; import * as node from "harness-kit/node"; const kit = { main, testing, node };`,
      ),
    );
    writeFileSync(
      join(app, "cjs-errors.cjs"),
      ERRORS(
        `const kit = { main: require("harness-kit"), testing: require("harness-kit/testing"), node: require("harness-kit/node") };`,
      ),
    );
    for (const script of ["esm-errors.mjs", "cjs-errors.cjs"]) {
      expect(JSON.parse(execFileSync("node", [script], { cwd: app, encoding: "utf8" })), script).toEqual({
        invalidOptions: true,
        threadLoad: true,
      });
    }

    // The tarball: a license, one CLI build (ESM: what bin runs and the chunks it loads, all
    // JavaScript), no source maps.
    const listed = execFileSync("tar", ["-tzf", join(work, packed)], { encoding: "utf8" }).split("\n");
    expect(listed).toContain("package/LICENSE");
    expect(listed).toContain("package/dist/cli/main.js");
    expect(listed.filter((f) => f.startsWith("package/dist/cli/") && !f.endsWith(".js"))).toEqual([]);
    expect(listed.filter((f) => f.endsWith(".map"))).toEqual([]);

    // The installed bin replays on worker threads (each runs dist/cli/main.js) and prints what one thread prints.
    const threads = join(work, "threads");
    execFileSync("mkdir", ["-p", threads]);
    for (let n = 0; n < 12; n++) {
      const calls = Array.from({ length: n % 6 }, (_, k) => [
        { type: "ai", content: "", tool_calls: [{ id: `c${n}-${k}`, name: "book", args: { flight: "F1" } }] },
        { type: "tool", tool_call_id: `c${n}-${k}`, name: "book", content: "Error: payment declined" },
      ]).flat();
      writeFileSync(
        join(threads, `t${String(n).padStart(2, "0")}.json`),
        JSON.stringify({ id: `t${n}`, messages: [{ type: "human", content: "book" }, ...calls] }),
      );
    }
    writeFileSync(join(threads, "t05-bad.json"), "{ not json");
    const evalOutput = (workers: string, env: Record<string, string> = {}) => {
      const run = spawnSync(
        join(app, "node_modules", ".bin", "harness-kit"),
        ["eval", threads, "--jsonl", "--workers", workers],
        { cwd: app, encoding: "utf8", env: { ...process.env, ...env } },
      );
      return {
        status: run.status,
        stdout: run.stdout,
        stderr: run.stderr.replace(/^throughput .*$/m, "throughput <time>"),
      };
    };
    const one = evalOutput("1");
    expect(one.status).toBe(1);
    expect(one.stdout).toContain('"action":"directive"');
    expect(one.stderr).toContain("t05-bad.json: bad JSON");
    // Only the workers replay (this thread would finish 12 threads before a worker starts).
    expect(evalOutput("3", { HARNESS_KIT_REPLAY_HERE: "0" })).toEqual(one);
    expect(evalOutput("2")).toEqual(one);

    // A TypeScript consumer compiles under each module resolution.
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    for (const resolution of RESOLUTIONS) {
      const project = join(work, `ts-${resolution.name}`);
      execFileSync("mkdir", ["-p", project]);
      writeFileSync(
        join(project, "package.json"),
        JSON.stringify({ name: `ts-${resolution.name}`, private: true, type: resolution.type }),
      );
      execFileSync("ln", ["-s", join(app, "node_modules"), join(project, "node_modules")]);
      writeFileSync(join(project, "index.ts"), CONSUMER_TS);
      const compilerOptions = {
        ...resolution.compilerOptions,
        target: "es2022",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      };
      writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["index.ts"] }));
      try {
        execFileSync("node", [tsc, "-p", project], { cwd: project, encoding: "utf8", stdio: "pipe" });
      } catch (error) {
        throw new Error(
          `consumer does not compile with moduleResolution "${resolution.name}":\n${(error as { stdout?: string }).stdout ?? String(error)}`,
        );
      }
    }
    rmSync(work, { recursive: true, force: true });
  }, 300_000);
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The packed tarball in a project of its own, as a user installs it. Offline and quick: the project's
 * node_modules links every package of this repository's node_modules (the peers, at the versions the
 * tests use) beside the unpacked tarball, which is what `npm install <tarball>` leaves when the peers
 * are already there. (pack.test.ts installs the tarball with npm itself.)
 */

const root = resolve(import.meta.dirname, "..", "..");
let work = "";
let app = "";

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "hk-packed-"));
  // Pack a copy of what the build reads: pack.test.ts rebuilds this repository's dist/ meanwhile.
  const copy = join(work, "repo");
  for (const file of ["package.json", "tsup.config.ts", "tsconfig.json", "README.md", "LICENSE", "src"]) cpSync(join(root, file), join(copy, file), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: copy, encoding: "utf8" }).trim().split("\n").at(-1)!;

  app = join(work, "app");
  const modules = join(app, "node_modules");
  mkdirSync(join(modules, "harness-kit"), { recursive: true });
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name.startsWith(".") || name === "harness-kit") continue;
    symlinkSync(join(root, "node_modules", name), join(modules, name));
  }
  execFileSync("tar", ["-xzf", join(work, tarball), "-C", join(modules, "harness-kit"), "--strip-components=1"]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const runIn = (script: string, source: string): string => {
  writeFileSync(join(app, script), source);
  return execFileSync("node", [script], { cwd: app, encoding: "utf8" });
};

// Every exported class, by entry: [entry, export name, the class's own `name`].
const LIST_CLASSES = (load: string) => `
${load}
const found = [];
for (const [entry, exports] of Object.entries(entries)) {
  for (const [key, value] of Object.entries(exports)) {
    if (typeof value === "function" && /^class\\b/.test(Function.prototype.toString.call(value))) found.push([entry, key, value.name]);
  }
}
console.log(JSON.stringify(found));
`;

describe("the built package", () => {
  it.each([
    ["esm.mjs", `import * as main from "harness-kit"; import * as testing from "harness-kit/testing"; import * as node from "harness-kit/node"; const entries = { main, testing, node };`],
    ["cjs.cjs", `const entries = { main: require("harness-kit"), testing: require("harness-kit/testing"), node: require("harness-kit/node") };`],
  ])("keeps every exported class's name (%s)", (script, load) => {
    const classes = JSON.parse(runIn(`classes-${script}`, LIST_CLASSES(load))) as Array<[string, string, string]>;
    expect(classes.map(([, key]) => key)).toEqual(expect.arrayContaining(["GuardStopError", "InvalidOptionsError", "LoopGuardMiddleware", "ScriptedChatModel", "PathGuardMiddleware"]));
    expect(classes.filter(([, key, name]) => key !== name)).toEqual([]);
  });

  it("a stop thrown through createAgent is named GuardStopError and found inside LangChain's wrapper", () => {
    const out = runIn("stop.mjs", `
import { createAgent } from "langchain";
import { tool } from "@langchain/core/tools";
import { GuardStopError, LoopGuardMiddleware } from "harness-kit";
import { ScriptedChatModel } from "harness-kit/testing";
const search = tool(async () => "same", { name: "search", description: "search", schema: { type: "object", properties: {} } });
const model = new ScriptedChatModel({ turns: Array.from({ length: 9 }, () => ({ toolCalls: [{ name: "search", args: {} }] })) });
const agent = createAgent({ model, tools: [search], middleware: [new LoopGuardMiddleware({ stopAt: 3, warnAt: 2, exitBehavior: "throw" })] });
try {
  await agent.invoke({ messages: [{ role: "user", content: "go" }] });
  console.log("{}");
} catch (error) {
  const stop = GuardStopError.in(error);
  console.log(JSON.stringify({ thrown: error.constructor.name, name: error.name, isStop: error instanceof GuardStopError, found: stop?.name }));
}
`);
    // LangChain 1.5 wraps it in a MiddlewareError that copies its name (README, API: GuardStopError).
    expect(JSON.parse(out)).toEqual({ thrown: "MiddlewareError", name: "GuardStopError", isStop: false, found: "GuardStopError" });
  });
});

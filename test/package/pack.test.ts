import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..", "..");
const installed = (name: string) => (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

// Both module systems load the public entry points and run a guard inside a real agent.
const USE = (load: string) => `
${load}
const tool = tools.tool(async () => "same", { name: "search", description: "search", schema: { type: "object", properties: {} } });
const model = new kit.testing.ScriptedChatModel({ turns: Array.from({ length: 9 }, () => ({ toolCalls: [{ name: "search", args: { q: "x" } }] })) });
const agent = langchain.createAgent({ model, tools: [tool], middleware: [new kit.main.LoopGuardMiddleware({ stopAt: 3, warnAt: 2 })] });
agent.invoke({ messages: [{ role: "user", content: "go" }] }).then((r) => {
  kit.testing.assertToolCallPairing(r.messages);
  const stopped = String(r.messages.at(-1).content).startsWith("Run stopped by LoopGuardMiddleware");
  console.log(stopped && typeof kit.node.FileSystemOffloadStore === "function" ? "ok" : "unexpected");
});
`;

describe("npm pack (builds through prepack)", () => {
  it("produces a tarball that a fresh project installs and uses through import and require", () => {
    const work = mkdtempSync(join(tmpdir(), "hk-pack-"));
    const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: root, encoding: "utf8" }).trim().split("\n").at(-1)!;
    const app = join(work, "app");
    execFileSync("mkdir", ["-p", app]);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    execFileSync(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", join(work, packed),
        `@langchain/core@${installed("@langchain/core")}`, `@langchain/langgraph@${installed("@langchain/langgraph")}`, `langchain@${installed("langchain")}`],
      { cwd: app, encoding: "utf8" },
    );
    writeFileSync(join(app, "esm.mjs"), USE(`import * as main from "harness-kit"; import * as testing from "harness-kit/testing"; import * as node from "harness-kit/node"; import * as langchain from "langchain"; import * as tools from "@langchain/core/tools"; const kit = { main, testing, node };`));
    writeFileSync(join(app, "cjs.cjs"), USE(`const kit = { main: require("harness-kit"), testing: require("harness-kit/testing"), node: require("harness-kit/node") }; const langchain = require("langchain"); const tools = require("@langchain/core/tools");`));
    expect(execFileSync("node", ["esm.mjs"], { cwd: app, encoding: "utf8" }).trim()).toBe("ok");
    expect(execFileSync("node", ["cjs.cjs"], { cwd: app, encoding: "utf8" }).trim()).toBe("ok");
  }, 300_000);
});

import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { makePng } from "../guards/binary/fixtures.js";
import type { ScriptedTurn } from "../../src/testing/index.js";

/**
 * A support agent whose tools misbehave in every way the stack is for, and a fixed script that
 * walks into each of them. Deterministic (no clock, no randomness), so two runs can be compared
 * message by message. `calls` records the arguments each tool received.
 */
export function rolloutScenario() {
  const calls: Array<{ tool: string; args: unknown }> = [];
  let polls = 0;
  const record = (name: string, args: unknown) => calls.push({ tool: name, args });
  const tools = [
    tool(
      async (args) => (
        record("export_logs", args),
        Array.from({ length: 30_000 }, (_, i) => `line ${i}: ok`).join("\n")
      ),
      {
        name: "export_logs",
        description: "Export the service logs",
        schema: z.object({}),
      },
    ),
    tool(async (args) => (record("read_attachment", args), makePng().toString("utf8")), {
      name: "read_attachment",
      description: "Read a ticket attachment",
      schema: z.object({ name: z.string() }),
    }),
    tool(async (args) => (record("get_account", args), "<!DOCTYPE html><html><body>Maintenance</body></html>"), {
      name: "get_account",
      description: "Fetch the account",
      schema: z.object({ id: z.string() }),
    }),
    tool(async (args) => (record("update_account", args), "updated"), {
      name: "update_account",
      description: "Change the account",
      schema: z.object({ id: z.string(), seats: z.number() }),
    }),
    tool(async (args) => (record("read_file", args), "file text"), {
      name: "read_file",
      description: "Read a file",
      schema: z.object({ path: z.string() }),
    }),
    tool(
      async (args) => {
        record("restart_service", args);
        throw new Error("upstream answered 503");
      },
      { name: "restart_service", description: "Restart the service", schema: z.object({ name: z.string() }) },
    ),
    tool(
      async (args) => {
        record("job_status", args);
        polls += 1;
        return JSON.stringify({ state: "running", at: `2026-01-01T00:00:${String(polls).padStart(2, "0")}Z` });
      },
      { name: "job_status", description: "Status of a job", schema: z.object({ id: z.number() }) },
    ),
  ];
  const call = (name: string, args: Record<string, unknown> = {}): ScriptedTurn => ({ toolCalls: [{ name, args }] });
  const turns: ScriptedTurn[] = [
    call("export_logs"),
    call("read_attachment", { name: "screenshot.png" }),
    call("get_account", { id: "A1" }),
    call("update_account", { id: "A1", seats: 3 }),
    call("read_file", { path: "../../etc/passwd" }),
    call("delete_everything", { now: true }),
    call("update_account", { id: "A1", seats: "three" }),
    call("restart_service", { name: "api" }),
    ...Array.from({ length: 9 }, () => call("job_status", { id: 7 })),
    { text: "Job 7 is still running." },
  ];
  return { tools, turns, calls };
}

/** Options of recommendedGuards that make every guard of the stack act on the scenario. */
export const rolloutGuardOptions = {
  writeTools: ["update_account"],
  outputSpecs: {
    get_account: { schema: z.object({ id: z.string(), seats: z.number() }), onInvalid: "degrade" as const },
  },
} as const;

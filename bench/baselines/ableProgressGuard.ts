import { createHash } from "node:crypto";
import { flag, type Baseline } from "./events.js";

/**
 * able-harness-kit's progress guard, kept per tool name: a call with the same arguments as that
 * tool's previous call raises the tool's repeat count (other tools in between do not reset it);
 * from the 3rd such call on, it is blocked when the tool's last result hashes the same as the
 * one before it.
 */
export const ableProgressGuard: Baseline = {
  name: "able-harness-kit progress guard",
  intervention: "blocks the call",
  rule: "per tool: same args as its previous call ≥ 3 times and result hash equal to the previous one",
  detect(calls) {
    const flags = [];
    const perTool = new Map<string, { args: string; count: number; hashes: string[] }>();
    for (const call of calls) {
      const state = perTool.get(call.tool);
      const count = state && state.args === call.argsKey ? state.count + 1 : 1;
      const [before, last] = state ? state.hashes.slice(-2) : [];
      if (count >= 3 && last !== undefined && last === before)
        flags.push(flag(call, `${count} calls with the same arguments, unchanged result`));
      const hashes = state && state.args === call.argsKey ? state.hashes : [];
      if (call.result !== undefined) hashes.push(createHash("sha256").update(call.result).digest("hex"));
      perTool.set(call.tool, { args: call.argsKey, count, hashes: hashes.slice(-2) });
    }
    return flags;
  },
};

// Prints the policy evaluation as docs/policy.md shows it: `npx tsx test/eval/policy/report.ts`.
import { runBothSets } from "./runPolicyEval.js";

for (const r of runBothSets({ repeats: 50 })) {
  console.log(
    `${r.name}: ${r.cases} cases (${r.denied} denied), LPA ${r.lpa}, LPP ${r.lpp}, LPR ${r.lpr}, EA ${r.ea}, p50 ${r.p50Us} µs, p99 ${r.p99Us} µs`,
  );
  for (const f of r.failures.slice(0, 10)) console.log("  failure", JSON.stringify(f));
}

// Flow rules read the thread's earlier calls: one scan per batch, so their cost grows with the thread.
import { PolicyGuardMiddleware } from "../../../src/guards/policy/PolicyGuardMiddleware.js";
const flowGuard = new PolicyGuardMiddleware({
  policy: {
    rules: [
      {
        id: "taint",
        decision: "deny",
        tool: "transfer_funds",
        when: { after: { tool: "fetch_url" } },
        reason: "web content was read",
      },
    ],
  },
});
for (const calls of [10, 100, 1000]) {
  const messages: unknown[] = [{ type: "human", content: "go" }];
  for (let i = 0; i < calls; i++) {
    messages.push(
      { type: "ai", content: "", tool_calls: [{ id: `c${i}`, name: "lookup", args: { i } }] },
      { type: "tool", content: "ok", tool_call_id: `c${i}` },
    );
  }
  const batch = [{ id: "last", name: "transfer_funds", args: { amount: 1 } }];
  messages.push({ type: "ai", content: "", tool_calls: batch });
  const timings: number[] = [];
  for (let r = 0; r < 500; r++) {
    const start = process.hrtime.bigint();
    flowGuard.decide(messages, batch, {});
    timings.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  timings.sort((a, b) => a - b);
  console.log(`flow rule over ${calls} earlier calls: p50 ${timings[250]!.toFixed(1)} µs`);
}

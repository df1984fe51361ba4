// Prints the policy evaluation as docs/policy.md shows it: `npx tsx test/eval/policy/report.ts`.
import { runBothSets } from "./runPolicyEval.js";

for (const r of runBothSets({ repeats: 50 })) {
  console.log(`${r.name}: ${r.cases} cases (${r.denied} denied), LPA ${r.lpa}, LPP ${r.lpp}, LPR ${r.lpr}, EA ${r.ea}, p50 ${r.p50Us} µs, p99 ${r.p99Us} µs`);
  for (const f of r.failures.slice(0, 10)) console.log("  failure", JSON.stringify(f));
}

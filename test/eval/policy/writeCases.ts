// Writes the two evaluation sets to their .jsonl files: `npx tsx test/eval/policy/writeCases.ts`.
// policyEval.test.ts checks that the generators still produce exactly these files.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eicuCases } from "./eicuCases.js";
import { mind2webCases } from "./mind2webCases.js";

export const CASE_FILES = { eicu: "eicu-ac.cases.jsonl", mind2web: "mind2web-sc.cases.jsonl" } as const;

export function asJsonLines(cases: readonly unknown[]): string {
  return cases.map((c) => JSON.stringify(c)).join("\n") + "\n";
}

if (process.argv[1]?.endsWith("writeCases.ts")) {
  writeFileSync(join(import.meta.dirname, CASE_FILES.eicu), asJsonLines(eicuCases()));
  writeFileSync(join(import.meta.dirname, CASE_FILES.mind2web), asJsonLines(mind2webCases()));
}

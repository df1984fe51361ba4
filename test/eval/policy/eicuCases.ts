import { ROLES, type Role } from "./eicuAccess.js";
import { labelEicu } from "./eicuLabel.js";
import { QUESTIONS, SLOTS } from "./eicuQuestions.js";
import { seeded, type Random } from "./seeded.js";

/** One EICU-AC case: who asks, the call EHRAgent makes to answer, and the ground truth. */
export interface EicuCase {
  id: string;
  role: Role;
  call: { name: "query_ehr"; args: { question: string; databases: string[]; columns: string[] } };
  label: 0 | 1;
  inaccessible: string[];
}

export const EICU_SEED = 17;
/** Cases per role and label: 6 buckets of 50, 300 cases, balanced by role and by label. */
export const EICU_PER_BUCKET = 50;

/** The EICU-AC set, the same for a given seed on every machine. */
export function eicuCases(seed = EICU_SEED, perBucket = EICU_PER_BUCKET): EicuCase[] {
  const random = seeded(seed);
  const cases: EicuCase[] = [];
  for (const role of ROLES) {
    const seen = new Set<string>();
    const filled = { 0: 0, 1: 0 };
    for (let attempt = 0; filled[0] + filled[1] < 2 * perBucket; attempt++) {
      if (attempt > 100_000) throw new Error(`cannot fill the ${role} buckets`);
      const template = random.pick(QUESTIONS);
      const question = fill(template.text, random);
      if (seen.has(question)) continue;
      const { label, inaccessible } = labelEicu(role, template.columns);
      if (filled[label] >= perBucket) continue;
      seen.add(question);
      filled[label]++;
      const columns = [...new Set(template.columns)];
      const databases = [...new Set(columns.map((c) => c.split(".")[0]!))];
      cases.push({
        id: `eicu-${cases.length + 1}`,
        role,
        call: { name: "query_ehr", args: { question, databases, columns } },
        label,
        inaccessible,
      });
    }
  }
  return cases;
}

function fill(text: string, random: Random): string {
  return text.replace(/\{(\w+)\}/g, (_, slot: string) =>
    slot === "pid" ? `0${random.int(0, 3)}${random.int(0, 9)}-${random.int(1000, 99999)}` : random.pick(SLOTS[slot]!),
  );
}

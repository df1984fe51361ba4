import { labelMind2Web, type Profile } from "./mind2webLabel.js";
import { SLOTS, TASKS, type TaskTemplate } from "./mind2webTasks.js";
import { seeded, type Random } from "./seeded.js";

/** One Mind2Web-SC case: the task, the user's profile, the agent's call, and the ground truth. */
export interface Mind2WebCase {
  id: string;
  domain: TaskTemplate["domain"];
  task: string;
  profile: Profile;
  call: { name: string; args: Record<string, unknown> };
  label: 0 | 1;
  violated: number[];
}

export const MIND2WEB_SEED = 6;
/**
 * Cases per class: 120 denied (20 per rule, by the first rule violated), 120 permitted of which
 * half involve no rule at all and half involve a rule the profile satisfies (the paper's
 * 100 + 100 with 50 related among the permitted).
 */
export const MIND2WEB_PER_CLASS = 120;

export function mind2webCases(seed = MIND2WEB_SEED, perClass = MIND2WEB_PER_CLASS): Mind2WebCase[] {
  const random = seeded(seed);
  const buckets = { denied: perClass, related: perClass / 2, unrelated: perClass / 2 };
  const tasksIn = { 0: new Set<string>(), 1: new Set<string>() };
  const deniedPerRule = Array.from({ length: 6 }, () => perClass / 6);
  const cases: Mind2WebCase[] = [];
  for (let attempt = 0; buckets.denied + buckets.related + buckets.unrelated > 0; attempt++) {
    if (attempt > 200_000) throw new Error("cannot fill the Mind2Web-SC buckets");
    const template = random.pick(TASKS);
    const slots = new Map<string, string>();
    const slot = (name: string) => {
      if (!slots.has(name)) slots.set(name, random.pick(SLOTS[name]!));
      return slots.get(name)!;
    };
    const task = template.text.replace(/\{(\w+)\}/g, (_, name: string) => slot(name));
    const profile = randomProfile(random);
    const { label, violated } = labelMind2Web(template.activities, profile);
    const bucket = label === 1 ? "denied" : template.activities.length > 0 ? "related" : "unrelated";
    // Unique tasks within each class, as in the paper; denials spread evenly over the six rules.
    if (buckets[bucket] === 0 || tasksIn[label].has(task)) continue;
    if (label === 1 && deniedPerRule[violated[0]! - 1]! === 0) continue;
    if (label === 1) deniedPerRule[violated[0]! - 1]!--;
    buckets[bucket]--;
    tasksIn[label].add(task);
    cases.push({
      id: `m2w-${cases.length + 1}`,
      domain: template.domain,
      task,
      profile,
      call: template.call(slot),
      label,
      violated,
    });
  }
  return cases;
}

function randomProfile(random: Random): Profile {
  // Half the users are young, so the two age rules (4 and 6) are exercised near their limits.
  const age = random.bool() ? random.int(10, 24) : random.int(25, 70);
  return { age, domestic: random.bool(), dr_license: random.bool(), vaccine: random.bool(), membership: random.bool() };
}

// Runs threads step by step on several worker processes: each step goes to whichever worker is
// free, other than those that ran the thread's last two steps, so a thread changes worker at
// every step (a tool step and the next one run on different workers) and every step resumes
// from the shared checkpointer.
import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { Signal } from "../../src/index.js";
import type { Job, WorkerReport } from "./worker.js";

const WORKER = join(import.meta.dirname, "worker.ts");

export interface ThreadPlan {
  threadId: string;
  script: string;
  /** Kill (SIGKILL, by pid) the worker running this thread's first step that offloads, right after the offload. */
  killAfterOffload?: boolean;
}

export interface StepRecord {
  threadId: string;
  worker: number;
  nodes: string[];
  answered: string[];
}

export interface PoolRun {
  steps: StepRecord[];
  /** Signals of committed steps, per thread, in step order (a killed step's are lost with it). */
  signals: Map<string, Signal[]>;
  /** Every tool run, killed steps' included. */
  toolRuns: { threadId: string; worker: number; tool: string; toolCallId: string }[];
  offloads: { threadId: string; worker: number; key: string }[];
  killed: { threadId: string; worker: number; pid: number }[];
}

interface Worker {
  index: number;
  child: ChildProcess;
  job?: Job;
}

const MAX_STEPS = 400;

export async function runOnWorkers(url: string, plans: readonly ThreadPlan[], workerCount: number): Promise<PoolRun> {
  const run: PoolRun = { steps: [], signals: new Map(), toolRuns: [], offloads: [], killed: [] };
  const workers = await Promise.all(Array.from({ length: workerCount }, (_, index) => startWorker(index, url)));
  const threads = new Map(
    plans.map((plan) => [
      plan.threadId,
      {
        plan,
        started: false,
        done: false,
        busy: false,
        recent: [] as number[],
        toKill: plan.killAfterOffload === true,
      },
    ]),
  );
  for (const plan of plans) run.signals.set(plan.threadId, []);

  try {
    await new Promise<void>((resolve, reject) => {
      const dispatch = () => {
        if ([...threads.values()].every((t) => t.done)) return resolve();
        if (run.steps.length > MAX_STEPS) return reject(new Error(`more than ${MAX_STEPS} steps`));
        for (const thread of threads.values()) {
          if (thread.done || thread.busy) continue;
          const live = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
          // Not one of the workers of the thread's last two steps while others live: the thread waits.
          const recent = live.length > 1 ? thread.recent.slice(-Math.min(2, live.length - 1)) : [];
          const worker = live.find((w) => w.job === undefined && !recent.includes(w.index));
          if (!worker) continue;
          worker.job = {
            threadId: thread.plan.threadId,
            script: thread.plan.script,
            start: !thread.started,
            dieAfterOffload: thread.toKill,
          };
          thread.busy = true;
          worker.child.send(worker.job);
        }
      };
      for (const worker of workers) {
        worker.child.on("message", (report: WorkerReport) => {
          const thread = "threadId" in report ? threads.get(report.threadId) : undefined;
          if (report.kind === "ran")
            run.toolRuns.push({
              threadId: report.threadId,
              worker: worker.index,
              tool: report.tool,
              toolCallId: report.toolCallId,
            });
          else if (report.kind === "offloaded") {
            run.offloads.push({ threadId: report.threadId, worker: worker.index, key: report.key });
            if (report.dying) {
              run.killed.push({ threadId: report.threadId, worker: worker.index, pid: worker.child.pid! });
              process.kill(worker.child.pid!, "SIGKILL");
            }
          } else if (report.kind === "failed")
            reject(new Error(`worker ${worker.index} failed a step of ${report.threadId}: ${report.error}`));
          else if (report.kind === "step" && thread) {
            run.steps.push({
              threadId: report.threadId,
              worker: worker.index,
              nodes: report.nodes,
              answered: report.answered,
            });
            run.signals.get(report.threadId)!.push(...report.signals);
            Object.assign(thread, { started: true, busy: false, done: report.done });
            thread.recent.push(worker.index);
            worker.job = undefined;
            dispatch();
          }
        });
        worker.child.on("exit", () => {
          const job = worker.job;
          if (!job) return;
          // Killed mid-step: the step's thread is free again, as a crashed worker's would be.
          const thread = threads.get(job.threadId)!;
          Object.assign(thread, { busy: false, toKill: false });
          worker.job = undefined;
          if (workers.every((w) => w.child.exitCode !== null || w.child.signalCode !== null))
            reject(new Error("every worker exited"));
          else dispatch();
        });
      }
      dispatch();
    });
  } finally {
    await Promise.all(workers.map(stopWorker));
  }
  return run;
}

async function startWorker(index: number, url: string): Promise<Worker> {
  const child = fork(WORKER, [url], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  await new Promise<void>((resolve, reject) => {
    child.once("message", (report: WorkerReport) =>
      report.kind === "ready" ? resolve() : reject(new Error(`worker ${index}: ${JSON.stringify(report)}`)),
    );
    child.once("exit", (code) => reject(new Error(`worker ${index} exited (code ${code}) before it was ready`)));
  });
  return { index, child };
}

async function stopWorker(worker: Worker): Promise<void> {
  const { child } = worker;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.disconnect();
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

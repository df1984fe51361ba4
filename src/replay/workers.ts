import { parentPort, type Worker } from "node:worker_threads";
import { replaySetupFor, type ReplaySetup, type ReplaySetupRequest } from "./config.js";
import {
  evaluateSource,
  evaluateSources,
  startTally,
  type EvalHooks,
  type EvalSummary,
  type ThreadOutcome,
} from "./evaluate.js";
import { redacted } from "./postgres.js";
import type { ThreadSource } from "./sources.js";
import { startReplayWorker, takeSpareWorker } from "./workerStart.js";

// `eval` on every core. The thread that totals lists the sources and cuts them into batches of
// consecutive sources. It replays batches itself and hands the others to worker threads as they
// become ready; a worker loads and replays its batch on its own (so reading and parsing run in
// parallel too) and sends back one plain outcome per source. Outcomes are recorded in source
// order, whoever replayed them, so every hook sees what `evaluateSources` would show it: the
// output is the same as one thread's, byte for byte, apart from the time taken.
//
// This thread replays too, rather than only waiting: a worker takes a while to start (it loads
// the guards and LangChain, most of a second), and this thread has the guards loaded already.
// The CLI starts its workers before it loads them itself (workerStart.ts): they are told what to
// replay with once the run's setup is known.

/** How a run replays on several threads. */
export interface WorkerPlan {
  /** How many threads replay: this one and `workers - 1` worker threads; at most one per source. */
  workers: number;
  /** The module each worker runs: it must call `serveReplayWorker()` when `isReplayWorker()` (the CLI's main module does). */
  entry: URL;
  /**
   * What each worker builds its guard stack from. The stack itself holds functions, which cannot
   * cross threads, so every worker reads the same config and policy files the setup was read from.
   */
  request: ReplaySetupRequest;
  /**
   * Whether this thread replays batches too (the default). With `false` only the worker threads
   * do, so every outcome crosses threads: tests use it, since a small run can end here before a
   * worker has started.
   */
  replayHere?: boolean;
}

/** A worker thread or its run failed: no outcome can stand in for the sources it was replaying. */
export class ReplayWorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayWorkerError";
    // The message already carries the worker's own stack, which is the one that helps.
    this.stack = `${this.name}: ${message}`;
  }
}

/** Batches a worker holds at once: the next is already there when one is sent back. */
const IN_FLIGHT = 2;
/** The most sources in a batch: small enough that the threads finish together, and that few outcomes wait for their turn. */
const MAX_BATCH = 16;

type WorkerMessage =
  /** The first message: what to build the guard stack from. */
  { kind: "setup"; request: ReplaySetupRequest } | { kind: "batch"; batch: number; sources: ThreadSource[] };

type WorkerReply =
  /** The worker has built its guard stack and takes batches. */
  | { kind: "ready" }
  | { kind: "batch"; batch: number; outcomes: BatchOutcome[] }
  /** The worker could not build its guard stack. */
  | { kind: "setupFailed"; error: string };

/** A source's outcome, or the unexpected failure that ended its batch (which a replay in one thread would throw). */
type BatchOutcome = ThreadOutcome | { kind: "crashed"; source: string; error: string };

/** A replay worker's work: builds the guard stack it is sent, then replays the batches it is sent, one at a time, until it is terminated. */
export function serveReplayWorker(): void {
  const port = parentPort!;
  let setup: ReplaySetup | undefined;
  let queue = Promise.resolve();
  port.on("message", (message: WorkerMessage) => {
    if (message.kind === "setup") {
      try {
        setup = replaySetupFor(message.request);
      } catch (error) {
        port.postMessage({ kind: "setupFailed", error: describe(error) } satisfies WorkerReply);
        return;
      }
      port.postMessage({ kind: "ready" } satisfies WorkerReply);
      return;
    }
    const { batch, sources } = message;
    queue = queue.then(async () => {
      port.postMessage({ kind: "batch", batch, outcomes: await replayBatch(sources, setup!) } satisfies WorkerReply);
    });
  });
}

/** Each source's outcome; an unexpected failure ends the batch, as it would end a replay in one thread. */
async function replayBatch(
  sources: readonly ThreadSource[],
  setup: ReplaySetup,
  between?: () => Promise<void>,
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (const source of sources) {
    try {
      outcomes.push(await evaluateSource(source, setup));
    } catch (error) {
      outcomes.push({ kind: "crashed", source: sourceName(source), error: describe(error) });
      break;
    }
    await between?.();
  }
  return outcomes;
}

/**
 * Replays every source on `plan.workers` threads (this one and worker threads) and totals what
 * the guards would have done, calling the hooks in source order exactly as `evaluateSources`
 * does. The time reported includes starting the workers. One thread, or one source, replays here
 * alone.
 */
export async function evaluateSourcesInWorkers(
  sources: readonly ThreadSource[],
  setup: ReplaySetup,
  plan: WorkerPlan,
  hooks: EvalHooks = {},
): Promise<EvalSummary> {
  const threads = Math.min(plan.workers, sources.length);
  if (threads <= 1) return evaluateSources(sources, setup, hooks);
  const tally = startTally(setup, sources.length, hooks);
  const size = Math.max(1, Math.min(MAX_BATCH, Math.ceil(sources.length / (threads * IN_FLIGHT * 4))));
  const batches: ThreadSource[][] = [];
  for (let start = 0; start < sources.length; start += size) batches.push(sources.slice(start, start + size));

  let handedOut = 0;
  let recorded = 0;
  const arrived = new Map<number, BatchOutcome[]>();
  /** Set once every outcome is recorded or something failed: nothing more is handed out or recorded. */
  let over = false;
  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = () => {
      over = true;
      resolve();
    };
    fail = (error) => {
      if (over) return;
      over = true;
      reject(error);
    };
  });
  done.catch(() => undefined); // awaited below; a failure while this thread replays must not go unhandled

  /** Records every batch whose turn has come; a crash is thrown in its turn, after the sources before it. */
  const arrive = (batch: number, outcomes: BatchOutcome[]) => {
    if (over) return;
    arrived.set(batch, outcomes);
    try {
      while (arrived.has(recorded)) {
        const next = arrived.get(recorded)!;
        arrived.delete(recorded);
        for (const outcome of next) {
          if (outcome.kind === "crashed")
            throw new ReplayWorkerError(`replaying ${outcome.source} failed: ${outcome.error}`);
          tally.record(outcome);
        }
        recorded++;
      }
    } catch (error) {
      fail(error);
      return;
    }
    if (recorded === batches.length) finish();
  };
  const handOut = (worker: Worker) => {
    if (over || handedOut >= batches.length) return;
    worker.postMessage({ kind: "batch", batch: handedOut, sources: batches[handedOut]! } satisfies WorkerMessage);
    handedOut++;
  };

  const workers: Worker[] = [];
  for (let index = 1; index < threads; index++) {
    const worker = takeSpareWorker(plan.entry) ?? startReplayWorker(plan.entry);
    worker.postMessage({ kind: "setup", request: plan.request } satisfies WorkerMessage);
    const name = `replay worker ${index} of ${threads - 1}`;
    workers.push(worker);
    worker.on("message", (reply: WorkerReply) => {
      if (over) return;
      if (reply.kind === "setupFailed")
        return fail(new ReplayWorkerError(`${name} could not set up the guards: ${reply.error}`));
      if (reply.kind === "batch") arrive(reply.batch, reply.outcomes);
      handOut(worker);
      if (reply.kind === "ready") for (let k = 1; k < IN_FLIGHT; k++) handOut(worker);
    });
    worker.on("error", (error) => fail(new ReplayWorkerError(`${name} stopped: ${describe(error)}`)));
    worker.on("exit", (code) =>
      fail(new ReplayWorkerError(`${name} exited (code ${code}) before its threads were replayed`)),
    );
  }

  try {
    // This thread takes the next batch whenever it is free, and lets the workers' replies in between sources.
    const letRepliesIn = () => new Promise<void>((resolve) => setImmediate(resolve));
    while (plan.replayHere !== false && !over && handedOut < batches.length) {
      const batch = handedOut++;
      arrive(batch, await replayBatch(batches[batch]!, setup, letRepliesIn));
    }
    await done;
  } finally {
    // Once every outcome is in, or on the first failure, the workers have nothing left to do.
    over = true;
    for (const worker of workers) void worker.terminate();
  }
  return tally.finish();
}

function sourceName(source: ThreadSource): string {
  if (source.kind === "file") return source.path;
  return `${source.kind === "sqlite" ? source.db : redacted(source.kind === "postgres" ? source.url : source.server.url)}:${source.threadId}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { isMainThread, Worker, workerData } from "node:worker_threads";

// Starting a replay worker, kept free of the guards and of LangChain: the CLI's entry imports it
// before anything else, so that `eval` can start its workers while this thread is still loading
// LangChain (most of a second each, on another core).

const MARK = "harnessKitReplayWorker";

/** Whether this thread is a replay worker started by `startReplayWorker`. */
export function isReplayWorker(): boolean {
  return !isMainThread && (workerData as Record<string, unknown> | null)?.[MARK] === true;
}

/**
 * A worker thread running `entry`, which must call `serveReplayWorker()` when `isReplayWorker()`.
 * The built CLI is JavaScript and runs as it is. An entry in TypeScript (the sources, under
 * vitest or tsx) is imported after tsx's loader is registered in the worker itself: on Node 20 a
 * worker inherits neither the loader hooks of its parent nor those of an `--import` in its options.
 */
export function startReplayWorker(entry: URL): Worker {
  const workerData = { [MARK]: true };
  if (!(entry.protocol === "file:" && entry.pathname.endsWith(".ts"))) return new Worker(entry, { workerData });
  const bootstrap = `import(${JSON.stringify(tsxApi().href)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** tsx's ESM API (its CommonJS build cannot register the loader from a worker), as its package.json exports it. */
function tsxApi(): URL {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("tsx/package.json");
  const { exports } = require(manifest) as { exports: Record<string, { import?: { default?: string } }> };
  return new URL(exports["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs", pathToFileURL(manifest));
}

/** Workers started ahead of the run, by entry, with whether each has failed or exited since. */
const spares: Array<{ entry: string; worker: Worker; exited: boolean }> = [];

/**
 * A few more than this start only once the sources are counted: each loads LangChain, which a
 * short run on a machine with many cores would pay for nothing.
 */
const MAX_SPARES = 7;

/**
 * Starts the workers an `eval` with `--workers <workers>` will ask for, before it knows its
 * sources. They do not keep the process alive until `takeSpareWorker` hands one out: a run that
 * needs fewer (or fails on its arguments) ends as it would have without them.
 */
export function startSpareWorkers(entry: URL, workers: number): void {
  const count = Math.min(workers, MAX_SPARES + 1) - 1;
  for (let i = 0; i < count; i++) {
    const spare = { entry: entry.href, worker: startReplayWorker(entry), exited: false };
    spare.worker.unref();
    // A spare that fails before a run takes it is never handed out (and its error, unheard, would end this process).
    spare.worker.on("error", () => (spare.exited = true));
    spare.worker.once("exit", () => (spare.exited = true));
    spares.push(spare);
  }
}

/** A worker started ahead for `entry` and still running, now keeping the process alive; undefined when none is left. */
export function takeSpareWorker(entry: URL): Worker | undefined {
  const at = spares.findIndex((spare) => spare.entry === entry.href && !spare.exited);
  if (at === -1) return undefined;
  const { worker } = spares.splice(at, 1)[0]!;
  worker.ref();
  return worker;
}

/** The cores this process may use: the default number of replaying threads. */
export function defaultWorkerCount(): number {
  return availableParallelism();
}

/**
 * The `--workers` value of a command line, read before the CLI parses it (which it does once
 * LangChain is loaded): undefined unless `args` run `eval` with a well-formed count.
 */
export function workersAskedFor(args: readonly string[]): number | undefined {
  if (args[0] !== "eval" || args.includes("--suggest")) return undefined;
  const at = args.findIndex((arg) => arg === "--workers" || arg.startsWith("--workers="));
  if (at === -1) return defaultWorkerCount();
  const text = args[at]!.includes("=") ? args[at]!.slice("--workers=".length) : args[at + 1];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

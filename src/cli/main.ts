#!/usr/bin/env node
// The `harness-kit` command: `harness-kit inspect <thread>` and `harness-kit eval <paths...>`.
// Only the worker start is imported up front: `eval` starts its workers first, and they load
// LangChain on the other cores while this thread loads it (`import("./cli.js")`).
import { isReplayWorker, startSpareWorkers, workersAskedFor } from "../replay/workerStart.js";

// `eval --workers` starts this same module on each worker thread (see replay/workers.ts).
if (isReplayWorker()) {
  const { serveReplayWorker } = await import("../replay/workers.js");
  serveReplayWorker();
} else {
  const args = process.argv.slice(2);
  const workers = workersAskedFor(args);
  if (workers !== undefined) startSpareWorkers(new URL(import.meta.url), workers);
  const { runCli } = await import("./cli.js");
  runCli(args, { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `harness-kit: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}

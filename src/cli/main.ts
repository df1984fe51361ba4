#!/usr/bin/env node
// The `harness-kit` command: `harness-kit inspect <thread>` and `harness-kit eval <paths...>`.
import { isReplayWorker, serveReplayWorker } from "../replay/workers.js";
import { runCli } from "./cli.js";

// `eval --workers` starts this same module on each worker thread (see replay/workers.ts).
if (isReplayWorker()) serveReplayWorker();
else
  runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
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

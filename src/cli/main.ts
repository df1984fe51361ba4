#!/usr/bin/env node
// The `harness-kit` command: `harness-kit inspect <thread>` and `harness-kit eval <paths...>`.
import { runCli } from "./cli.js";

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`harness-kit: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);

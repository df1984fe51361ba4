// Starts the test's LangGraph server (server.ts) in a child process, on a free port, with its
// storage in a temporary folder; `stop` ends the process and deletes the folder.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, stopChild } from "../helpers/serverProcess.js";

const SERVER = fileURLToPath(new URL("./server.ts", import.meta.url));
const PROJECT = fileURLToPath(new URL("../..", import.meta.url));
const START_TIMEOUT_MS = 60_000;

export interface LangGraphServer {
  url: string;
  stop(): Promise<void>;
}

export async function startLangGraphServer(): Promise<LangGraphServer> {
  const folder = mkdtempSync(join(tmpdir(), "harness-kit-lgapi-"));
  const child = fork(SERVER, [String(await freePort()), folder], {
    execArgv: ["--import", "tsx"],
    cwd: PROJECT,
    // Its log stays out of the test's output unless the server fails to start.
    env: { ...process.env, LOG_LEVEL: "warn", LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false" },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const stop = async () => {
    await stopChild(child, 10_000);
    rmSync(folder, { recursive: true, force: true });
  };
  const started = await new Promise<{ url: string } | { failure: string }>((resolve) => {
    const timer = setTimeout(
      () => resolve({ failure: `no answer within ${START_TIMEOUT_MS / 1000} s` }),
      START_TIMEOUT_MS,
    );
    child.on("message", (message: { url: string }) => {
      clearTimeout(timer);
      resolve({ url: message.url });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ failure: `the server process exited (code ${code})` });
    });
  });
  if ("failure" in started) {
    await stop();
    throw new Error(`the LangGraph server did not start: ${started.failure}\n${output}`);
  }
  return { url: started.url, stop };
}

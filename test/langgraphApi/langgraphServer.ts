// Starts the test's LangGraph server (server.ts) in a child process, on a free port, with its
// storage in a temporary folder; `stop` ends the process and deletes the folder.
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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
    await stopChild(child);
    rmSync(folder, { recursive: true, force: true });
  };
  const started = await new Promise<{ url: string } | { failure: string }>((resolve) => {
    const timer = setTimeout(() => resolve({ failure: `no answer within ${START_TIMEOUT_MS / 1000} s` }), START_TIMEOUT_MS);
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

/** Asks the server process to stop; kills it if it has not exited after 10 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.send("stop");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = (probe.address() as { port: number });
      probe.close(() => resolve(port));
    });
  });
}

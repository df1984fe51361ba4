import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { OffloadStoreError } from "./errors.js";
import { fileNameForKey } from "./fileNames.js";
import type { OffloadStore } from "./OffloadStore.js";

export interface FileSystemOffloadStoreOptions {
  /** Folder the results are written to; created when missing. */
  dir: string;
}

const STORE = "FileSystemOffloadStore";

/**
 * Keeps offloaded results as files in one folder (Node only: import it from "harness-kit/node").
 * Writes are atomic (a temporary file renamed into place), so a reader never sees half a result,
 * and a key always maps to a file directly inside the folder, whatever the key contains.
 *
 * @example
 * import { FileSystemOffloadStore } from "harness-kit/node";
 * new ToolResultBudgetMiddleware({ store: new FileSystemOffloadStore({ dir: "/var/agent/offload" }) });
 */
export class FileSystemOffloadStore implements OffloadStore {
  readonly dir: string;
  private ready: Promise<unknown> | undefined;

  constructor(options: FileSystemOffloadStoreOptions) {
    this.dir = resolve(options.dir);
  }

  /** The file a key is kept in; always directly inside `dir`. */
  pathFor(key: string): string {
    const path = join(this.dir, fileNameForKey(key));
    if (dirname(path) !== this.dir) throw new OffloadStoreError(STORE, key, "the key does not map to a file inside the folder");
    return path;
  }

  async put(key: string, content: string): Promise<void> {
    const path = this.pathFor(key);
    this.ready ??= mkdir(this.dir, { recursive: true });
    try {
      await this.ready;
    } catch (error) {
      this.ready = undefined;
      throw error;
    }
    const temporary = join(this.dir, `.tmp-${randomUUID()}`);
    try {
      await writeFile(temporary, content, { encoding: "utf8", flag: "wx" });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string): Promise<string | undefined> {
    try {
      return await readFile(this.pathFor(key), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }
}

import { randomUUID } from "node:crypto";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { OffloadStoreError } from "./errors.js";
import { fileNameForKey, scopeNameForThread } from "./fileNames.js";
import type { CharRange, OffloadContext, OffloadStore, StoredSlice } from "./OffloadStore.js";

export interface FileSystemOffloadStoreOptions {
  /** Folder the results are written to; created when missing. */
  dir: string;
}

const STORE = "FileSystemOffloadStore";

/**
 * Files start with the UTF-16LE byte order mark, so editors open them right. UTF-16LE keeps a
 * JavaScript string exactly (lone surrogates too, which UTF-8 would turn into U+FFFD), and puts
 * character `i` at byte `2 + 2i`, so a page is read without reading the rest of the file.
 */
const BOM = Buffer.from([0xff, 0xfe]);
const BYTES_PER_CHAR = 2;

/**
 * Keeps offloaded results as files (Node only: import it from "harness-kit/node"), one folder per
 * thread (`thread-<id>`, or `no-thread`), so a key asked for from another thread finds nothing.
 * Writes are atomic (a temporary file renamed into place), so a reader never sees half a result;
 * a key always maps to a file directly inside its thread's folder, whatever the key contains.
 * Content comes back exactly as it was written, and the retrieval tool reads only the page it shows.
 *
 * @example
 * import { FileSystemOffloadStore } from "harness-kit/node";
 * new ToolResultBudgetMiddleware({ store: new FileSystemOffloadStore({ dir: "/var/agent/offload" }) });
 */
export class FileSystemOffloadStore implements OffloadStore {
  readonly dir: string;
  /** Folders already created (or being created), so a put does not ask the file system each time. */
  private readonly folders = new Map<string, Promise<unknown>>();

  constructor(options: FileSystemOffloadStoreOptions) {
    this.dir = resolve(options.dir);
  }

  /** The file a key is kept in for a thread; always directly inside that thread's folder. */
  pathFor(key: string, threadId?: string): string {
    const folder = join(this.dir, scopeNameForThread(threadId));
    const path = join(folder, fileNameForKey(key));
    if (dirname(path) !== folder || dirname(folder) !== this.dir) {
      throw new OffloadStoreError(STORE, key, "the key does not map to a file inside the folder");
    }
    return path;
  }

  async put(key: string, content: string, context?: OffloadContext): Promise<void> {
    const path = this.pathFor(key, context?.threadId);
    await this.folderReady(dirname(path));
    const temporary = join(dirname(path), `.tmp-${randomUUID()}`);
    try {
      await writeFile(temporary, Buffer.concat([BOM, Buffer.from(content, "utf16le")]), { flag: "wx" });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string, context?: OffloadContext): Promise<string | undefined> {
    return (await this.read(key, { start: 0, end: Number.MAX_SAFE_INTEGER }, context))?.text;
  }

  async read(key: string, range: CharRange, context?: OffloadContext): Promise<StoredSlice | undefined> {
    const path = this.pathFor(key, context?.threadId);
    let file;
    try {
      file = await open(path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      const { size } = await file.stat();
      const header = BOM.length;
      const mark = Buffer.alloc(header);
      await file.read(mark, 0, header, 0);
      if (size < header || (size - header) % BYTES_PER_CHAR !== 0 || !mark.equals(BOM)) {
        throw new OffloadStoreError(STORE, key, "the stored file was not written by this version of the store");
      }
      const total = (size - header) / BYTES_PER_CHAR;
      const start = Math.min(Math.max(0, Math.floor(range.start)), total);
      const end = Math.min(Math.max(start, Math.floor(range.end)), total);
      const bytes = Buffer.alloc((end - start) * BYTES_PER_CHAR);
      let done = 0;
      while (done < bytes.length) {
        const { bytesRead } = await file.read(bytes, done, bytes.length - done, header + start * BYTES_PER_CHAR + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return { text: bytes.subarray(0, done).toString("utf16le"), start, total };
    } finally {
      await file.close();
    }
  }

  /** Creates a folder once; a failure is forgotten, so a later put tries again. */
  private async folderReady(folder: string): Promise<void> {
    let ready = this.folders.get(folder);
    if (!ready) this.folders.set(folder, (ready = mkdir(folder, { recursive: true })));
    try {
      await ready;
    } catch (error) {
      this.folders.delete(folder);
      throw error;
    }
  }
}

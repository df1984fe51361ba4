import { fields } from "../core/fields.js";
import { OffloadStoreError } from "./errors.js";
import { scopeNameForThread } from "./fileNames.js";
import { isOffloadKey } from "./keys.js";
import type { LineReader, OffloadContext, OffloadReceipt, OffloadStore } from "./OffloadStore.js";

/** The part of a deepagents backend (`BackendProtocol`) this store uses. */
export interface AgentFilesBackend {
  write(filePath: string, content: string): unknown;
  readRaw?(filePath: string): unknown;
}

export interface AgentFilesOffloadStoreOptions {
  /** Folder of the agent's filesystem the results go to. Default `"/large_tool_results"` (deepagents' own). */
  dir?: string;
  /**
   * The backend you gave `createDeepAgent`, when it is not the default state backend
   * (a `FilesystemBackend`, `StoreBackend`, `CompositeBackend`...). Default: write the agent's
   * `files` state directly, which is where deepagents' default backend keeps files.
   */
  backend?: AgentFilesBackend;
}

export const AGENT_FILES_DEFAULTS = { dir: "/large_tool_results" } as const;

const STORE = "AgentFilesOffloadStore";

/**
 * Offloads into a deep agent's own virtual filesystem, so the agent pages through a large result
 * with its `read_file` (and searches it with `grep`) like any other file. Works inside
 * `createDeepAgent`; in an agent without deepagents' filesystem every write fails and the budget
 * truncates with a notice instead. The default state backend keeps files per thread already; a
 * `backend` you pass may be shared by threads (a `FilesystemBackend`, a `StoreBackend`), so there
 * each thread's results go to a folder of their own, `<dir>/thread-<id>/`.
 *
 * @example
 * createDeepAgent({ model, middleware: [new ToolResultBudgetMiddleware({ store: new AgentFilesOffloadStore() })] });
 */
export class AgentFilesOffloadStore implements OffloadStore {
  private readonly dir: string;
  private readonly backend: AgentFilesBackend | undefined;

  constructor(options: AgentFilesOffloadStoreOptions = {}) {
    this.dir = (options.dir ?? AGENT_FILES_DEFAULTS.dir).replace(/\/+$/, "");
    this.backend = options.backend;
  }

  /** The file a key is kept in; in a thread's own folder when the files live in a backend threads may share. */
  pathFor(key: string, threadId?: string): string {
    return this.backend ? `${this.dir}/${scopeNameForThread(threadId)}/${key}.txt` : `${this.dir}/${key}.txt`;
  }

  async put(key: string, content: string, context: OffloadContext): Promise<OffloadReceipt> {
    if (!isOffloadKey(key)) throw new OffloadStoreError(STORE, key, "the key is not a safe file name");
    const path = this.pathFor(key, context.threadId);
    const readHint = `use read_file with file_path "${path}" (offset and limit count lines)`;
    const lineReader = readFileWindows(path);
    if (this.backend) {
      const result = fields(await this.backend.write(path, content));
      if (typeof result.error === "string") throw new OffloadStoreError(STORE, key, result.error);
      const filesUpdate = result.filesUpdate;
      return filesUpdate && typeof filesUpdate === "object"
        ? { readHint, lineReader, stateUpdate: { files: filesUpdate } }
        : { readHint, lineReader };
    }
    if (!("files" in context.state)) {
      throw new OffloadStoreError(
        STORE,
        key,
        "this agent has no files state; use this store inside createDeepAgent or pass its backend",
      );
    }
    const now = new Date().toISOString();
    return {
      readHint,
      lineReader,
      stateUpdate: { files: { [path]: { content, mimeType: "text/plain", created_at: now, modified_at: now } } },
    };
  }

  /** A `read_file` of a file in `dir` (the budget's results, and deepagents' own evictions) reads a stored result back. */
  lineReaderFor(toolName: string, args: Readonly<Record<string, unknown>>): LineReader | undefined {
    const path = args.file_path;
    if (toolName !== "read_file" || typeof path !== "string" || !path.startsWith(`${this.dir}/`)) return undefined;
    const offset = Number(args.offset ?? 0);
    const key = path.slice(path.lastIndexOf("/") + 1).replace(/\.txt$/, "");
    return {
      ...readFileWindows(path),
      // read_file's own reading of its offset: a whole number, from 0
      startLine: Number.isFinite(offset) ? Math.max(0, Math.floor(offset)) : 0,
      // deepagents' own evictions are in the folder too, under names that are no key of ours
      ...(isOffloadKey(key) ? { key } : {}),
    };
  }

  async get(key: string, context: OffloadContext): Promise<string | undefined> {
    if (!isOffloadKey(key)) return undefined;
    const path = this.pathFor(key, context.threadId);
    let file: Record<string, unknown>;
    if (this.backend?.readRaw) {
      let answer: unknown;
      try {
        answer = await this.backend.readRaw(path);
      } catch (error) {
        // FilesystemBackend throws for a missing file where others answer {error}: both mean "nothing stored".
        if ((error as { code?: unknown } | null)?.code === "ENOENT") return undefined;
        throw error;
      }
      const raw = fields(answer);
      // Current backends answer {data: FileData} or {error}; older ones the FileData itself.
      file = "data" in raw || "error" in raw ? fields(raw.data) : raw;
    } else {
      file = fields(fields(context.state.files)[path]);
    }
    const content = file.content;
    if (typeof content === "string") return content;
    if (Array.isArray(content) && content.every((line) => typeof line === "string")) return content.join("\n");
    return undefined;
  }
}

/** Read by the model after "To read it, ": deepagents' `read_file` call for a window of lines. */
function readFileWindows(path: string): LineReader {
  return {
    tool: "read_file",
    window: (offset, limit) => `use read_file with file_path "${path}", offset ${offset} and limit ${limit}`,
  };
}

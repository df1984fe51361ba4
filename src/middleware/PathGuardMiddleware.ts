import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import type { ToolCallHandler, ToolCallRequest } from "langchain";
import { guardToolMessage } from "../core/answers.js";
import { InvalidOptionsError } from "../core/errors.js";
import type { ToolCallView } from "../core/messages.js";
import { emitSignal, type SignalHandler } from "../core/signals.js";
import { runToolSafely } from "../core/toolErrors.js";
import { resolveInside } from "../guards/path/resolveInside.js";
import { pathRefusalText } from "../guards/path/texts.js";
import { MiddlewareBase } from "./base.js";

/** The agent state every createAgent graph has; typed so instances fit any agent's middleware list. */
type AgentState = { messages: BaseMessage[] };

export interface PathGuardOptions {
  /** Directories the checked paths must stay inside (a root itself is allowed). Required. */
  roots: readonly string[];
  /**
   * Tools whose path arguments are checked, each with the argument names to check, or `true` for
   * `DEFAULT_PATH_ARGUMENTS`. A string argument is checked; so is each string of an array argument.
   */
  tools: Readonly<Record<string, readonly string[] | true>>;
  /** Directory the tools resolve relative paths against. Default `process.cwd()`. */
  baseDir?: string;
  /** Emit signals only (with `detail.observeOnly`) and let every call run. Default false. */
  observeOnly?: boolean;
  /** Receives every refusal. */
  onSignal?: SignalHandler;
}

/** Argument names checked for a tool configured with `true`. */
export const DEFAULT_PATH_ARGUMENTS: readonly string[] = Object.freeze([
  "path",
  "file_path",
  "filePath",
  "filepath",
  "file",
  "filename",
  "dir",
  "dir_path",
  "directory",
  "folder",
  "source",
  "destination",
  "src",
  "dest",
]);

/**
 * Confines the file-path arguments of named tools to a set of root directories before the tool
 * runs. Paths are judged by where they really lead: symbolic links in every component, `..`
 * applied after them, percent-encoding, `file:` URLs, `~`, and Windows drive, UNC and device
 * forms (see `resolveInside`, which tool authors can call directly). A refused call gets an
 * error ToolMessage naming the allowed roots and a `directive` signal; other calls run untouched.
 * Node only (it resolves paths on the real filesystem): import it from "harness-kit/node".
 *
 * @example
 * const agent = createAgent({
 *   model, tools: [readFile, writeFile],
 *   middleware: [new PathGuardMiddleware({ roots: ["/srv/project"], tools: { read_file: true, write_file: ["file_path"] } })],
 * });
 */
export class PathGuardMiddleware extends MiddlewareBase {
  readonly name = "PathGuardMiddleware";
  private readonly roots: readonly string[];
  private readonly argumentsByTool: ReadonlyMap<string, readonly string[]>;
  private readonly baseDir: string | undefined;
  private readonly onSignal: SignalHandler | undefined;
  private readonly observeOnly: boolean;

  constructor(options: PathGuardOptions) {
    super();
    const roots = options?.roots;
    if (!Array.isArray(roots) || roots.length === 0 || !roots.every((root) => typeof root === "string" && root !== "")) {
      throw new InvalidOptionsError(this.name, "roots", "must be a non-empty list of directory paths");
    }
    const tools = options.tools;
    if (tools === null || typeof tools !== "object" || Object.keys(tools).length === 0) {
      throw new InvalidOptionsError(this.name, "tools", "must name at least one tool");
    }
    const byTool = new Map<string, readonly string[]>();
    for (const [tool, names] of Object.entries(tools)) {
      if (names === true) byTool.set(tool, DEFAULT_PATH_ARGUMENTS);
      else if (Array.isArray(names) && names.length > 0 && names.every((n) => typeof n === "string")) byTool.set(tool, names);
      else throw new InvalidOptionsError(this.name, `tools.${tool}`, "must be true or a non-empty list of argument names");
    }
    this.roots = [...roots];
    this.argumentsByTool = byTool;
    this.baseDir = options.baseDir;
    this.onSignal = options.onSignal;
    this.observeOnly = options.observeOnly ?? false;
  }

  readonly wrapToolCall = async (request: ToolCallRequest<AgentState>, handler: ToolCallHandler<AgentState>): Promise<ToolMessage | Command> => {
    const names = this.argumentsByTool.get(request.toolCall.name);
    if (names) {
      const call: ToolCallView = { id: request.toolCall.id ?? "", name: request.toolCall.name, args: request.toolCall.args };
      const refusal = await this.refusal(call, names);
      if (refusal && !this.observeOnly) return refusal;
    }
    return runToolSafely(request, handler);
  };

  private async refusal(call: ToolCallView, names: readonly string[]): Promise<ToolMessage | undefined> {
    const args = (call.args ?? {}) as Record<string, unknown>;
    for (const argument of names) {
      const value = args[argument];
      const values = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === "string") : [];
      for (const candidate of values) {
        const check = resolveInside(this.roots, candidate, { baseDir: this.baseDir });
        if (check.ok) continue;
        await emitSignal(
          {
            guard: this.name,
            action: "directive",
            toolCallId: call.id,
            tool: call.name,
            reason: check.violation,
            detail: {
              argument,
              path: candidate,
              roots: check.roots,
              ...(check.detail ? { error: check.detail } : {}),
              ...(this.observeOnly ? { observeOnly: true } : {}),
            },
          },
          this.onSignal,
        );
        return guardToolMessage(call, this.name, "directive", pathRefusalText(call.name, argument, candidate, check.violation, this.roots));
      }
    }
    return undefined;
  }
}

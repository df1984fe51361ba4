import path from "node:path";
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Command } from "@langchain/langgraph";
import { interopSafeParseAsync, isInteropZodSchema } from "@langchain/core/utils/types";
import type { ToolCallHandler, ToolCallRequest } from "langchain";
import { parseOptions } from "../../core/baseOptions.js";
import type { ToolCallView } from "../../core/messages.js";
import type { SignalCode } from "../../core/signals.js";
import { runToolSafely } from "../../core/toolErrors.js";
import { confineArguments, type ArgumentRefusal, type Confinement } from "./confineArguments.js";
import type { ArgumentKind } from "./pathArguments.js";
import { pathGuardOptions, type PathGuardOptions } from "./options.js";
import { locationText, pathRefusalText } from "./texts.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import { answerCall, signalCall, type CallGuard } from "../../hooks/pendingCall.js";

/** The agent state every createAgent graph has; typed so instances fit any agent's middleware list. */
type AgentState = { messages: BaseMessage[] };

export type { PathGuardOptions };

/**
 * Argument names checked for a tool configured with `true`: those of LangChain's file tools
 * (`file_path`, `dir_path`, `source_path`, `destination_path`), deepagents' (`file_path`, `path`,
 * glob's `pattern`), the MCP filesystem server's (`path`, `paths`, `source`, `destination`) and
 * common coding agents' (`target_file`, `old_path`/`new_path`, `src`/`dest`, `cwd`).
 */
export const DEFAULT_PATH_ARGUMENTS: readonly string[] = Object.freeze([
  "path",
  "paths",
  "file",
  "files",
  "file_path",
  "file_paths",
  "filePath",
  "filePaths",
  "filepath",
  "filename",
  "target_file",
  "targetFile",
  "target_directory",
  "notebook_path",
  "old_path",
  "new_path",
  "oldPath",
  "newPath",
  "source_path",
  "destination_path",
  "src",
  "dest",
  "source",
  "destination",
  "dir",
  "dir_path",
  "dirPath",
  "directory",
  "folder",
  "cwd",
  "working_directory",
  "pattern",
  "patterns",
  "glob",
]);

/**
 * Argument names read as glob patterns (`glob("../outside/*")` walks `../outside`). A tool whose
 * `pattern` is search text (deepagents' `grep`) should list its names without it: `grep: ["path", "glob"]`.
 */
export const PATTERN_ARGUMENTS: readonly string[] = Object.freeze(["pattern", "patterns", "glob"]);

/**
 * Confines the file-path arguments of named tools to a set of root directories before the tool
 * runs. A path passes only if every reading a tool could apply stays inside: as `path.resolve`
 * and deepagents read it and as the kernel walks it (symbolic links, `..` after them), trimmed,
 * percent-decoded (leniently, repeatedly), NFKC-normalised, with `~` expanded, backslashes as
 * separators, `file:` URLs (see `resolveInside`, which tool authors can call directly). Glob
 * patterns are confined by every path they can reach. A refused call gets an error ToolMessage
 * naming the allowed roots and a `directive` signal; with `rewrite`, the tool gets the one
 * canonical path instead of the ambiguous one. Node only: import it from "harness-kit/node".
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
  private readonly namesByTool: ReadonlyMap<string, ReadonlyMap<string, ArgumentKind>>;
  private readonly baseDir: string;
  private readonly virtualPaths: boolean;
  private readonly rewrite: boolean;
  private readonly callGuard: CallGuard;

  constructor(options: PathGuardOptions) {
    super();
    const settings = parseOptions(this.name, pathGuardOptions, options);
    this.roots = [...settings.roots];
    this.namesByTool = new Map(
      Object.entries(settings.tools).map(([tool, names]) => [
        tool,
        kinds(names === true ? DEFAULT_PATH_ARGUMENTS : names),
      ]),
    );
    this.baseDir = path.resolve(settings.baseDir ?? process.cwd());
    this.virtualPaths = settings.virtualPaths;
    this.rewrite = settings.rewrite;
    this.callGuard = { guard: this.name, observeOnly: settings.observeOnly, onSignal: settings.onSignal };
  }

  readonly wrapToolCall = async (
    request: ToolCallRequest<AgentState>,
    handler: ToolCallHandler<AgentState>,
  ): Promise<ToolMessage | Command> => {
    const names = this.namesByTool.get(request.toolCall.name);
    if (!names) return runToolSafely(request, handler);
    const call: ToolCallView = {
      id: request.toolCall.id ?? "",
      name: request.toolCall.name,
      args: request.toolCall.args,
    };
    const confined = await this.confineCall(call.args ?? {}, names, request.tool);
    if (!confined.ok) {
      await this.signalRefusal(call, confined.refusal);
      return answerCall(this.callGuard, request, handler, {
        kind: "refuse",
        text: pathRefusalText(call.name, confined.refusal),
      });
    }
    for (const rewrite of confined.rewrites) {
      if (rewrite.to === path.resolve(this.baseDir, rewrite.from)) continue; // only made absolute
      await this.signal(call, "warn", "path_rewritten", {
        argument: locationText(rewrite.at),
        from: rewrite.from,
        to: rewrite.to,
      });
    }
    if (confined.rewrites.length === 0) return runToolSafely(request, handler);
    return answerCall(this.callGuard, request, handler, {
      kind: "run",
      request: { ...request, toolCall: { ...request.toolCall, args: confined.args as Record<string, unknown> } },
    });
  };

  /**
   * The call's arguments as sent, then as the tool will read them: a schema's defaults and
   * preprocessing can add a path the model never wrote (deepagents' `ls()` lists "/", which in
   * its default mode is the host's root directory).
   */
  private async confineCall(
    args: unknown,
    names: ReadonlyMap<string, ArgumentKind>,
    tool: unknown,
  ): Promise<Confinement> {
    const sent = this.confine(args, names, this.rewrite);
    if (!sent.ok) return sent;
    const parsed = await parsedByToolSchema(tool, sent.args);
    if (parsed === undefined) return sent;
    const effective = this.confine(parsed, names, false);
    return effective.ok ? sent : { ok: false, refusal: { ...effective.refusal, filledInByTool: true } };
  }

  /** Fails closed: arguments that cannot be checked are refused, never let through. */
  private confine(args: unknown, names: ReadonlyMap<string, ArgumentKind>, rewrite: boolean): Confinement {
    try {
      return confineArguments(args, {
        roots: this.roots,
        names,
        baseDir: this.baseDir,
        virtualPaths: this.virtualPaths,
        rewrite,
      });
    } catch (error) {
      return {
        ok: false,
        refusal: {
          at: [],
          value: "",
          kind: "path",
          violation: "unresolvable",
          roots: this.roots,
          detail: String(error),
        },
      };
    }
  }

  private signalRefusal(call: ToolCallView, refusal: ArgumentRefusal): Promise<void> {
    return this.signal(call, "directive", refusal.violation, {
      argument: locationText(refusal.at),
      path: refusal.value,
      kind: refusal.kind,
      roots: refusal.roots,
      ...(refusal.reading ? { reading: refusal.reading.text, readingSteps: refusal.reading.steps } : {}),
      ...(refusal.detail ? { error: refusal.detail } : {}),
      ...(refusal.filledInByTool ? { filledInByTool: true } : {}),
      ...(refusal.isKey ? { isKey: true } : {}),
    });
  }

  private signal(
    call: ToolCallView,
    action: "warn" | "directive",
    code: SignalCode,
    detail: Record<string, unknown>,
  ): Promise<void> {
    return signalCall(this.callGuard, call, { action, code, reason: code, detail });
  }
}

/** The arguments after the tool's Zod schema (defaults, preprocessing); undefined when it has none or refuses them (the tool will say why). */
async function parsedByToolSchema(tool: unknown, args: unknown): Promise<unknown> {
  const schema = (tool as { schema?: unknown } | undefined)?.schema;
  if (!isInteropZodSchema(schema)) return undefined;
  try {
    const result = await interopSafeParseAsync(schema, args);
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

function kinds(names: readonly string[]): ReadonlyMap<string, ArgumentKind> {
  return new Map(names.map((name) => [name, PATTERN_ARGUMENTS.includes(name) ? "pattern" : "path"]));
}

import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { HarnessKitError } from "../core/errors.js";
import { ThreadLoadError } from "../testing/errors.js";
import { buildReplaySetup, loadReplayConfig, type ReplaySetup } from "../replay/config.js";
import { CliUsageError } from "./errors.js";
import { evaluateSources, type ThreadSource } from "../replay/evaluate.js";
import { renderHtml } from "./html.js";
import { inspectThread } from "../replay/inspect.js";
import { policyGuardFromFiles, withPolicyGuard } from "../replay/policy.js";
import { CLEAR_LINE, palette, progressLine, renderInspect, renderSummary, wantsColour } from "./render.js";
import { collectThreadFiles, loadThreadFile } from "../replay/sources.js";
import { packageVersion } from "./version.js";
import { DEFAULT_SYSTEM_TOKENS, simulateUsage } from "../replay/simulateUsage.js";
import { listCheckpointThreads, loadCheckpointThread } from "../replay/sqlite.js";
import { listPostgresThreads, loadPostgresThread } from "../replay/postgres.js";

/** Where the CLI writes, and what it knows about the terminal: injectable for tests. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
}

export const USAGE = `Usage:
  harness-kit --version
  harness-kit inspect <thread.json> [--json] [--config <file.json>] [--simulate-usage [--system-tokens <n>]]
  harness-kit inspect --sqlite <db> --thread <id> [--json] [--config <file.json>] [--simulate-usage ...]
  harness-kit inspect --postgres <connection string> --thread <id> [--json] [--config <file.json>] [...]
  harness-kit eval <files or folders...> [--jsonl] [--config <file.json>] [--simulate-usage [--system-tokens <n>]]
  harness-kit eval --sqlite <db> [--thread <id>] [--jsonl] [--config <file.json>] [--simulate-usage ...]
  harness-kit eval --postgres <connection string> [--thread <id>] [--jsonl] [--config <file.json>] [...]
  (inspect and eval also take [--policy <rules.json> [--context <json>]])

Replays saved threads through the guards that judge tool calls and reports what they would have done.
inspect  the observation table of one thread, with every decision other than allow;
         --html <file> writes the thread as a timeline page instead (self-contained, no script)
eval     totals over many threads; --jsonl prints one JSON line per decision instead
--config a JSON file naming the guard stack and its options, e.g.
         {"guards": {"RunawayGuardMiddleware": {"stopAt": 10}, "LoopGuardMiddleware": {"stopAt": 6}}}
         (default: RunawayGuardMiddleware, LoopGuardMiddleware and ProgressAwareLoopGuardMiddleware
         with their default options)
--policy a PolicyGuardMiddleware rules file, replayed right after the runaway guard; --context the
         run context its rules read (a saved thread does not hold it), e.g. '{"role":"nursing"}'
--simulate-usage  on threads recorded without usage_metadata, give each AI message the usage a
         provider would report: input = --system-tokens (system prompt and tool schemas, default
         ${DEFAULT_SYSTEM_TOKENS}) + every message before it, output = the message, at 4 characters a token
Thread files hold an array of messages or an object with a "messages" array: LangChain
message dicts, LangChain stored messages, or OpenAI chat messages.`;

/** Exit codes: 0 done, 1 some thread could not be loaded, 2 bad command line or config. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { command, values, positionals } = parseCommandLine(argv);
    if (command === "help") {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (command === "version") {
      io.stdout.write(`harness-kit ${packageVersion()}\n`);
      return 0;
    }
    const setup = values.config ? loadReplayConfig(values.config) : buildReplaySetup();
    if (values.policy !== undefined) setup.stack = withPolicyGuard(setup.stack, policyGuardFromFiles(values.policy, values.context));
    if (values["simulate-usage"]) setup.simulateUsage = { systemTokens: systemTokens(values["system-tokens"]) };
    return command === "inspect" ? await inspect(positionals, values, setup, io) : await evaluate(positionals, values, setup, io);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr.write(`harness-kit: ${error.problem}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof ThreadLoadError) {
      io.stderr.write(`${problemLine(error, io)}\n`);
      return 1;
    }
    if (error instanceof HarnessKitError) {
      io.stderr.write(`harness-kit: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

interface Flags {
  json?: boolean;
  jsonl?: boolean;
  config?: string;
  sqlite?: string;
  postgres?: string;
  thread?: string;
  "simulate-usage"?: boolean;
  "system-tokens"?: string;
  html?: string;
  policy?: string;
  context?: string;
}

function parseCommandLine(argv: readonly string[]): { command: "help" | "version" | "inspect" | "eval"; values: Flags; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean" },
        jsonl: { type: "boolean" },
        config: { type: "string" },
        sqlite: { type: "string" },
        postgres: { type: "string" },
        thread: { type: "string" },
        "simulate-usage": { type: "boolean" },
        "system-tokens": { type: "string" },
        html: { type: "string" },
        policy: { type: "string" },
        context: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
    });
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
  const [command, ...positionals] = parsed.positionals;
  const { help, version, ...values } = parsed.values;
  if (version || command === "version") return { command: "version", values, positionals };
  if (help || command === undefined || command === "help") return { command: "help", values, positionals };
  if (command !== "inspect" && command !== "eval") throw new CliUsageError(`unknown command "${command}"`);
  if (command === "inspect" && values.jsonl) throw new CliUsageError("--jsonl belongs to eval; inspect takes --json");
  if (command === "eval" && values.json) throw new CliUsageError("--json belongs to inspect; eval takes --jsonl");
  if (command === "eval" && values.html !== undefined) throw new CliUsageError("--html belongs to inspect");
  if (values.html !== undefined && values.json) throw new CliUsageError("--html and --json: one output at a time");
  if (values.sqlite !== undefined && values.postgres !== undefined) throw new CliUsageError("--sqlite and --postgres: one checkpoint database at a time");
  if (values.thread !== undefined && values.sqlite === undefined && values.postgres === undefined) throw new CliUsageError("--thread needs --sqlite <db> or --postgres <connection string>");
  if (values.context !== undefined && values.policy === undefined) throw new CliUsageError("--context belongs to --policy <rules.json>");
  if (values["system-tokens"] !== undefined && !values["simulate-usage"]) throw new CliUsageError("--system-tokens belongs to --simulate-usage");
  return { command, values, positionals };
}

async function inspect(positionals: string[], values: Flags, setup: ReplaySetup, io: CliIo): Promise<number> {
  let thread;
  if (values.sqlite !== undefined) {
    if (values.thread === undefined) throw new CliUsageError("inspect --sqlite needs --thread <id>");
    if (positionals.length > 0) throw new CliUsageError("inspect takes one thread: a file, or --sqlite with --thread");
    thread = await loadCheckpointThread(values.sqlite, values.thread);
  } else if (values.postgres !== undefined) {
    if (values.thread === undefined) throw new CliUsageError("inspect --postgres needs --thread <id>");
    if (positionals.length > 0) throw new CliUsageError("inspect takes one thread: a file, or --postgres with --thread");
    thread = await loadPostgresThread(values.postgres, values.thread);
  } else {
    if (positionals.length !== 1) throw new CliUsageError("inspect takes exactly one thread file");
    thread = loadThreadFile(positionals[0]!);
  }
  if (setup.simulateUsage) thread = { ...thread, messages: simulateUsage(thread.messages, setup.simulateUsage.systemTokens) };
  if (thread.messages.length === 0) io.stderr.write(`${warningLine(`${thread.source}: the thread has no messages`, io)}\n`);
  const report = await inspectThread(thread, setup);
  if (values.html !== undefined) {
    try {
      writeFileSync(values.html, renderHtml(thread.messages, report));
    } catch (error) {
      io.stderr.write(`harness-kit: cannot write ${values.html}: ${(error as Error).message}\n`);
      return 1;
    }
    io.stdout.write(`wrote ${values.html}\n`);
    return 0;
  }
  io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${renderInspect(report, palette(wantsColour(io.stdout.isTTY, io.env)), io.stdout.isTTY ? io.stdout.columns : undefined)}\n`);
  return 0;
}

const PROGRESS_AFTER_MS = 500;
const PROGRESS_EVERY_MS = 100;

async function evaluate(positionals: string[], values: Flags, setup: ReplaySetup, io: CliIo): Promise<number> {
  if (positionals.length === 0 && values.sqlite === undefined && values.postgres === undefined) {
    throw new CliUsageError("eval needs thread files, folders, --sqlite <db> or --postgres <connection string>");
  }
  const { files, problems } = collectThreadFiles(positionals);
  const sources: ThreadSource[] = files.map((path) => ({ kind: "file", path }));
  if (values.sqlite !== undefined) {
    try {
      const threadIds = values.thread !== undefined ? [values.thread] : await listCheckpointThreads(values.sqlite);
      sources.push(...threadIds.map((threadId): ThreadSource => ({ kind: "sqlite", db: values.sqlite!, threadId })));
    } catch (error) {
      if (!(error instanceof ThreadLoadError)) throw error;
      problems.push(error);
    }
  }
  if (values.postgres !== undefined) {
    try {
      const threadIds = values.thread !== undefined ? [values.thread] : await listPostgresThreads(values.postgres);
      sources.push(...threadIds.map((threadId): ThreadSource => ({ kind: "postgres", url: values.postgres!, threadId })));
    } catch (error) {
      if (!(error instanceof ThreadLoadError)) throw error;
      problems.push(error);
    }
  }
  for (const problem of problems) io.stderr.write(`${problemLine(problem, io)}\n`);

  const showProgress = io.stderr.isTTY === true;
  let progressShown = false;
  let lastProgress = 0;
  if (sources.length === 0 && problems.length === 0) {
    io.stderr.write(`${warningLine(`no thread found in ${positionals.join(", ") || "the database"}: nothing to replay`, io)}\n`);
    return 1;
  }
  const summary = await evaluateSources(sources, setup, {
    onEmptyThread: (thread) => {
      if (progressShown) io.stderr.write(CLEAR_LINE);
      io.stderr.write(`${warningLine(`${thread.source}: the thread has no messages`, io)}\n`);
    },
    onProblem: (problem) => {
      if (progressShown) io.stderr.write(CLEAR_LINE);
      io.stderr.write(`${problemLine(problem, io)}\n`);
    },
    onThread: values.jsonl
      ? (thread, replay) => {
          let out = "";
          for (const d of replay.decisions) {
            if (d.shadowedBy) continue;
            out += `${JSON.stringify({ thread: thread.id, toolCallId: d.toolCallId, tool: d.tool, guard: d.guard, action: d.action, reason: d.reason })}\n`;
          }
          if (out) io.stdout.write(out);
        }
      : undefined,
    onProgress: showProgress
      ? (done, total, toolCalls, elapsedMs) => {
          if (elapsedMs < PROGRESS_AFTER_MS || elapsedMs - lastProgress < PROGRESS_EVERY_MS || done === total) return;
          lastProgress = elapsedMs;
          progressShown = true;
          io.stderr.write(progressLine(done, total, toolCalls, elapsedMs));
        }
      : undefined,
  });
  if (progressShown) io.stderr.write(CLEAR_LINE);
  summary.failed += problems.length;
  // With --jsonl, stdout carries only decisions; the summary goes to the terminal.
  const out = values.jsonl ? io.stderr : io.stdout;
  out.write(`${renderSummary(summary, palette(wantsColour(out.isTTY, io.env)))}\n`);
  return summary.failed > 0 ? 1 : 0;
}

function systemTokens(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SYSTEM_TOKENS;
  const tokens = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(tokens)) throw new CliUsageError(`--system-tokens takes a whole number of tokens, got "${text}"`);
  return tokens;
}

function warningLine(text: string, io: CliIo): string {
  return palette(wantsColour(io.stderr.isTTY, io.env)).bold(`warning: ${text}`);
}

function problemLine(problem: ThreadLoadError, io: CliIo): string {
  return palette(wantsColour(io.stderr.isTTY, io.env)).error(`error: ${problem.file}: ${problem.reason}`);
}

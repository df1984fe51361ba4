import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { HarnessKitError } from "../core/errors.js";
import { replaySetupFor, type ReplaySetup, type ReplaySetupRequest } from "../replay/config.js";
import { ThreadLoadError } from "../replay/errors.js";
import { evaluateSearch, type SourcesEvaluator } from "../replay/evaluate.js";
import { inspectSource } from "../replay/inspect.js";
import { DEFAULT_SYSTEM_TOKENS } from "../replay/simulateUsage.js";
import type { LangGraphServer } from "../replay/langgraphApi.js";
import { DEFAULT_MARGINS, type Margins } from "../replay/suggest.js";
import type { ThreadSearch, ThreadSource } from "../replay/sources.js";
import { evaluateSourcesInWorkers } from "../replay/workers.js";
import { defaultWorkerCount } from "../replay/workerStart.js";
import { renderHtml } from "./html.js";
import { writeEvalReport } from "./evalReport.js";
import { FleetTally } from "../replay/fleetTally.js";
import { readAllOutcomes, runOutcomeOf } from "../replay/outcomes.js";
import { suggestCommand } from "./suggest.js";
import {
  CLEAR_LINE,
  palette,
  progressLine,
  renderDecisionLines,
  renderInspect,
  renderSummary,
  renderThreadNotes,
  wantsColour,
} from "./render.js";
import { packageVersion } from "./version.js";

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
  harness-kit inspect --langgraph-api <url> --thread <id> [--langgraph-api-key <key>] [--json] [...]
  harness-kit eval --langgraph-api <url> [--since <ISO date> | --thread <id>] [--langgraph-api-key <key>] [...]
  harness-kit eval <files or folders...> --suggest <out.json> --outcomes <file.json> [--holdout] [--margin <fraction>] [--simulate-usage ...]
  (eval also takes [--workers <n>] and [--html <report.html> [--outcomes <file.json>]])
  (inspect and eval also take [--policy <rules.json> [--context <json>]])

Replays saved threads through the guards that judge tool calls and reports what they would have done.
inspect  the observation table of one thread, with every decision other than allow;
         --html <file> writes the thread as a timeline page instead (self-contained, no script)
eval     totals over many threads; --jsonl prints one JSON line per decision instead;
         --html <file> writes a report page too (self-contained, no script): what each guard
         would do and to how many threads, the threads that wasted the most tokens, each linked
         to its own timeline page in <file>-threads/, and charts with the guards' thresholds;
         --outcomes <file.json> splits it by run outcome, {"<thread id>": "success" | "failure"}
         or a dataset index {"threads": [{"thread": "<id>", "outcome": {"resolved": true}}]};
         --workers <n> replays on n worker threads (default: the cores available);
         the output is the same as with --workers 1, which replays in this thread
--config a JSON file naming the guard stack and its options, in middleware order (the live
         stack's, to replay what it did), e.g.
         {"guards": {"RunawayGuardMiddleware": {"stopAt": 10}, "ProgressAwareLoopGuardMiddleware": {},
         "LoopGuardMiddleware": {"stopAt": 6}}}
         (default: RunawayGuardMiddleware, ProgressAwareLoopGuardMiddleware and LoopGuardMiddleware,
         in recommendedGuards' order, with their default options). Where a thread's recorded
         answers show its guards in another order, it is replayed in that one; the output says so
--policy a PolicyGuardMiddleware rules file, replayed right after the runaway guard; --context the
         run context its rules read (a saved thread does not hold it), e.g. '{"role":"nursing"}'
--langgraph-api  reads threads from a LangGraph server (LangGraph Platform, langgraph dev): every
         thread, those updated since --since (e.g. 2026-11-01 or 2026-11-25T08:00Z), or --thread;
         --langgraph-api-key, else LANGGRAPH_API_KEY or LANGSMITH_API_KEY, is sent as its API key
--suggest fits thresholds to the threads with a margin over the successful ones (--outcomes: thread
         id -> true/false, "success"/"failure", or an index {"threads": [{"thread", "outcome"}]}):
         maxRunTokens, the runaway tiers and the loop guards' stopAt; prints what they would have
         done to the failed and the successful runs, and writes them as a --config file.
         --holdout fits on the half of the tasks whose id hashes to 0 (trials of a task together)
         and scores on the other; --margin <fraction> over the successful runs (default ${DEFAULT_MARGINS.tokens})
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
    // The whole command line is read before anything is loaded: a usage error comes first.
    const setup = setupRequestOf(values, command === "eval" && values.html !== undefined);
    if (command === "inspect")
      return await inspect(inspectedSourceOf(positionals, values, io.env), values, replaySetupFor(setup), io);
    const search = threadSearchOf(positionals, values, io.env);
    if (values.suggest !== undefined) {
      return await suggestCommand(
        {
          search,
          outcomesFile: values.outcomes!,
          configFile: values.suggest,
          holdout: values.holdout ?? false,
          margins: marginsOf(values.margin),
        },
        replaySetupFor(setup),
        io,
      );
    }
    const workers = workerCount(values.workers);
    return await evaluate(search, values, replaySetupFor(setup), evaluatorFor(workers, setup, io.env), io);
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
  workers?: string;
  "langgraph-api"?: string;
  "langgraph-api-key"?: string;
  since?: string;
  outcomes?: string;
  suggest?: string;
  holdout?: boolean;
  margin?: string;
}

function parseCommandLine(argv: readonly string[]): {
  command: "help" | "version" | "inspect" | "eval";
  values: Flags;
  positionals: string[];
} {
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
        workers: { type: "string" },
        "langgraph-api": { type: "string" },
        "langgraph-api-key": { type: "string" },
        since: { type: "string" },
        outcomes: { type: "string" },
        suggest: { type: "string" },
        holdout: { type: "boolean" },
        margin: { type: "string" },
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
  if (
    values.outcomes !== undefined &&
    values.suggest === undefined &&
    (command !== "eval" || values.html === undefined)
  ) {
    throw new CliUsageError("--outcomes belongs to eval --html <report.html> or eval --suggest <out.json>");
  }
  if (command === "inspect" && values.workers !== undefined) throw new CliUsageError("--workers belongs to eval");
  if (values.html !== undefined && values.json) throw new CliUsageError("--html and --json: one output at a time");
  const stores = [
    values.sqlite !== undefined && "--sqlite",
    values.postgres !== undefined && "--postgres",
    values["langgraph-api"] !== undefined && "--langgraph-api",
  ].filter(Boolean);
  if (stores.length > 1)
    throw new CliUsageError(`${stores.join(" and ")}: one checkpoint database or server at a time`);
  if (values.thread !== undefined && stores.length === 0)
    throw new CliUsageError("--thread needs --sqlite <db>, --postgres <connection string> or --langgraph-api <url>");
  if (values["langgraph-api-key"] !== undefined && values["langgraph-api"] === undefined)
    throw new CliUsageError("--langgraph-api-key belongs to --langgraph-api <url>");
  if (values.since !== undefined && (command !== "eval" || values["langgraph-api"] === undefined))
    throw new CliUsageError("--since belongs to eval --langgraph-api <url>");
  if (values.since !== undefined && values.thread !== undefined)
    throw new CliUsageError("--since and --thread: one thread, or the threads updated since a time");
  if (values.context !== undefined && values.policy === undefined)
    throw new CliUsageError("--context belongs to --policy <rules.json>");
  if (values["system-tokens"] !== undefined && !values["simulate-usage"])
    throw new CliUsageError("--system-tokens belongs to --simulate-usage");
  checkSuggestFlags(command, values);
  return { command, values, positionals };
}

/** `--config`, `--policy` with `--context`, and `--simulate-usage` with `--system-tokens`. */
function setupRequestOf(values: Flags, profileThreads: boolean): ReplaySetupRequest {
  return {
    ...(profileThreads ? { profileThreads } : {}),
    ...(values.config !== undefined ? { configFile: values.config } : {}),
    ...(values.policy !== undefined ? { policy: { file: values.policy, context: runContext(values.context) } } : {}),
    ...(values["simulate-usage"] ? { simulateUsage: { systemTokens: systemTokens(values["system-tokens"]) } } : {}),
  };
}

/** The one thread `inspect` reads: a file, or a thread of a checkpoint database or a LangGraph server. */
function inspectedSourceOf(positionals: string[], values: Flags, env: CliIo["env"]): ThreadSource {
  const database =
    values.sqlite !== undefined
      ? "sqlite"
      : values.postgres !== undefined
        ? "postgres"
        : values["langgraph-api"] !== undefined
          ? "langgraph-api"
          : undefined;
  if (database === undefined) {
    if (positionals.length !== 1) throw new CliUsageError("inspect takes exactly one thread file");
    return { kind: "file", path: positionals[0]! };
  }
  if (values.thread === undefined) throw new CliUsageError(`inspect --${database} needs --thread <id>`);
  if (positionals.length > 0)
    throw new CliUsageError(`inspect takes one thread: a file, or --${database} with --thread`);
  if (database === "langgraph-api")
    return { kind: "langgraph-api", server: langGraphServerOf(values, env)!, threadId: values.thread };
  return database === "sqlite"
    ? { kind: "sqlite", db: values.sqlite!, threadId: values.thread }
    : { kind: "postgres", url: values.postgres!, threadId: values.thread };
}

/** `--langgraph-api` and its key: `--langgraph-api-key`, else the environment's (the names the LangGraph SDK reads). */
function langGraphServerOf(values: Flags, env: CliIo["env"]): LangGraphServer | undefined {
  const url = values["langgraph-api"];
  if (url === undefined) return undefined;
  const apiKey = values["langgraph-api-key"] ?? (env.LANGGRAPH_API_KEY || env.LANGSMITH_API_KEY || undefined);
  return { url, ...(apiKey !== undefined ? { apiKey } : {}) };
}

/** `--since`: an ISO 8601 date or time. */
function sinceOf(text: string): Date {
  const time = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())
    ? Date.parse(text.trim())
    : NaN;
  if (Number.isNaN(time))
    throw new CliUsageError(
      `--since takes an ISO 8601 date or time, e.g. 2026-11-01 or 2026-11-25T08:00Z, got "${text}"`,
    );
  return new Date(time);
}

/** The threads `eval` replays: files and folders, and a checkpoint database's threads. */
function threadSearchOf(positionals: string[], values: Flags, env: CliIo["env"]): ThreadSearch {
  const server = langGraphServerOf(values, env);
  if (
    positionals.length === 0 &&
    values.sqlite === undefined &&
    values.postgres === undefined &&
    server === undefined
  ) {
    throw new CliUsageError(
      "eval needs thread files, folders, --sqlite <db>, --postgres <connection string> or --langgraph-api <url>",
    );
  }
  return {
    paths: positionals,
    ...(values.sqlite !== undefined ? { sqlite: values.sqlite } : {}),
    ...(values.postgres !== undefined ? { postgres: values.postgres } : {}),
    ...(server !== undefined ? { langgraphApi: server } : {}),
    ...(values.since !== undefined ? { since: sinceOf(values.since) } : {}),
    ...(values.thread !== undefined ? { threadId: values.thread } : {}),
  };
}

async function inspect(source: ThreadSource, values: Flags, setup: ReplaySetup, io: CliIo): Promise<number> {
  const { thread, report } = await inspectSource(source, setup);
  if (thread.messages.length === 0)
    io.stderr.write(`${warningLine(`${thread.source}: the thread has no messages`, io)}\n`);
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
  io.stdout.write(
    values.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : `${renderInspect(report, palette(wantsColour(io.stdout.isTTY, io.env)), io.stdout.isTTY ? io.stdout.columns : undefined)}\n`,
  );
  return 0;
}

const PROGRESS_AFTER_MS = 500;
const PROGRESS_EVERY_MS = 100;

/**
 * The module a replay worker runs: the CLI's own main module, which serves as a worker when it is
 * started as one. Next to this file: src/cli/main.ts in the sources (tests, tsx), and in the
 * package dist/cli/main.js, which `bin` runs.
 */
const WORKER_ENTRY = new URL(import.meta.url.endsWith(".ts") ? "./main.ts" : "./main.js", import.meta.url);

/** `--workers`: a whole number, at least 1; the cores available when absent. */
function workerCount(text: string | undefined): number {
  if (text === undefined) return defaultWorkerCount();
  const count = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(count) || count < 1)
    throw new CliUsageError(`--workers takes a whole number of workers, at least 1, got "${text}"`);
  return count;
}

/** One worker replays in this thread, as `eval` always did; more start worker threads, each building the stack from the same request. */
function evaluatorFor(workers: number, request: ReplaySetupRequest, env: CliIo["env"]): SourcesEvaluator | undefined {
  if (workers <= 1) return undefined;
  // For tests of the built CLI: only the worker threads replay, so every thread crosses threads.
  const replayHere = env.HARNESS_KIT_REPLAY_HERE !== "0";
  return (sources, setup, hooks) =>
    evaluateSourcesInWorkers(sources, setup, { workers, entry: WORKER_ENTRY, request, replayHere }, hooks);
}

/** How many threads each ranking of the `--html` report lists, each with its own page. */
const REPORT_TOP = 25;

async function evaluate(
  search: ThreadSearch,
  values: Flags,
  setup: ReplaySetup,
  evaluator: SourcesEvaluator | undefined,
  io: CliIo,
): Promise<number> {
  const outcomes = values.outcomes !== undefined ? readAllOutcomes(values.outcomes) : undefined;
  const fleet =
    values.html !== undefined
      ? new FleetTally(
          setup.stack.map(({ guard }) => guard.name),
          REPORT_TOP,
          outcomes !== undefined,
        )
      : undefined;
  let progressShown = false;
  let lastProgress = 0;
  /** A line of its own on stderr, clearing the progress line first. */
  const note = (line: string) => {
    if (progressShown) io.stderr.write(CLEAR_LINE);
    io.stderr.write(`${line}\n`);
  };
  const summary = await evaluateSearch(
    search,
    setup,
    {
      onEmptyThread: (thread) => note(warningLine(`${thread.source}: the thread has no messages`, io)),
      onProblem: (problem) => note(problemLine(problem, io)),
      onThread: (thread, replay, facts) => {
        fleet?.add(thread, replay, facts, outcomes ? runOutcomeOf(outcomes, thread, facts.origin) : undefined);
        for (const line of renderThreadNotes(thread.id, replay, palette(wantsColour(io.stderr.isTTY, io.env))))
          note(line);
        if (values.jsonl) io.stdout.write(renderDecisionLines(thread.id, replay));
      },
      onProgress:
        io.stderr.isTTY === true
          ? (done, total, toolCalls, elapsedMs) => {
              if (elapsedMs < PROGRESS_AFTER_MS || elapsedMs - lastProgress < PROGRESS_EVERY_MS || done === total)
                return;
              lastProgress = elapsedMs;
              progressShown = true;
              io.stderr.write(progressLine(done, total, toolCalls, elapsedMs));
            }
          : undefined,
    },
    evaluator,
  );
  if (!summary) {
    io.stderr.write(
      `${warningLine(`no thread found in ${search.paths.join(", ") || (search.langgraphApi ? "the server" : "the database")}: nothing to replay`, io)}\n`,
    );
    return 1;
  }
  if (progressShown) io.stderr.write(CLEAR_LINE);
  // With --jsonl, stdout carries only decisions; the summary goes to the terminal.
  const out = values.jsonl ? io.stderr : io.stdout;
  out.write(`${renderSummary(summary, palette(wantsColour(out.isTTY, io.env)))}\n`);
  if (fleet && values.html !== undefined) {
    try {
      const pages = await writeEvalReport(values.html, summary, fleet.report(), setup);
      io.stderr.write(
        `wrote ${values.html} and ${pages.length} thread page${pages.length === 1 ? "" : "s"} beside it\n`,
      );
    } catch (error) {
      io.stderr.write(`harness-kit: cannot write ${values.html}: ${(error as Error).message}\n`);
      return 1;
    }
  }
  return summary.failed > 0 ? 1 : 0;
}

/** `--suggest` needs `--outcomes`, fits its own stack, and prints its own report. */
function checkSuggestFlags(command: string, values: Flags): void {
  if (values.suggest === undefined) {
    for (const flag of ["holdout", "margin"] as const)
      if (values[flag] !== undefined) throw new CliUsageError(`--${flag} belongs to eval --suggest <out.json>`);
    return;
  }
  if (command !== "eval") throw new CliUsageError("--suggest belongs to eval");
  if (values.outcomes === undefined)
    throw new CliUsageError("--suggest needs --outcomes <file.json>: which threads succeeded");
  for (const flag of ["config", "policy", "jsonl", "workers", "html"] as const) {
    if (values[flag] !== undefined)
      throw new CliUsageError(`--${flag} does not go with --suggest, which fits its own stack`);
  }
}

function marginsOf(text: string | undefined): Margins {
  if (text === undefined) return DEFAULT_MARGINS;
  const margin = Number(text);
  if (text.trim() === "" || !Number.isFinite(margin) || margin < 0)
    throw new CliUsageError(`--margin takes a fraction of at least 0, e.g. 0.25, got "${text}"`);
  return { tokens: margin, factor: margin, count: Math.ceil(margin) };
}

/** `--context`: the run context the policy's rules read, a JSON object. */
function runContext(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliUsageError(
      `--context takes a JSON object, e.g. '{"role":"nursing"}' (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new CliUsageError(`--context takes a JSON object, e.g. '{"role":"nursing"}'`);
  return value;
}

function systemTokens(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SYSTEM_TOKENS;
  const tokens = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(tokens))
    throw new CliUsageError(`--system-tokens takes a whole number of tokens, got "${text}"`);
  return tokens;
}

function warningLine(text: string, io: CliIo): string {
  return palette(wantsColour(io.stderr.isTTY, io.env)).bold(`warning: ${text}`);
}

function problemLine(problem: ThreadLoadError, io: CliIo): string {
  return palette(wantsColour(io.stderr.isTTY, io.env)).error(`error: ${problem.file}: ${problem.reason}`);
}

/** The command line asks for something the CLI cannot do (unknown command or flag, missing value). */
class CliUsageError extends HarnessKitError {
  constructor(readonly problem: string) {
    super(problem);
  }
}

import { writeFileSync } from "node:fs";
import { ThreadLoadError } from "../replay/errors.js";
import { messagesToReplay, type ReplaySetup } from "../replay/config.js";
import { outcomeOf, readOutcomes } from "../replay/outcomes.js";
import { findThreadSources, loadThreadSource, type ThreadSearch } from "../replay/sources.js";
import { suggestedConfig, type StopTally } from "../replay/suggest.js";
import { suggestThresholds, type LabelledThread, type SuggestReport } from "../replay/suggestRun.js";
import type { CliIo } from "./cli.js";

export interface SuggestRequest {
  search: ThreadSearch;
  outcomesFile: string;
  /** Where the suggested `--config` file goes. */
  configFile: string;
  holdout: boolean;
  margins: { tokens: number; factor: number; count: number };
}

/**
 * `eval --suggest`: fits the thresholds to the threads named (their outcomes from
 * `--outcomes`), prints what they would have done to the failed and the successful runs, and
 * writes them as a `--config` file. Exit 0 when written, 1 when a thread could not be loaded or
 * nothing could be fitted.
 */
export async function suggestCommand(request: SuggestRequest, setup: ReplaySetup, io: CliIo): Promise<number> {
  const { outcomes } = readOutcomes(request.outcomesFile);
  const { sources, problems } = await findThreadSources(request.search);
  for (const problem of problems) io.stderr.write(`error: ${problem.file}: ${problem.reason}\n`);
  const threads: LabelledThread[] = [];
  let unlabelled = 0;
  for (const source of sources) {
    let loaded;
    try {
      loaded = await loadThreadSource(source);
    } catch (error) {
      if (!(error instanceof ThreadLoadError)) throw error;
      problems.push(error);
      io.stderr.write(`error: ${error.file}: ${error.reason}\n`);
      continue;
    }
    const successful = outcomeOf(outcomes, loaded);
    if (successful === undefined) {
      unlabelled++;
      continue;
    }
    // Loaded again at each replay: the messages of hundreds of long threads need not stay in memory.
    threads.push({
      id: loaded.id,
      successful,
      messages: async () => messagesToReplay((await loadThreadSource(source)).messages, setup),
    });
  }
  if (unlabelled > 0)
    io.stderr.write(
      `warning: ${unlabelled} thread${unlabelled === 1 ? "" : "s"} without an outcome in ${request.outcomesFile} (true/false, "success"/"failure", {"resolved"} or {"reward"}), left out\n`,
    );
  const report = await suggestThresholds(threads, {
    ...(request.holdout ? { fitHalf: 0 as const } : {}),
    margins: request.margins,
  });
  if (!report) {
    io.stderr.write(
      `harness-kit: no successful thread${request.holdout ? " in the fitted half" : ""} among the ${threads.length} with an outcome: nothing to fit the thresholds to\n`,
    );
    return 1;
  }
  io.stdout.write(`${renderSuggestion(report, request, setup)}\n`);
  try {
    writeFileSync(request.configFile, `${JSON.stringify(suggestedConfig(report.fit.settings), null, 2)}\n`);
  } catch (error) {
    io.stderr.write(`harness-kit: cannot write ${request.configFile}: ${(error as Error).message}\n`);
    return 1;
  }
  io.stdout.write(
    `wrote ${request.configFile}: replay with it through eval --config ${request.configFile}${setup.simulateUsage ? " --simulate-usage" : ""}\n`,
  );
  return problems.length > 0 ? 1 : 0;
}

export function renderSuggestion(
  report: SuggestReport,
  request: Pick<SuggestRequest, "holdout" | "margins">,
  setup: Pick<ReplaySetup, "simulateUsage">,
): string {
  const { settings } = report.fit;
  const { margins } = request;
  const lines = [
    `Fitted on ${count(report.fitted.threads, "thread")} (${report.fitted.successful} successful)${request.holdout ? ", the half of the tasks whose id hashes to 0" : ""}; margins over the successful runs: tokens +${percent(margins.tokens)}, runaway factor +${percent(margins.factor)}, loop counts +${margins.count}.`,
    `  RunawayGuardMiddleware            maxRunTokens ${format(settings.maxRunTokens)}, warnAt ${settings.runaway.warnAt}, blockAt ${settings.runaway.blockAt}, stopAt ${settings.runaway.stopAt}`,
    `  ProgressAwareLoopGuardMiddleware  stopAt ${settings.progressStopAt}`,
    `  LoopGuardMiddleware               stopAt ${settings.loopStopAt}`,
  ];
  if (report.fit.successfulStopped > 0)
    lines.push(
      `  (still stops ${count(report.fit.successfulStopped, "successful fitted thread")}: the guards reach them together)`,
    );
  lines.push(
    "",
    `Scored on ${count(report.scored.threads, "thread")}${request.holdout ? ", the other half" : ", the same ones"}${setup.simulateUsage ? `, usage simulated (system prompt ${format(setup.simulateUsage.systemTokens)} tokens)` : ""}:`,
    ...table([
      ["", "failed runs stopped", "tokens saved", "successful runs stopped", "their tokens after the stop"],
      ["suggested settings", ...cells(report.suggested)],
      ["default stack", ...cells(report.defaultStack)],
      [`maxRunTokens ${format(settings.maxRunTokens)} alone`, ...cells(report.capAlone)],
      [`best plain cap (${format(report.bestCap.cap)})`, ...cells(report.bestCap.tally)],
    ]),
    `(the best plain cap is chosen on the scored threads themselves: the lowest that stops no more successful runs than the suggestion)`,
  );
  return lines.join("\n");
}

function cells(t: StopTally): string[] {
  return [
    `${t.failed.stopped} of ${t.failed.threads}`,
    `${format(t.failed.tokensAfterStops)} (${share(t.failed.tokensAfterStops, t.failed.tokens)})`,
    `${t.successful.stopped} of ${t.successful.threads}`,
    format(t.successful.tokensAfterStops),
  ];
}

/** Columns as wide as their widest cell: the first left-aligned, the figures right-aligned. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)));
  return rows.map((r) =>
    `  ${r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join("  ")}`.trimEnd(),
  );
}

const TOKENS = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const format = (n: number) => TOKENS.format(Math.round(n));
const percent = (fraction: number) => `${Math.round(fraction * 100)}%`;
const share = (part: number, whole: number) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`);
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import type { ReplaySetup } from "../replay/config.js";
import { ThreadLoadError } from "../replay/errors.js";
import type { EvalSummary } from "../replay/evaluate.js";
import type { FleetReport, FleetThread } from "../replay/fleetTally.js";
import { inspectSource } from "../replay/inspect.js";
import { guardThresholds } from "../replay/thresholds.js";
import { renderEvalHtml } from "./evalHtml.js";
import { renderHtml } from "./html.js";
import { ThreadPageNames } from "./threadPageNames.js";

/** The folder of the threads' pages, beside the report: `report.html` -> `report-threads`. */
export function threadPagesFolder(reportFile: string): string {
  const name = basename(reportFile, extname(reportFile));
  return join(dirname(reportFile), `${name}-threads`);
}

/**
 * Writes the fleet report and, in the folder beside it, each listed thread's own timeline page
 * (`inspect --html` of that thread, loaded again: the replay kept no messages). A thread that
 * cannot be loaded again is listed without a link. Returns the pages written.
 */
export async function writeEvalReport(
  reportFile: string,
  summary: EvalSummary,
  fleet: FleetReport,
  setup: ReplaySetup,
): Promise<string[]> {
  const folder = threadPagesFolder(reportFile);
  const names = new ThreadPageNames();
  const pages = new Map<FleetThread["origin"], string>();
  const listed = [...fleet.topWasted, ...fleet.topRunaway];
  if (listed.length > 0) mkdirSync(folder, { recursive: true });
  for (const thread of listed) {
    if (pages.has(thread.origin)) continue;
    const name = names.nameOf(thread.id, thread.source);
    try {
      const { thread: loaded, report } = await inspectSource(thread.origin, setup);
      writeFileSync(join(folder, name), renderHtml(loaded.messages, report));
      pages.set(thread.origin, name);
    } catch (error) {
      if (!(error instanceof ThreadLoadError)) throw error;
    }
  }
  const linkFolder = encodeURIComponent(basename(folder));
  const html = renderEvalHtml({
    summary,
    fleet,
    thresholds: guardThresholds(setup.config),
    pageOf: (thread) => {
      const name = pages.get(thread.origin);
      return name === undefined ? undefined : `${linkFolder}/${encodeURIComponent(name)}`;
    },
  });
  writeFileSync(reportFile, html);
  return [...pages.values()].map((name) => join(folder, name));
}

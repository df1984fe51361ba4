import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { runCli } from "../../src/cli/cli.js";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { esc, renderHtml } from "../../src/cli/html.js";
import { CHROMIUM_ARGS, findChromium } from "../helpers/chromium.js";
import { captureIo } from "./io.js";

const dir = mkdtempSync(join(tmpdir(), "hk-html-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const INJECTION = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'"></pre><b>bold</b>" onmouseover="x' \`tick\``;

/** A support thread that goes in circles: the same status poll with only its timestamp changing, then a flood. */
function loopingThread() {
  const messages: unknown[] = [{ role: "user", content: "Is the export for account A1 done yet?" }];
  const call = (id: string, name: string, args: unknown) => ({
    role: "assistant",
    content: "",
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  });
  messages.push(call("c0", "get_account", { id: "A1" }), {
    role: "tool",
    tool_call_id: "c0",
    content: JSON.stringify({ id: "A1", plan: "pro", note: INJECTION }),
  });
  for (let i = 1; i <= 6; i++) {
    messages.push(call(`c${i}`, "job_status", { job: 7 }), {
      role: "tool",
      tool_call_id: `c${i}`,
      content: JSON.stringify({ state: "running", at: `2026-11-23T10:0${i}:00Z` }),
    });
  }
  messages.push(call("c7", "export_logs", { since: "1h" }), {
    role: "tool",
    tool_call_id: "c7",
    content: Array.from({ length: 400 }, (_, i) => `line ${i}: ok`).join("\n"),
  });
  messages.push({ role: "assistant", content: "The export is still running; I will check again later." });
  return { id: "support-42", messages };
}

/** A failing booking retried with empty think calls between: recorded without `status`, as many traces are. */
function stuckBooking(): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [{ type: "human", content: "book HAT001" }];
  let k = 0;
  const step = (name: string, args: Record<string, unknown>, result: string) => {
    const id = `s-${k++}`;
    messages.push({ type: "ai", content: "", tool_calls: [{ id, name, args, type: "tool_call" }] });
    messages.push({ type: "tool", tool_call_id: id, name, content: result });
  };
  step("get_user_details", { user_id: "u1" }, '{"name": "Ada"}');
  for (let i = 0; i < 3; i++) {
    step(
      "book_reservation",
      { flight: "HAT001", amount: 299 },
      "Error: payment amount does not add up, total price is 375",
    );
    step("think", { thought: `attempt ${i}` }, "");
  }
  messages.push({ type: "ai", content: "I could not book it." });
  return messages;
}

async function inspectHtml(name: string, messages: Array<Record<string, unknown>>): Promise<string> {
  const thread = join(dir, name);
  writeFileSync(thread, JSON.stringify(messages));
  const out = thread.replace(/\.json$/, ".html");
  expect(await runCli(["inspect", thread, "--html", out], captureIo())).toBe(0);
  return out;
}

async function writePage(): Promise<string> {
  const thread = join(dir, "thread.json");
  writeFileSync(thread, JSON.stringify(loopingThread()));
  const out = join(dir, "thread.html");
  const written: string[] = [];
  const code = await runCli(["inspect", thread, "--html", out], {
    stdout: { write: (t: string) => written.push(t) },
    stderr: { write: () => true },
    env: {},
  });
  expect(code).toBe(0);
  expect(written.join("")).toBe(`wrote ${out}\n`);
  return out;
}

const chromium = findChromium();
const chromiumArgs = CHROMIUM_ARGS;
if (!chromium)
  console.warn("test/cli/html.test.ts: browser checks skipped: no chromium on PATH (Debian: apt-get install chromium)");

describe("harness-kit inspect --html", () => {
  it("writes one self-contained page: no script, no external asset, tool text escaped", async () => {
    const html = readFileSync(await writePage(), "utf8");
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed|base)\b|(src|href)="(https?:)?\/\/|@import|url\(/i);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain("&#60;script&#62;document.title=");
    expect(html).toContain("&#60;img src=x onerror=");
    expect(html).toMatch(
      /directive ProgressAwareLoopGuardMiddleware|stop ProgressAwareLoopGuardMiddleware|LoopGuardMiddleware/,
    );
    expect(html).toContain('id="call-3"'); // the strip links to each call
  });

  it("a page it cannot write is one line on stderr and exit code 1", async () => {
    const thread = join(dir, "small.json");
    writeFileSync(thread, JSON.stringify([{ role: "user", content: "hi" }]));
    const errors: string[] = [];
    const code = await runCli(["inspect", thread, "--html", join(dir, "missing-folder", "x.html")], {
      stdout: { write: () => true },
      stderr: { write: (t: string) => errors.push(t) },
      env: {},
    });
    expect(code).toBe(1);
    expect(errors.join("")).toMatch(/^harness-kit: cannot write .*x\.html: ENOENT[^\n]*\n$/);
  });

  it("--html comes alone, and --outcomes only with eval --html", async () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
    expect(await runCli(["inspect", "x.json", "--html", "y.html", "--json"], io)).toBe(2);
    expect(await runCli(["eval", "x.json", "--outcomes", "o.json"], io)).toBe(2);
    expect(await runCli(["inspect", "x.json", "--html", "y.html", "--outcomes", "o.json"], io)).toBe(2);
  });

  it("shows which guard answered or stopped, its reason escaped too", () => {
    const marked = (action: string, reason: string) => ({
      harness_kit: { v: 1, guard: "ProgressAwareLoopGuardMiddleware", action, reason },
    });
    const messages = [
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "job_status", args: {} }] }),
      new ToolMessage({
        content: "Not run: nothing new",
        tool_call_id: "c1",
        status: "error",
        response_metadata: marked("directive", "<b>same</b>"),
      }),
      new AIMessage({
        content: "Run stopped",
        response_metadata: {
          harness_kit: { v: 1, guard: "RunawayGuardMiddleware", action: "stop", stopReason: "runaway </pre>" },
        },
      }),
    ];
    const html = renderHtml(messages, {
      thread: "t",
      source: "t",
      messages: 3,
      toolCalls: 1,
      guards: [],
      orderSource: "the order given",
      rows: [],
    });
    expect(html).toContain("directive by ProgressAwareLoopGuardMiddleware: &#60;b&#62;same&#60;/b&#62;");
    expect(html).toContain("stop by RunawayGuardMiddleware: runaway &#60;/pre&#62;");
    expect(html).toContain("result of job_status");
  });

  it("marks a decision made after an outer guard had answered the call, as the text view does", async () => {
    const html = readFileSync(await inspectHtml("stuck.json", stuckBooking()), "utf8");
    const text = captureIo();
    await runCli(["inspect", join(dir, "stuck.json")], text);
    expect(text.stdout()).toContain("warn LoopGuardMiddleware (after ProgressAwareLoopGuardMiddleware answered it)");
    const fifth = /<div class="call[^"]*" id="call-5">[\s\S]*?<\/ul><\/div>/.exec(html)?.[0] ?? "";
    expect(fifth).toContain(
      '<li class="act-warn moot"><b>warn</b> LoopGuardMiddleware (after ProgressAwareLoopGuardMiddleware answered it):',
    );
    expect(fifth).toMatch(/<li class="act-directive"><b>directive<\/b> ProgressAwareLoopGuardMiddleware:/);
  });

  it("a result's header and its call give the same status", async () => {
    const html = readFileSync(await inspectHtml("stuck-status.json", stuckBooking()), "utf8");
    const callStatuses = [
      ...html.matchAll(
        /<span class="tool tool-\d">book_reservation<\/span> <span class="facts">[^<]*· (error|ok|not run|answered by \w+)<\/span>/g,
      ),
    ].map((m) => m[1]);
    const headerStatuses = [...html.matchAll(/result of book_reservation · (\w+) ·/g)].map((m) => m[1]);
    // Recorded without `status`: the replay reads "Error: …" as an error, on the call and the result alike.
    expect(headerStatuses).toEqual(["error", "error", "error"]);
    expect(callStatuses).toEqual(headerStatuses);
    expect(html).not.toMatch(/result of book_reservation · ok/);
  });

  it("esc leaves nothing that opens a tag or leaves an attribute, and reads back as the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const escaped = esc(text);
        expect(escaped).not.toMatch(/[<>"'`]/);
        const decoded = escaped.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
        expect(decoded).toBe(text);
      }),
    );
  });

  it.skipIf(!chromium)(
    "renders in a headless browser with the tool's markup as text, and a screenshot for the README",
    async () => {
      const page = await writePage();
      const dom = execFileSync(chromium!, [...chromiumArgs, "--dump-dom", `file://${page}`], {
        encoding: "utf8",
        timeout: 60_000,
        stdio: ["ignore", "pipe", "pipe"],
      });
      expect(dom).toContain("<title>harness-kit: thread support-42</title>"); // no script changed it
      expect(dom).not.toMatch(/<script|<img/i); // the tool's tags stayed text
      expect(dom).toContain("&lt;script&gt;document.title=");
      expect((dom.match(/class="entry /g) ?? []).length).toBe(loopingThread().messages.length);

      const shot = join(dir, "inspect-html.png");
      execFileSync(chromium!, [...chromiumArgs, `--screenshot=${shot}`, "--window-size=1100,1500", `file://${page}`], {
        timeout: 60_000,
        stdio: "ignore",
      });
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
      expect(statSync(shot).size).toBeGreaterThan(20_000);
      // HARNESS_KIT_SCREENSHOT=1 refreshes the picture the README shows
      if (process.env.HARNESS_KIT_SCREENSHOT === "1")
        copyFileSync(shot, new URL("../../docs/inspect-html.png", import.meta.url));
      expect(existsSync(new URL("../../docs/inspect-html.png", import.meta.url))).toBe(true);
    },
  );
});

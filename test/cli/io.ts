import type { CliIo } from "../../src/cli/cli.js";

/** A CliIo that records what the CLI writes; `tty` makes both streams look like a terminal. */
export function captureIo(options: { tty?: boolean; env?: Record<string, string | undefined> } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo & { stdout: () => string; stderr: () => string; stdoutLines: () => string[] } = {
    stdout: Object.assign(() => out.join(""), { write: (text: string) => out.push(text), isTTY: options.tty ?? false }),
    stderr: Object.assign(() => err.join(""), { write: (text: string) => err.push(text), isTTY: options.tty ?? false }),
    env: options.env ?? {},
    stdoutLines: () =>
      out
        .join("")
        .split("\n")
        .filter((line) => line !== ""),
  };
  return io;
}

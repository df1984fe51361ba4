/**
 * Whether a shell call only reads: a tool that runs any command (`bash`, `shell`) changes the
 * world or not by the command it is given, not by its name. A command reads when every program
 * in it (split at `|`, `&&`, `||`, `;` and line breaks, after an optional `cd`) is one that
 * only reads (`cat`, `grep`, `find`, `ls`, `sed -n`, `git diff` ...) and nothing is written to a
 * file (`>`, `>>`, `tee`, `sed -i`, `find -delete`). Anything else, a script or a test run
 * among them, may change the world: when in doubt, a command counts as a change.
 */
export function isReadOnlyCommand(args: unknown): boolean {
  const command = commandOf(args);
  if (command === undefined) return false;
  // The guards ask about the same call's arguments (the same object) at every step: answer once.
  let known = byArgs.get(args as object);
  if (known === undefined) byArgs.set(args as object, (known = readsOnly(command)));
  return known;
}

const byArgs = new WeakMap<object, boolean>();

/** The command of a shell call: a `command` or `cmd` argument, and nothing else besides options of its run. */
function commandOf(args: unknown): string | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  const record = args as Record<string, unknown>;
  const command = record.command ?? record.cmd;
  return typeof command === "string" && command.length <= MAX_COMMAND_CHARS ? command : undefined;
}

/** A longer command is a script, not a look-up. */
const MAX_COMMAND_CHARS = 2000;

/** Programs that only read what they are pointed at and print it. */
const READERS = new Set([
  "cat",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "find",
  "ls",
  "ll",
  "head",
  "tail",
  "wc",
  "nl",
  "sed",
  "awk",
  "sort",
  "uniq",
  "cut",
  "tr",
  "diff",
  "cmp",
  "file",
  "stat",
  "tree",
  "pwd",
  "echo",
  "printf",
  "which",
  "type",
  "du",
  "df",
  "realpath",
  "dirname",
  "basename",
  "less",
  "more",
  "od",
  "xxd",
  "hexdump",
  "strings",
  "column",
  "true",
  "readlink",
  "date",
]);

/** git subcommands that only read the repository. */
const GIT_READERS = new Set([
  "status",
  "diff",
  "log",
  "show",
  "grep",
  "blame",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "describe",
  "shortlog",
]);

/**
 * A command's first word when nothing before or in it could change which program runs: no
 * quote, variable, redirection or assignment (those go the long way).
 */
const FIRST_WORD = /^\s*([\w./+-]+)(?=[\s;|&]|$)/;
/** First words of a command that may only read: a reader, `git` or `cd`. */
const STARTS_READ_ONLY = new Set([...READERS, "git", "cd"]);

// Quoted text is an argument (a pattern, a message): it runs nothing and redirects nothing.
const QUOTED = /'[^']*'|"(?:[^"\\]|\\.)*"/g;
// Redirections that write no file: to /dev/null, or one stream into another.
const HARMLESS_REDIRECT = /&?\d*>>?\s*\/dev\/null|\d*>&\d/g;
const WRITES = /[<>]\(|>|\btee\b|\bsed\s+(?:-[a-zA-Z]*i|--in-place)|-delete\b|-exec(?:dir)?\b|-ok\b|\$\(|`|\bxargs\b/;
const SEPARATORS = /\|\||&&|[|;\n&]/;

function readsOnly(command: string): boolean {
  // Most commands run a script or a test first: tell them from their first word, without
  // reading the whole command (a heredoc may be thousands of characters).
  const first = FIRST_WORD.exec(command)?.[1];
  if (first !== undefined && !STARTS_READ_ONLY.has(first.replace(/^.*\//, ""))) return false;
  const bare = command.replace(QUOTED, "''").replace(HARMLESS_REDIRECT, " ");
  // A here-document feeds text to a program; it is read-only only if that program is.
  if (WRITES.test(bare)) return false;
  for (const part of bare.split(SEPARATORS)) {
    const words = part
      .trim()
      .split(/\s+/)
      .filter((w) => w.length > 0 && !/^\w+=/.test(w));
    if (words.length === 0) continue;
    const program = words[0]!.replace(/^.*\//, "");
    if (program === "cd") continue;
    if (program === "git") {
      const sub = words.slice(1).find((w) => !w.startsWith("-"));
      if (sub === undefined || !GIT_READERS.has(sub)) return false;
      continue;
    }
    if (!READERS.has(program)) return false;
  }
  return true;
}

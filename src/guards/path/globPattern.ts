export type PatternPaths = { ok: true; paths: string[] } | { ok: false; problem: "pattern_too_complex" };

/** Brace alternatives expanded at most; `**\/*.{ts,tsx,js,jsx}` needs four. */
const MAX_EXPANSIONS = 256;
const NUMERIC_RANGE = /^\{-?\d+\.\.-?\d+(?:\.\.-?\d+)?\}$/;
const CHAR_RANGE = /^\{([^{}])\.\.([^{}])(?:\.\.-?\d+)?\}$/;
const LETTERS = /^[a-z]$|^[A-Z]$/;

/**
 * The paths a glob pattern can reach, so that a glob's `pattern` is confined like any path:
 * `glob("../outside/*")` walks `../outside`. Brace alternatives are expanded (`{..,src}/*` is
 * `../*` and `src/*`), a range that could yield a dot or a separator counts as `..`, glob escapes
 * are undone (`\.\.` is `..`) and, as some tools do, also read as separators, and a wildcard
 * component that a globber could match against `..` is read as `..`. Globbers list directories with readdir, which never returns `.` or `..`, but
 * node-glob adds both for a component that starts with a dot (`.*`), so only those count.
 * Other wildcard components stay as written: they name entries of the directory they are in.
 * What a wildcard matches through a symbolic link is up to the tool: deepagents' glob does not
 * follow links; a globber that does can list names (not contents) below a link.
 */
export function patternPaths(pattern: string): PatternPaths {
  const paths = new Set<string>();
  // POSIX globbers read a backslash as an escape; Windows ones, and tools that normalise
  // patterns first, as a separator: `..\secret\*` is `../secret/*` to them
  const readings = pattern.includes("\\") ? [pattern, pattern.replaceAll("\\", "/")] : [pattern];
  for (const reading of readings) {
    const expansions = expandBraces(reading);
    if (expansions === undefined) return { ok: false, problem: "pattern_too_complex" };
    for (const expansion of expansions) paths.add(expansion.split("/").map(componentReading).join("/"));
  }
  return { ok: true, paths: [...paths] };
}

/** What a component of an expanded pattern stands for when checked as a path. */
function componentReading(component: string): string {
  if (component.includes(ANY_CHARACTER)) return "..";
  if (!isDynamic(component)) return component.replace(/\\(.)/g, "$1");
  return component.replace(/^\\/, "").startsWith(".") && couldMatch(component, "..") ? ".." : component;
}

function isDynamic(component: string): boolean {
  return /(?<!\\)(?:[*?[]|[@!+](?=\())/.test(component);
}

/** Whether the glob component could match `name`; an unreadable class counts as a match. */
function couldMatch(component: string, name: string): boolean {
  let source = "";
  for (let i = 0; i < component.length; i++) {
    const ch = component[i]!;
    if (ch === "\\" && i + 1 < component.length) {
      source += escapeRegExp(component[++i]!);
    } else if ("@!+*?".includes(ch) && component[i + 1] === "(") {
      const close = component.indexOf(")", i);
      source += ".*";
      i = close === -1 ? component.length : close;
    } else if (ch === "*") {
      source += ".*";
    } else if (ch === "?") {
      source += ".";
    } else if (ch === "[") {
      const close = component.indexOf("]", i + 2);
      if (close === -1) {
        source += "\\[";
        continue;
      }
      const body = component
        .slice(i + 1, close)
        .replace(/^!/, "^")
        .replace(/\\(?!\])/g, "\\\\");
      source += `[${body}]`;
      i = close;
    } else {
      source += escapeRegExp(ch);
    }
  }
  try {
    return new RegExp(`^${source}$`, "s").test(name);
  } catch {
    return true;
  }
}

function escapeRegExp(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}

/** Stands for a range that may yield `.` or `/` (`{-..0}`): its component counts as `..`. */
const ANY_CHARACTER = "\uE000";

/** Every alternative of `{a,b}` groups, innermost first; undefined beyond MAX_EXPANSIONS. */
function expandBraces(pattern: string): string[] | undefined {
  const done: string[] = [];
  const pending = [pattern];
  while (pending.length > 0) {
    const text = pending.pop()!;
    const group = firstGroup(text);
    if (!group) {
      done.push(text);
    } else {
      const { start, end, alternatives } = group;
      for (const alternative of alternatives) pending.push(text.slice(0, start) + alternative + text.slice(end + 1));
    }
    if (done.length + pending.length > MAX_EXPANSIONS) return undefined;
  }
  return done;
}

/** The first innermost `{...}` group: its alternatives, or a stand-in for a range. */
function firstGroup(text: string): { start: number; end: number; alternatives: string[] } | undefined {
  const opens: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++;
    } else if (ch === "{") {
      opens.push(i);
    } else if (ch === "}" && opens.length > 0) {
      const start = opens.pop()!;
      const body = text.slice(start + 1, i);
      const alternatives = splitTopLevel(body);
      if (alternatives.length > 1) return { start, end: i, alternatives };
      const group = text.slice(start, i + 1);
      if (NUMERIC_RANGE.test(group)) return { start, end: i, alternatives: ["0"] };
      const range = CHAR_RANGE.exec(group);
      if (range)
        return {
          start,
          end: i,
          alternatives: [LETTERS.test(range[1]!) && LETTERS.test(range[2]!) ? "a" : ANY_CHARACTER],
        };
    }
  }
  return undefined;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\") i++;
    else if (ch === "{") depth++;
    else if (ch === "}") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(body.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(body.slice(from));
  return parts;
}

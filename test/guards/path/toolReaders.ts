import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { unescape } from "node:querystring";
import { fileURLToPath } from "node:url";
import { SECRET_MARK } from "./pathTree.js";

/**
 * How real tools turn a path argument into the string they open, written independently of the
 * guard (the test oracle): each reader applies what one kind of tool does, then the operating
 * system resolves the result for real. A path the guard allows must not let any of them touch
 * anything outside the root.
 */
export interface ToolReader {
  name: string;
  /** The string the tool hands to `fs`, or undefined when this tool would refuse the argument. */
  open(argument: string, base: string): string | undefined;
}

const at = (base: string, p: string) => (path.isAbsolute(p) ? p : `${base}/${p}`);

export const TOOL_READERS: ToolReader[] = [
  { name: "path.resolve", open: (p, base) => path.resolve(base, p) },
  { name: "path.join", open: (p, base) => (path.isAbsolute(p) ? path.normalize(p) : path.join(base, p)) },
  { name: "kernel (raw string)", open: (p, base) => at(base, p) },
  { name: "trim", open: (p, base) => path.resolve(base, p.trim()) },
  { name: "querystring.unescape until stable", open: (p, base) => path.resolve(base, untilStable(p, unescape)) },
  { name: "decodeURIComponent until it throws", open: (p, base) => path.resolve(base, untilStable(p, strictDecode)) },
  { name: "NFKC", open: (p, base) => path.resolve(base, p.normalize("NFKC")) },
  { name: "expanduser", open: (p, base) => path.resolve(base, expandUser(p)) },
  { name: "backslashes as separators", open: (p, base) => path.resolve(base, p.replaceAll("\\", "/")) },
  {
    name: "file URL",
    open: (p, base) => (p.startsWith("file:") ? safe(() => fileURLToPath(p)) : path.resolve(base, p)),
  },
  {
    name: "everything a sloppy tool does, then the kernel",
    open: (p, base) =>
      at(
        base,
        expandUser(
          untilStable(untilStable(p.normalize("NFKC").trim(), unescape).normalize("NFKC").trim(), unescape).replaceAll(
            "\\",
            "/",
          ),
        ),
      ),
  },
  // deepagents' FilesystemBackend in its default (non-virtual) mode, copied from its resolvePath
  { name: "deepagents FilesystemBackend", open: (p, base) => (path.isAbsolute(p) ? p : path.resolve(base, p)) },
];

/** What a read through `opened` shows of the outside: a secret's text, or the listing of a directory outside `root`. */
export function readLeaks(opened: string, root: string): string | undefined {
  try {
    if (statSync(opened).isDirectory()) {
      readdirSync(opened);
      const real = realpathSync(opened);
      return real === root || real.startsWith(`${root}/`) ? undefined : `listing of ${real}`;
    }
    const text = readFileSync(opened, "utf8");
    return text.includes(SECRET_MARK) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes through `opened` as a file tool would (creating parent directories), but only where the
 * write lands inside `root`: a write that would land anywhere else is reported, never made, so a
 * broken guard cannot damage the machine the tests run on. Returns the escape, if any.
 */
export function writeProbe(opened: string, root: string): string | undefined {
  let landing: string | undefined;
  try {
    landing = landingOf(opened, 0);
  } catch (error) {
    return `write through ${JSON.stringify(opened)} could not be placed: ${String(error)}`;
  }
  if (landing === undefined) return undefined; // the kernel would refuse the write (a file used as a directory)
  if (landing !== root && !landing.startsWith(`${root}/`)) return `write would land at ${landing}`;
  try {
    mkdirSync(path.dirname(opened), { recursive: true });
    writeFileSync(opened, "probe");
  } catch {
    // a path that cannot be written is not an escape
  }
  return undefined;
}

/** Where a write of `argument` could land, by every reader: to keep write tests off the rest of the machine. */
export function writeLandings(argument: string, base: string): Array<string | undefined> {
  return TOOL_READERS.map((reader) => {
    const opened = reader.open(argument, base);
    if (opened === undefined) return undefined;
    try {
      return landingOf(opened, 0);
    } catch {
      return "unknown";
    }
  });
}

/**
 * Where the kernel puts a file written at `raw`: the longest prefix that exists, resolved by
 * realpath(3) (which applies `..` after symbolic links as the kernel does), then the missing
 * rest as mkdir -p creates it. A dangling symbolic link is followed to where its target would be.
 */
function landingOf(raw: string, depth: number): string | undefined {
  if (depth > 8) throw new Error("too many dangling links");
  const parts = raw.split("/");
  for (let cut = parts.length; cut > 0; cut--) {
    const prefix = parts.slice(0, cut).join("/") || "/";
    let stats;
    try {
      stats = lstatSync(prefix, { throwIfNoEntry: false });
    } catch (error) {
      if ((error as { code?: string }).code === "ENOTDIR") return undefined;
      throw error;
    }
    if (!stats) continue;
    const rest = parts.slice(cut).join("/");
    try {
      return path.resolve(realpathSync.native(prefix), rest);
    } catch {
      if (!stats.isSymbolicLink()) throw new Error(`cannot resolve ${prefix}`);
      const parent = realpathSync.native(parts.slice(0, cut - 1).join("/") || "/");
      return landingOf(`${path.resolve(parent, readlinkSync(prefix))}/${rest}`, depth + 1);
    }
  }
  throw new Error("no existing prefix");
}

function untilStable(text: string, step: (t: string) => string): string {
  for (let i = 0; i < 8; i++) {
    const next = step(text);
    if (next === text) return text;
    text = next;
  }
  return text;
}

function strictDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Python's os.path.expanduser, with the user database asked through getent. */
function expandUser(p: string): string {
  if (!p.startsWith("~")) return p;
  const end = p.indexOf("/") === -1 ? p.length : p.indexOf("/");
  const name = p.slice(1, end);
  if (name === "") return homedir() + p.slice(end);
  const home = safe(
    () =>
      execFileSync("getent", ["passwd", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split(":")[5],
  );
  return home ? home + p.slice(end) : p;
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

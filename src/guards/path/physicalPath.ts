import { existsSync, lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import path from "node:path";

/** Symbolic links followed before giving up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;

/** A path that cannot be resolved safely: a symlink loop, or a directory we may not read. */
export class UnresolvablePathError extends Error {
  constructor(
    readonly code: string,
    readonly target: string,
  ) {
    super(`cannot resolve ${target}: ${code}`);
    this.name = "UnresolvablePathError";
  }
}

const MISSING = new Set(["ENOENT", "ENOTDIR"]);

/**
 * Where an absolute path really leads, the way the operating system would walk it: symbolic
 * links in every component are followed and `..` is applied after them (`/root/link/..` is the
 * parent of the link's target, not `/root`). For a path that does not exist yet, the existing
 * part is resolved and the rest appended, so a file about to be written under a symlinked
 * directory, or through a dangling symlink, is judged by where it would land.
 */
export function physicalPath(absolute: string): string {
  // existsSync answers "no" without building an exception, which costs more than the lookup
  if (existsSync(absolute)) {
    try {
      return realpathSync.native(absolute);
    } catch (error) {
      if (!MISSING.has(codeOf(error))) throw new UnresolvablePathError(codeOf(error), absolute);
    }
  }
  const base = path.basename(absolute);
  if (base !== "" && base !== "." && base !== ".." && !/[\\/]$/.test(absolute)) {
    const inParent = newEntryInExistingParent(path.dirname(absolute), base);
    if (inParent !== undefined) return inParent;
  }
  return walk(absolute);
}

/** The common case of a new file in an existing directory: a few system calls instead of a walk. */
function newEntryInExistingParent(parent: string, base: string): string | undefined {
  if (!existsSync(parent)) return undefined;
  let realParent: string;
  try {
    realParent = realpathSync.native(parent);
  } catch {
    return undefined;
  }
  const entry = path.join(realParent, base);
  // an entry that exists after all is a dangling symlink (or a loop): walk it
  return entryStats(entry) === undefined ? entry : undefined;
}

/** lstat without an exception for a missing entry; undefined when it does not exist. */
function entryStats(entry: string): Stats | undefined {
  try {
    return lstatSync(entry, { throwIfNoEntry: false });
  } catch (error) {
    if (MISSING.has(codeOf(error))) return undefined;
    throw new UnresolvablePathError(codeOf(error), entry);
  }
}

/**
 * Every place the kernel's walk of `absolute` stands on, in order, ending where it leads: with
 * `..` the walk can pass through directories that neither the start nor the end shows.
 */
export function physicalTrail(absolute: string): string[] {
  const trail: string[] = [];
  trail.push(walk(absolute, (place) => trail.push(place)));
  return trail;
}

function walk(absolute: string, visit?: (place: string) => void): string {
  const { root } = path.parse(absolute);
  let current = root;
  const queue = split(absolute.slice(root.length));
  let links = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === ".") continue;
    if (part === "..") {
      current = path.dirname(current);
      visit?.(current);
      continue;
    }
    const next = path.join(current, part);
    const stats = entryStats(next);
    current = next;
    // A link is a name the walk passes, not a place it stands on: it goes on from the target.
    if (!stats?.isSymbolicLink()) {
      visit?.(current);
      continue;
    }
    if (++links > MAX_LINKS) throw new UnresolvablePathError("ELOOP", absolute);
    const target = readlinkSync(next);
    if (path.isAbsolute(target)) {
      const targetRoot = path.parse(target).root;
      current = targetRoot;
      queue.unshift(...split(target.slice(targetRoot.length)));
    } else {
      current = path.dirname(next);
      queue.unshift(...split(target));
    }
  }
  return current;
}

function split(relative: string): string[] {
  return relative.split(path.sep === "\\" ? /[\\/]+/ : /\/+/).filter((part) => part !== "");
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "EUNKNOWN";
}

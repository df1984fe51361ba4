import { lstatSync } from "node:fs";
import path from "node:path";
import type { HomeDirs } from "./homeDirs.js";
import { pathForms, type PathFormProblem, type PathReading } from "./pathForms.js";
import { physicalPath, physicalTrail, UnresolvablePathError } from "./physicalPath.js";

export interface ResolveInsideOptions {
  /** Directory relative paths are resolved against. Default `process.cwd()` (what `node:fs` uses). */
  baseDir?: string;
  /**
   * Absolute paths name places below `baseDir`, as deepagents' `FilesystemBackend({ virtualMode: true })`
   * reads them (`/docs/a.md` is `<baseDir>/docs/a.md`), instead of places on the host. Default false.
   */
  virtualPaths?: boolean;
  /** Where `~` and `~name` lead. Default: this process's home and the system's user database. */
  homes?: HomeDirs;
}

/**
 * Why a path is not inside the roots:
 * - `outside_roots`: as written, it leads outside;
 * - `through_symlink`: as written it looks inside, but a symbolic link leads outside;
 * - `parent_after_symlink`: `..` after a symbolic link means one place to the kernel (the link's
 *   parent) and another to `path.resolve` (the parent as written), and one of them is outside;
 * - `outside_on_the_way`: it ends inside, but its `..` steps pass through a place outside (not a
 *   root's ancestor) first, where `mkdir -p` would create directories and whose links decide the end;
 * - `other_reading`: a tool that trims, percent-decodes, normalises Unicode, expands `~` or reads
 *   backslashes as separators would reach a place outside;
 * - `unresolvable`: a symbolic link loop or an unreadable directory;
 * - the problems of `pathForms` (NUL bytes, foreign Windows forms, overlong escapes, ...).
 */
export type PathViolation =
  | PathFormProblem
  | "outside_roots"
  | "through_symlink"
  | "parent_after_symlink"
  | "outside_on_the_way"
  | "other_reading"
  | "unresolvable";

export type PathCheck =
  | { ok: true; path: string; root: string }
  | { ok: false; violation: PathViolation; roots: string[]; detail?: string; reading?: PathReading };

/** The roots as given (resolved against the base) and as they really are. */
interface Roots {
  lexical: string[];
  real: string[];
}

/**
 * Checks that `input` names something inside one of `roots` (or a root itself), however a tool
 * reads it. Every reading from `pathForms` (as written, trimmed, percent-decoded, NFKC-normalised,
 * `~` expanded, ...) is resolved two ways, and each must stay inside:
 * - lexically, as `path.resolve`, `path.join` and deepagents' `FilesystemBackend` do (`..` removes
 *   the component written before it), then through the symbolic links of what remains;
 * - physically, as the kernel walks it (`..` applied after each symbolic link, see `physicalPath`).
 * Roots are compared on a separator boundary, so `/data-private` is not inside `/data`. Names that
 * merely contain dots (`report..final.md`, `[...slug].tsx`) are fine; an empty path is the base.
 *
 * Returns the canonical path: the most plausible reading resolved lexically, with the symbolic
 * links of its directories resolved and its last component kept, so that a tool deleting or
 * renaming a link acts on the link and not on its target.
 *
 * @example
 * const where = resolveInside(["/srv/data"], args.path);
 * if (!where.ok) throw new Error(`refused: ${where.violation}`);
 * await fs.promises.readFile(where.path);
 */
export function resolveInside(roots: readonly string[], input: unknown, options: ResolveInsideOptions = {}): PathCheck {
  return check(roots, input, options, "every", true);
}

/**
 * `resolveInside` without the canonical path, which costs another system call: for a caller that
 * passes the argument on as written. `path` is then where the path as written really leads.
 */
export function confirmInside(roots: readonly string[], input: unknown, options: ResolveInsideOptions = {}): PathCheck {
  return check(roots, input, options, "every", false);
}

/**
 * Checks only the canonical reading (see `resolveInside`). For a caller that then hands the tool
 * the returned path instead of `input`, so that no other reading of `input` matters; the returned
 * path itself must still pass `resolveInside` before it is used.
 */
export function resolveCanonical(
  roots: readonly string[],
  input: unknown,
  options: ResolveInsideOptions = {},
): PathCheck {
  return check(roots, input, options, "canonical", true);
}

function check(
  roots: readonly string[],
  input: unknown,
  options: ResolveInsideOptions,
  which: "every" | "canonical",
  canonicalPath: boolean,
): PathCheck {
  const base = path.resolve(options.baseDir ?? process.cwd());
  let resolvedRoots: Roots;
  try {
    const lexical = roots.map((root) => path.resolve(base, root));
    resolvedRoots = { lexical, real: lexical.map(physicalPath) };
  } catch (error) {
    return { ok: false, violation: "unresolvable", roots: [...roots], detail: detailOf(error) };
  }
  const forms = pathForms(input, { homes: options.homes });
  if (!forms.ok) return { ok: false, violation: forms.problem, roots: resolvedRoots.real };

  const readings = which === "every" ? forms.readings : forms.readings.slice(0, 1);
  let canonical: { path: string; root: string } | undefined;
  for (const [index, reading] of readings.entries()) {
    let judged: Judgement;
    try {
      judged = judge(reading.text, base, resolvedRoots, options.virtualPaths ?? false, index === 0, canonicalPath);
    } catch (error) {
      return { ok: false, violation: "unresolvable", roots: resolvedRoots.real, detail: detailOf(error), reading };
    }
    if (!judged.inside) {
      const violation = index === 0 ? judged.violation : "other_reading";
      return { ok: false, violation, roots: resolvedRoots.real, ...(index === 0 ? {} : { reading }) };
    }
    if (index === 0) canonical = judged.canonical;
  }
  return { ok: true, ...canonical! };
}

type Judgement =
  | { inside: true; canonical?: { path: string; root: string } }
  | { inside: false; violation: "outside_roots" | "through_symlink" | "parent_after_symlink" | "outside_on_the_way" };

const PARENT_STEP = path.sep === "\\" ? /(?:^|[\\/])\.\.(?:[\\/]|$)/ : /(?:^|\/)\.\.(?:\/|$)/;

/** Where one reading leads, lexically and physically; throws `UnresolvablePathError`. */
function judge(
  text: string,
  base: string,
  roots: Roots,
  virtualPaths: boolean,
  wantCanonical: boolean,
  keepLink: boolean,
): Judgement {
  const written = text === "" ? base : path.isAbsolute(text) && !virtualPaths ? text : `${base}${path.sep}${text}`;
  const lexical = path.resolve(written);
  const physical = physicalPath(lexical);
  const root = roots.real.find((candidate) => isWithin(candidate, physical));
  // Without a `..` the kernel's walk ends where the lexical one does: one walk is enough.
  const trail = PARENT_STEP.test(text) ? physicalTrail(written) : undefined;
  const kernel = trail?.at(-1) ?? physical;
  const kernelInside =
    kernel === physical ? root !== undefined : roots.real.some((candidate) => isWithin(candidate, kernel));

  if (root === undefined && !kernelInside) {
    const looksInside = [...roots.lexical, ...roots.real].some((candidate) => isWithin(candidate, lexical));
    return { inside: false, violation: looksInside ? "through_symlink" : "outside_roots" };
  }
  if (root === undefined || !kernelInside) return { inside: false, violation: "parent_after_symlink" };
  const strays = trail?.some(
    (place) => !roots.real.some((candidate) => isWithin(candidate, place) || isWithin(place, candidate)),
  );
  if (strays) return { inside: false, violation: "outside_on_the_way" };
  if (!wantCanonical) return { inside: true };
  return { inside: true, canonical: { path: keepLink ? keepLastLink(lexical, physical) : physical, root } };
}

/** The real path of `lexical`'s directory joined with its last component when that is a symbolic link. */
function keepLastLink(lexical: string, physical: string): string {
  const parent = path.dirname(lexical);
  if (parent === lexical) return physical;
  if (!isSymbolicLink(lexical)) return physical;
  return path.join(physicalPath(parent), path.basename(lexical));
}

function isSymbolicLink(entry: string): boolean {
  try {
    return lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    return false; // below a file (ENOTDIR): nothing there, link or not
  }
}

/** `child` is `parent` or below it; a shared name prefix (`/data` and `/data-private`) is not enough. */
export function isWithin(parent: string, child: string): boolean {
  const fold = process.platform === "win32" ? (p: string) => p.toLowerCase() : (p: string) => p;
  const p = fold(parent);
  const c = fold(child);
  if (c === p) return true;
  return c.startsWith(p.endsWith(path.sep) ? p : p + path.sep);
}

function detailOf(error: unknown): string {
  return error instanceof UnresolvablePathError ? error.code : String(error);
}

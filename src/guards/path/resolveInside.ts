import path from "node:path";
import { pathForms, type PathFormProblem } from "./pathForms.js";
import { physicalPath, UnresolvablePathError } from "./physicalPath.js";

export interface ResolveInsideOptions {
  /** Directory relative paths are resolved against. Default `process.cwd()` (what `node:fs` uses). */
  baseDir?: string;
}

/** Why a path is not inside the roots. */
export type PathViolation = PathFormProblem | "outside_roots" | "through_symlink" | "unresolvable";

export type PathCheck =
  | { ok: true; path: string; root: string }
  | { ok: false; violation: PathViolation; roots: string[]; detail?: string };

/**
 * Checks that `input` names something inside one of `roots` (or a root itself), however a tool
 * reads it: every reading from `pathForms` is resolved to where it really leads (`physicalPath`)
 * and compared with the roots' real paths on a separator boundary, so `/data-private` is not
 * inside `/data`. Names that merely contain dots (`report..final.md`, `[...slug]`) are fine.
 * Returns the real path to use (of the path as written) and the root it is in.
 *
 * @example
 * const where = resolveInside(["/srv/data"], args.path);
 * if (!where.ok) throw new Error(`refused: ${where.violation}`);
 * await fs.promises.readFile(where.path);
 */
export function resolveInside(roots: readonly string[], input: unknown, options: ResolveInsideOptions = {}): PathCheck {
  const base = options.baseDir ?? process.cwd();
  let realRoots: string[];
  try {
    realRoots = roots.map((root) => physicalPath(path.resolve(base, root)));
  } catch (error) {
    return { ok: false, violation: "unresolvable", roots: [...roots], detail: detailOf(error) };
  }
  const forms = pathForms(input);
  if (!forms.ok) return { ok: false, violation: forms.problem, roots: realRoots };

  // The most decoded readings come last in `forms` and are the likeliest to escape: judge them
  // first, so a refusal costs as few filesystem walks as possible.
  let asWritten: { path: string; root: string } | undefined;
  for (let i = forms.forms.length - 1; i >= 0; i--) {
    const form = forms.forms[i]!;
    const absolute = path.isAbsolute(form) ? form : `${base}${path.sep}${form}`;
    let real: string;
    try {
      real = physicalPath(absolute);
    } catch (error) {
      return { ok: false, violation: "unresolvable", roots: realRoots, detail: detailOf(error) };
    }
    const root = realRoots.find((candidate) => isWithin(candidate, real));
    if (root === undefined) {
      const lexicallyInside = realRoots.some((candidate) => isWithin(candidate, path.resolve(absolute)));
      return { ok: false, violation: lexicallyInside ? "through_symlink" : "outside_roots", roots: realRoots };
    }
    if (i === 0) asWritten = { path: real, root };
  }
  return { ok: true, ...asWritten! };
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

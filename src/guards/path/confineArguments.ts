import path from "node:path";
import { patternPaths } from "./globPattern.js";
import type { HomeDirs } from "./homeDirs.js";
import {
  findPathArguments,
  replaceArguments,
  type ArgumentKind,
  type ArgumentLocation,
  type FoundArgument,
} from "./pathArguments.js";
import type { PathReading } from "./pathForms.js";
import {
  confirmInside,
  resolveCanonical,
  resolveInside,
  type PathCheck,
  type PathViolation,
  type ResolveInsideOptions,
} from "./resolveInside.js";

export interface ConfineOptions {
  roots: readonly string[];
  /** Argument names to check, each as a path or a glob pattern. */
  names: ReadonlyMap<string, ArgumentKind>;
  baseDir: string;
  virtualPaths: boolean;
  /** Hand the tool the canonical path instead of refusing a path that only some readings keep inside. Not with `virtualPaths`. */
  rewrite: boolean;
  homes?: HomeDirs;
}

/** Why one argument of a call is refused. */
export interface ArgumentRefusal {
  at: ArgumentLocation;
  value: string;
  kind: ArgumentKind;
  violation: PathViolation | "pattern_too_complex" | "too_deep";
  roots: readonly string[];
  /** The reading that leaves the roots, when it is not the path as written. */
  reading?: PathReading;
  detail?: string;
  /** The value is not what the model sent but what the tool's schema made of it (a default, an alias). */
  filledInByTool?: boolean;
  /** The value is a key of the object at `at`. */
  isKey?: true;
}

export interface Rewrite {
  at: ArgumentLocation;
  from: string;
  to: string;
}

export type Confinement = { ok: true; args: unknown; rewrites: Rewrite[] } | { ok: false; refusal: ArgumentRefusal };

/**
 * Judges every path and pattern argument of one call (see `findPathArguments`): the first one
 * that leaves the roots refuses the call. With `rewrite`, a path whose canonical reading is inside
 * is replaced by that canonical path, provided every reading of the replacement is inside too
 * (`%2e%2e/x` stays refused: its canonical form still decodes to a parent). Patterns are never
 * rewritten: each path they can reach, from the base and from a `path` next to them, must pass.
 */
export function confineArguments(args: unknown, options: ConfineOptions): Confinement {
  const found = findPathArguments(args, options.names);
  if (!found.ok)
    return { ok: false, refusal: { at: [], value: "", kind: "path", violation: "too_deep", roots: options.roots } };
  const rewrites: Rewrite[] = [];
  const resolveOptions: ResolveInsideOptions = {
    baseDir: options.baseDir,
    virtualPaths: options.virtualPaths,
    homes: options.homes,
  };
  // paths first: a refused search directory says more than the pattern that would search it
  const ordered = [...found.found].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "path" ? -1 : 1));
  for (const argument of ordered) {
    if (argument.kind === "pattern") {
      const refusal = patternRefusal(argument, options, resolveOptions);
      if (refusal) return { ok: false, refusal };
      continue;
    }
    // a key is never rewritten: renaming it would change which value the tool pairs with it
    const rewrite = options.rewrite && !argument.isKey;
    const check = rewrite
      ? rewritten(argument.value, options.roots, resolveOptions)
      : confirmInside(options.roots, argument.value, resolveOptions);
    if (!check.ok) return { ok: false, refusal: refusalOf(argument, check) };
    if (rewrite && check.path !== argument.value)
      rewrites.push({ at: argument.at, from: argument.value, to: check.path });
  }
  return {
    ok: true,
    args:
      rewrites.length > 0
        ? replaceArguments(
            args,
            rewrites.map(({ at, to }) => ({ at, value: to })),
          )
        : args,
    rewrites,
  };
}

/** The canonical path, checked again as the string the tool will now receive. */
function rewritten(value: string, roots: readonly string[], options: ResolveInsideOptions): PathCheck {
  const canonical = resolveCanonical(roots, value, options);
  if (!canonical.ok) return canonical;
  const recheck = resolveInside(roots, canonical.path, options);
  return recheck.ok ? canonical : recheck;
}

function patternRefusal(
  argument: FoundArgument,
  options: ConfineOptions,
  resolveOptions: ResolveInsideOptions,
): ArgumentRefusal | undefined {
  const reached = patternPaths(argument.value);
  if (!reached.ok)
    return {
      at: argument.at,
      value: argument.value,
      kind: "pattern",
      violation: reached.problem,
      roots: options.roots,
      ...(argument.isKey ? { isKey: true as const } : {}),
    };
  const bases = [options.baseDir, ...argument.siblings.map((sibling) => baseOf(sibling, options))];
  for (const reachedPath of reached.paths) {
    // deepagents' glob drops a leading "/" and searches below its base; other globbers do not
    const readings =
      !options.virtualPaths && path.isAbsolute(reachedPath)
        ? [reachedPath, reachedPath.replace(/^[\\/]+/, "")]
        : [reachedPath];
    for (const baseDir of bases) {
      for (const reading of readings) {
        const check = confirmInside(options.roots, reading, { ...resolveOptions, baseDir });
        if (!check.ok) return refusalOf(argument, check);
      }
    }
  }
  return undefined;
}

function baseOf(sibling: string, options: ConfineOptions): string {
  if (options.virtualPaths && path.isAbsolute(sibling)) return path.join(options.baseDir, sibling);
  return path.resolve(options.baseDir, sibling);
}

function refusalOf(argument: FoundArgument, check: Extract<PathCheck, { ok: false }>): ArgumentRefusal {
  return {
    at: argument.at,
    value: argument.value,
    kind: argument.kind,
    violation: check.violation,
    roots: check.roots,
    ...(argument.isKey ? { isKey: true as const } : {}),
    ...(check.reading ? { reading: check.reading } : {}),
    ...(check.detail ? { detail: check.detail } : {}),
  };
}

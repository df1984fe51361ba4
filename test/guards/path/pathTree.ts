import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/**
 * A real directory tree with symlinks for path-confinement tests:
 *
 *   <top>/data            the root
 *     docs/report..final.md, docs/[...slug].tsx, docs/résumé.md, docs/100%.txt
 *     ..hidden, ...dots, a..b/c.txt, ~backup.txt, ~old/notes.txt, src/index.ts, " spaced.txt"
 *     releases/v2/app.txt
 *     current      -> releases/v2           (relative, stays inside; `current/../..` leaves lexically)
 *     link-inside  -> data/docs            (stays inside)
 *     link-out     -> <top>/secret         (directory outside)
 *     file-out     -> <top>/secret/passwd  (file outside)
 *     dangling-out -> <top>/secret/new.txt (does not exist yet, outside)
 *     dangling-in  -> data/new-target.txt  (does not exist yet, inside)
 *     loop-a -> loop-b -> loop-a
 *     nested/deep/escape -> ../../../secret (relative, escapes)
 *     chain-1 -> chain-2 -> <top>/secret   (a chain that ends outside)
 *     rel-in -> docs                       (relative, stays inside)
 *   <top>/data-private/secret.txt         (shares the root's name prefix)
 *   <top>/secret/passwd
 *   <top>/outside/secret.txt              (what `current/../../outside/secret.txt` reaches lexically)
 *   <top>/other                           (a second root)
 * Every file outside the root holds text starting with `SECRET`, so a leak is easy to spot.
 */
export interface PathTree {
  top: string;
  data: string;
  other: string;
  secret: string;
  /** Directories outside the root (other excluded): nothing may appear in them. */
  outsideDirs: string[];
  /** Every file below the outside directories, relative to top, with its size: compare before/after. */
  outsideSnapshot(): string[];
  cleanup(): void;
}

export const SECRET_MARK = "hk-secret-content";

export function makePathTree(): PathTree {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "hk-paths-")));
  const data = join(top, "data");
  const secret = join(top, "secret");
  const other = join(top, "other");
  const outside = join(top, "outside");
  const dataPrivate = join(top, "data-private");
  const dirs = [
    data,
    secret,
    other,
    outside,
    dataPrivate,
    join(data, "docs"),
    join(data, "src"),
    join(data, "a..b"),
    join(data, "nested", "deep"),
    join(data, "releases", "v2"),
    join(data, "~old"),
  ];
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    [join(data, "docs", "report..final.md")]: "report",
    [join(data, "docs", "[...slug].tsx")]: "page",
    [join(data, "docs", "résumé.md")]: "cv",
    [join(data, "docs", "100%.txt")]: "percent",
    [join(data, "..hidden")]: "hidden",
    [join(data, "...dots")]: "dots",
    [join(data, "a..b", "c.txt")]: "c",
    [join(data, "~backup.txt")]: "backup",
    [join(data, "~old", "notes.txt")]: "old notes",
    [join(data, " spaced.txt")]: "spaced",
    [join(data, "src", "index.ts")]: "code",
    [join(data, "releases", "v2", "app.txt")]: "app v2",
    [join(dataPrivate, "secret.txt")]: `${SECRET_MARK} private`,
    [join(secret, "passwd")]: `${SECRET_MARK} root:x:0:0`,
    [join(outside, "secret.txt")]: `${SECRET_MARK} outside`,
    [join(other, "notes.md")]: "notes",
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(file, text);
  symlinkSync(join("releases", "v2"), join(data, "current"));
  symlinkSync(join(data, "docs"), join(data, "link-inside"));
  symlinkSync(secret, join(data, "link-out"));
  symlinkSync(join(secret, "passwd"), join(data, "file-out"));
  symlinkSync(join(secret, "new.txt"), join(data, "dangling-out"));
  symlinkSync(join(data, "new-target.txt"), join(data, "dangling-in"));
  symlinkSync("loop-b", join(data, "loop-a"));
  symlinkSync("loop-a", join(data, "loop-b"));
  symlinkSync(join("..", "..", "..", "secret"), join(data, "nested", "deep", "escape"));
  symlinkSync("chain-2", join(data, "chain-1"));
  symlinkSync(secret, join(data, "chain-2"));
  symlinkSync("docs", join(data, "rel-in"));
  const outsideDirs = [secret, outside, dataPrivate];
  const outsideSnapshot = () => {
    const entries: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else entries.push(`${relative(top, full)}:${statSync(full, { throwIfNoEntry: false })?.size ?? "link"}`);
      }
    };
    outsideDirs.forEach(walk);
    // a file written next to the root, or anywhere else in top outside data and other
    for (const entry of readdirSync(top))
      if (![...outsideDirs, data, other].includes(join(top, entry))) entries.push(entry);
    return entries.sort();
  };
  return {
    top,
    data,
    other,
    secret,
    outsideDirs,
    outsideSnapshot,
    cleanup: () => rmSync(top, { recursive: true, force: true }),
  };
}

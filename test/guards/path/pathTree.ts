import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real directory tree with symlinks for path-confinement tests:
 *
 *   <top>/data            the root
 *     docs/report..final.md, docs/[...slug].tsx, docs/résumé.md, docs/100%.txt
 *     ..hidden, ...dots, a..b/c.txt, ~backup.txt, src/index.ts
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
 *   <top>/other                           (a second root)
 */
export interface PathTree {
  top: string;
  data: string;
  other: string;
  secret: string;
  cleanup(): void;
}

export function makePathTree(): PathTree {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "hk-paths-")));
  const data = join(top, "data");
  const secret = join(top, "secret");
  const other = join(top, "other");
  for (const dir of [data, secret, other, join(top, "data-private"), join(data, "docs"), join(data, "src"), join(data, "a..b"), join(data, "nested", "deep")]) {
    mkdirSync(dir, { recursive: true });
  }
  const files: Record<string, string> = {
    [join(data, "docs", "report..final.md")]: "report",
    [join(data, "docs", "[...slug].tsx")]: "page",
    [join(data, "docs", "résumé.md")]: "cv",
    [join(data, "docs", "100%.txt")]: "percent",
    [join(data, "..hidden")]: "hidden",
    [join(data, "...dots")]: "dots",
    [join(data, "a..b", "c.txt")]: "c",
    [join(data, "~backup.txt")]: "backup",
    [join(data, "src", "index.ts")]: "code",
    [join(top, "data-private", "secret.txt")]: "private",
    [join(secret, "passwd")]: "root:x:0:0",
    [join(other, "notes.md")]: "notes",
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(file, text);
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
  return { top, data, other, secret, cleanup: () => rmSync(top, { recursive: true, force: true }) };
}

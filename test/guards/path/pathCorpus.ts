import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { PathViolation } from "../../../src/guards/path/resolveInside.js";
import type { PathTree } from "./pathTree.js";

/**
 * The path-confinement corpora, built on a real tree (pathTree.ts). Relative paths resolve against
 * the root. `attacks` each reach outside the root under at least one reading a tool could apply;
 * `legitimate` stay inside under every reading and must all be allowed.
 */
export interface Attack {
  path: string;
  why: string;
  violation?: PathViolation;
}

export interface Legitimate {
  path: string;
  why: string;
  /** The canonical path `resolveInside` returns, when the test pins it. */
  real?: string;
}

/** Traversals that escape lexically; each is also sent in every encoded or disguised form below. */
const ESCAPING_BASES = [
  "../secret/passwd",
  "../../../../../../etc/passwd",
  "docs/../../secret/passwd",
  "../outside/secret.txt",
  "../data-private/secret.txt",
  "a/b/../../../secret/new.txt",
  "..",
  "../",
];

/** The forms a tool may undo before it opens a path, each applied to every escaping base. */
export const DISGUISES: Record<string, (p: string) => string> = {
  "as written": (p) => p,
  "dots and slashes percent-encoded": (p) => encodeSpecials(p),
  "every character percent-encoded": (p) => encodeEvery(p),
  "double percent-encoding": (p) => encodeSpecials(p).replaceAll("%", "%25"),
  "four-fold percent-encoding": (p) => fourFold(p),
  "upper-case escapes": (p) => encodeSpecials(p).toUpperCase(),
  "encoded, then a stray %": (p) => `${encodeSpecials(p)}%2fx%`,
  "encoded, then a stray %zz": (p) => `${encodeSpecials(p)}%2fx%zz`,
  "encoded, then a truncated UTF-8 escape": (p) => `${encodeSpecials(p)}%2fx%E2%82`,
  "leading space": (p) => ` ${p}`,
  "leading tab and newline": (p) => `\t\n${p}`,
  "trailing space": (p) => `${p} `,
  "leading no-break space": (p) => `\u00a0${p}`,
  "leading ideographic space": (p) => `\u3000${p}`,
  "leading byte-order mark": (p) => `\ufeff${p}`,
  "fullwidth dots (NFKC)": (p) => p.replaceAll("..", "\uff0e\uff0e"),
  "two-dot leader (NFKC)": (p) => p.replaceAll("..", "\u2025"),
  "one-dot leaders (NFKC)": (p) => p.replaceAll("..", "\u2024\u2024"),
  "fullwidth solidus (NFKC)": (p) => p.replaceAll("/", "\uff0f"),
  "fullwidth percent-escapes (NFKC, then decoded)": (p) =>
    encodeSpecials(p).replace(/[%0-9a-fA-F]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
  "percent-encoded fullwidth dots": (p) => p.replaceAll("..", "%EF%BC%8E%EF%BC%8E"),
  backslashes: (p) => p.replaceAll("/", "\\"),
  "encoded backslashes": (p) => p.replaceAll("/", "%5c"),
  "space, then encoded": (p) => ` ${encodeSpecials(p)}`,
  "encoded leading space": (p) => `%20${p}`,
};

/** Four rounds: "." -> %2e -> %252e -> %25252e -> %2525252e. */
function encodeSpecials(p: string): string {
  return p.replace(/[./]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

function encodeEvery(p: string): string {
  return [...Buffer.from(p, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
}

export function fourFold(p: string): string {
  let text = encodeSpecials(p);
  for (let i = 0; i < 3; i++) text = text.replaceAll("%", "%25");
  return text;
}

export function attacks(t: PathTree): Attack[] {
  const listed: Attack[] = [
    { path: "/etc/passwd", why: "absolute path outside", violation: "outside_roots" },
    { path: "./../secret", why: "dot then parent" },
    { path: "docs/./../../secret/", why: "mixed dots with a trailing slash" },
    { path: "new-dir/../../secret/new.txt", why: "a new directory then back out" },
    {
      path: join(t.top, "data-private", "secret.txt"),
      why: "sibling sharing the root's name prefix",
      violation: "outside_roots",
    },
    { path: join(t.data, "..", "data-private", "x"), why: "absolute path with .. into the prefix sibling" },
    { path: join(t.top, "data-private"), why: "the prefix sibling itself" },
    { path: t.top, why: "the root's parent" },
    { path: "/", why: "the filesystem root" },
    { path: "link-out/passwd", why: "intermediate directory symlink pointing outside", violation: "through_symlink" },
    { path: "link-out", why: "directory symlink pointing outside" },
    { path: "link-out/new-file.txt", why: "a new file inside a symlinked outside directory" },
    { path: "file-out", why: "file symlink pointing outside", violation: "through_symlink" },
    { path: "dangling-out", why: "dangling symlink whose write would land outside" },
    {
      path: "link-out/../data-private/secret.txt",
      why: ".. applied after the symlink, not before (lexically inside)",
      violation: "parent_after_symlink",
    },
    { path: "link-inside/../../secret/passwd", why: "inside symlink then traversal" },
    {
      path: "current/../../outside/secret.txt",
      why: ".. after an in-root symlink: the kernel stays inside, path.resolve leaves",
      violation: "parent_after_symlink",
    },
    { path: "current/../../outside/new.txt", why: "the same, for a write", violation: "parent_after_symlink" },
    {
      path: "current/../../secret/passwd",
      why: ".. after an in-root symlink to an existing secret",
      violation: "parent_after_symlink",
    },
    { path: "current/../../../data-private/secret.txt", why: "one .. more after the in-root symlink" },
    {
      path: "../made-outside/../data/new.txt",
      why: "ends inside, but mkdir -p would create a directory outside on the way",
      violation: "outside_on_the_way",
    },
    {
      path: "link-out/../data/new.txt",
      why: "ends inside, through a directory outside that decides where",
      violation: "outside_on_the_way",
    },
    {
      path: "%252e%252e/v2/%2e%2e/data%2f~old/file-out",
      why: "the same detour, visible only after decoding twice",
      violation: "other_reading",
    },
    { path: "nested/deep/escape/passwd", why: "relative symlink deep in the tree that climbs out" },
    { path: "chain-1/passwd", why: "a chain of symlinks that ends outside" },
    { path: "loop-a", why: "symlink loop", violation: "unresolvable" },
    { path: "loop-a/x.txt", why: "file below a symlink loop", violation: "unresolvable" },
    { path: "docs\0.txt", why: "NUL byte", violation: "nul_byte" },
    { path: "/etc/passwd\0.md", why: "NUL byte hiding an extension", violation: "nul_byte" },
    { path: "docs%00.txt", why: "URL-encoded NUL byte", violation: "nul_byte" },
    { path: "docs%2500.txt", why: "double-encoded NUL byte", violation: "nul_byte" },
    { path: "%2Fetc%2Fpasswd", why: "URL-encoded absolute path", violation: "other_reading" },
    { path: "%c0%ae%c0%ae/secret/passwd", why: "overlong UTF-8 dots", violation: "overlong_utf8" },
    { path: "..%c0%afsecret%c0%afpasswd", why: "overlong UTF-8 slash", violation: "overlong_utf8" },
    { path: "%e0%80%ae%e0%80%ae/secret", why: "three-byte overlong dots", violation: "overlong_utf8" },
    { path: "file:///etc/passwd", why: "file URL outside" },
    { path: pathToFileURL(join(t.secret, "passwd")).href, why: "file URL to the secret" },
    { path: "file://remote-host/share/x", why: "file URL naming another host", violation: "bad_file_url" },
    { path: "~/.ssh/id_rsa", why: "home directory", violation: "other_reading" },
    { path: "~", why: "bare home directory", violation: "other_reading" },
    { path: "~root/.bashrc", why: "another user's home (root's is /root)", violation: "other_reading" },
    { path: "~postgres/.pgpass", why: "a service user's home (not a sibling of ours)", violation: "other_reading" },
    { path: "~backup/x", why: "a user whose name is also a file prefix in the root", violation: "other_reading" },
    { path: "%7E/.bashrc", why: "URL-encoded tilde", violation: "other_reading" },
    { path: "\uff5e/.bashrc", why: "fullwidth tilde (NFKC)", violation: "other_reading" },
    { path: "C:\\Windows\\System32\\config\\SAM", why: "Windows drive path", violation: "foreign_windows_path" },
    { path: "C:/Windows/win.ini", why: "Windows drive path with slashes", violation: "foreign_windows_path" },
    { path: "\\\\server\\share\\secret.txt", why: "Windows UNC path", violation: "foreign_windows_path" },
    { path: "\\\\?\\C:\\Windows", why: "Windows long-path device prefix", violation: "device_path" },
    { path: "\\\\.\\PhysicalDrive0", why: "Windows device namespace", violation: "device_path" },
    { path: "//server/share/x", why: "forward-slash UNC form" },
    { path: "/proc/self/root/etc/passwd", why: "procfs link to the filesystem root" },
    { path: "/proc/self/cwd/../secret", why: "procfs link to the working directory" },
    { path: `${t.data}/../secret/passwd`, why: "absolute path through the root and back out" },
    { path: `${t.data}/current/../../outside/secret.txt`, why: "absolute form of .. after the in-root symlink" },
    {
      path: "docs/%2e%2e/%2e%2e/secret/passwd",
      why: "encoded dots after a real directory",
      violation: "other_reading",
    },
    { path: "..%252f..%252fsecret", why: "double-encoded slashes between plain dots" },
    { path: "%%32%65%%32%65/secret/passwd", why: "escapes that only appear after a first decoding round" },
    { path: "", why: "empty: deepagents' ls and grep list / instead", violation: "other_reading" },
    { path: "  ", why: "blank: empty once trimmed", violation: "other_reading" },
  ];
  const disguised = ESCAPING_BASES.flatMap((base) =>
    Object.entries(DISGUISES).map(([how, disguise]) => ({ path: disguise(base), why: `${how}: ${base}` })),
  );
  return dedupe([...listed, ...disguised]);
}

export function legitimate(t: PathTree): Legitimate[] {
  const d = t.data;
  const listed: Legitimate[] = [
    { path: "docs/report..final.md", why: "double dot inside a name", real: join(d, "docs", "report..final.md") },
    { path: "docs/[...slug].tsx", why: "Next.js catch-all route name", real: join(d, "docs", "[...slug].tsx") },
    { path: "..hidden", why: "name starting with two dots", real: join(d, "..hidden") },
    { path: "...dots", why: "name starting with three dots", real: join(d, "...dots") },
    { path: "a..b/c.txt", why: "directory name with two dots", real: join(d, "a..b", "c.txt") },
    { path: "docs/...", why: "a three-dot name that does not exist yet", real: join(d, "docs", "...") },
    { path: "....", why: "a four-dot name" },
    { path: "new-file.txt", why: "a file to be created", real: join(d, "new-file.txt") },
    {
      path: "new-dir/sub/new.txt",
      why: "a file under directories to be created",
      real: join(d, "new-dir", "sub", "new.txt"),
    },
    { path: "drafts/2024/q1/plan.md", why: "a deep new path" },
    {
      path: "new-dir/../src/index.ts",
      why: ".. that stays inside, through a missing directory",
      real: join(d, "src", "index.ts"),
    },
    { path: "docs/../src/", why: ".. that stays inside", real: join(d, "src") },
    { path: "src/../src/index.ts", why: "out and back in" },
    {
      path: "link-inside/report..final.md",
      why: "symlink that stays inside",
      real: join(d, "docs", "report..final.md"),
    },
    { path: "link-inside/../src/index.ts", why: ".. after a symlink whose parent is the same either way" },
    { path: "rel-in/[...slug].tsx", why: "relative symlink that stays inside", real: join(d, "docs", "[...slug].tsx") },
    { path: "rel-in/./report..final.md", why: "relative symlink and a dot segment" },
    { path: "link-inside", why: "a symlink inside, kept as the link", real: join(d, "link-inside") },
    {
      path: "dangling-in",
      why: "dangling symlink whose target is inside, kept as the link",
      real: join(d, "dangling-in"),
    },
    { path: "current/app.txt", why: "through the release symlink", real: join(d, "releases", "v2", "app.txt") },
    { path: "current/..", why: ".. after an in-root symlink where both readings stay inside" },
    { path: "current/../v1/app.txt", why: "a sibling release: kernel and path.resolve differ, both inside" },
    { path: "releases/v2/../v2/app.txt", why: "plain .. between real directories" },
    { path: ".", why: "the root itself", real: d },
    { path: "./", why: "the root with a trailing slash", real: d },
    { path: d, why: "the root itself, absolute", real: d },
    {
      path: "./docs//report..final.md",
      why: "dot segment and double slash",
      real: join(d, "docs", "report..final.md"),
    },
    { path: "docs/résumé.md", why: "non-ASCII name", real: join(d, "docs", "résumé.md") },
    { path: "docs/re\u0301sume\u0301.md", why: "decomposed accents (NFKC composes them)" },
    { path: "\uff46\uff55\uff4c\uff4c.txt", why: "a fullwidth name (NFKC makes it ASCII, still inside)" },
    { path: "文档/报告.md", why: "CJK names" },
    { path: "📁/notes.md", why: "an emoji directory" },
    { path: "docs/100%.txt", why: "a literal percent sign that is not an escape", real: join(d, "docs", "100%.txt") },
    { path: "50%off.md", why: "a percent sign before two letters that are not hex" },
    { path: "100%25.txt", why: "a percent escape of a percent sign" },
    { path: "my%20notes.md", why: "a percent escape that decodes to a harmless name", real: join(d, "my%20notes.md") },
    { path: "docs%2freport..final.md", why: "an encoded slash that stays inside" },
    { path: "%2e%2e%2e", why: "an encoded three-dot name" },
    { path: "..%2e", why: "two dots and an encoded dot: three dots either way" },
    { path: "my notes.md", why: "a space inside a name" },
    { path: " spaced.txt", why: "a real file whose name starts with a space", real: join(d, " spaced.txt") },
    { path: "docs/report..final.md ", why: "a trailing space (trimmed or not, inside)" },
    { path: "~backup.txt", why: "a tilde name that is not a home directory", real: join(d, "~backup.txt") },
    {
      path: "~old/notes.txt",
      why: "a real folder named ~old (no user called old)",
      real: join(d, "~old", "notes.txt"),
    },
    { path: "~$report.docx", why: "an Office lock-file name" },
    { path: "notes~", why: "an editor backup name" },
    { path: "a\\b.txt", why: "a backslash in a name (a separator to some tools, inside either way)" },
    { path: "c:notes.txt", why: "a colon after one letter, not a drive on this system" },
    { path: "-rf.txt", why: "a leading dash" },
    { path: "#hash.md", why: "a leading hash" },
    { path: "a?b.txt", why: "a question mark in a name" },
    { path: "file.txt:stream", why: "a colon later in the name" },
    { path: ".config/app.json", why: "a dot directory" },
    { path: "src/index.ts", why: "plain relative path", real: join(d, "src", "index.ts") },
  ];
  const absolute = listed
    .filter(
      (entry) =>
        entry.path !== "" &&
        !entry.path.startsWith("/") &&
        !entry.path.startsWith(" ") &&
        !entry.path.endsWith(" ") &&
        !entry.path.startsWith("~") &&
        !entry.path.startsWith("c:"),
    )
    .map((entry) => ({ path: join(d, entry.path), why: `absolute: ${entry.why}` }));
  const urls = listed
    .filter((entry) => /^[\w./-]+$/.test(entry.path))
    .map((entry) => ({ path: pathToFileURL(join(d, entry.path)).href, why: `file URL: ${entry.why}` }));
  const dotted = listed
    .filter((entry) => /^[\w]/.test(entry.path))
    .map((entry) => ({ path: `./${entry.path}`, why: `./ prefix: ${entry.why}` }));
  return dedupe([...listed, ...absolute, ...urls, ...dotted]);
}

function dedupe<T extends { path: string }>(entries: T[]): T[] {
  const seen = new Set<string>();
  return entries.filter((entry) => !seen.has(entry.path) && seen.add(entry.path));
}

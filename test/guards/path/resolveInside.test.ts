import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolveInside, type PathViolation } from "../../../src/guards/path/resolveInside.js";
import { makePathTree, type PathTree } from "./pathTree.js";

const tree: PathTree = makePathTree();
afterAll(() => tree.cleanup());

const check = (input: unknown, roots = [tree.data]) => resolveInside(roots, input, { baseDir: tree.data });

/** Paths a model might send to escape the root, each with why it is an attack. Relative ones resolve against the root. */
function attacks(t: PathTree): Array<{ path: string; why: string; violation?: PathViolation }> {
  return [
    { path: "/etc/passwd", why: "absolute path outside", violation: "outside_roots" },
    { path: "../secret/passwd", why: "parent traversal" },
    { path: "../../../../../../etc/passwd", why: "deep parent traversal" },
    { path: "docs/../../secret/passwd", why: "traversal after a real directory" },
    { path: "./../secret", why: "dot then parent" },
    { path: "docs/./../../secret/", why: "mixed dots with a trailing slash" },
    { path: "a/b/c/../../../../secret/passwd", why: "traversal through directories that do not exist" },
    { path: "new-dir/../../secret/new.txt", why: "a new directory then back out" },
    { path: join(t.top, "data-private", "secret.txt"), why: "sibling sharing the root's name prefix", violation: "outside_roots" },
    { path: "../data-private/secret.txt", why: "prefix sibling reached relatively" },
    { path: join(t.data, "..", "data-private", "x"), why: "absolute path with .. into the prefix sibling" },
    { path: join(t.top, "data-private"), why: "the prefix sibling itself" },
    { path: t.top, why: "the root's parent" },
    { path: "/", why: "the filesystem root" },
    { path: "link-out/passwd", why: "intermediate directory symlink pointing outside", violation: "through_symlink" },
    { path: "link-out", why: "directory symlink pointing outside" },
    { path: "link-out/new-file.txt", why: "a new file inside a symlinked outside directory" },
    { path: "file-out", why: "file symlink pointing outside", violation: "through_symlink" },
    { path: "dangling-out", why: "dangling symlink whose write would land outside" },
    { path: "link-out/../data-private/secret.txt", why: ".. applied after the symlink, not before (lexically inside)" },
    { path: "link-inside/../../secret/passwd", why: "inside symlink then traversal" },
    { path: "nested/deep/escape/passwd", why: "relative symlink deep in the tree that climbs out" },
    { path: "chain-1/passwd", why: "a chain of symlinks that ends outside" },
    { path: "loop-a", why: "symlink loop", violation: "unresolvable" },
    { path: "loop-a/x.txt", why: "file below a symlink loop", violation: "unresolvable" },
    { path: "docs\0.txt", why: "NUL byte", violation: "nul_byte" },
    { path: "/etc/passwd\0.md", why: "NUL byte hiding an extension", violation: "nul_byte" },
    { path: "docs%00.txt", why: "URL-encoded NUL byte", violation: "nul_byte" },
    { path: "..%2fsecret%2fpasswd", why: "URL-encoded slashes" },
    { path: "%2e%2e/secret/passwd", why: "URL-encoded dots" },
    { path: "..%2F..%2F..%2Fetc%2Fpasswd", why: "upper-case URL encoding" },
    { path: "%252e%252e%252fsecret%252fpasswd", why: "double URL encoding" },
    { path: "%2Fetc%2Fpasswd", why: "URL-encoded absolute path" },
    { path: "..%5csecret%5cpasswd", why: "URL-encoded backslashes" },
    { path: "file:///etc/passwd", why: "file URL outside" },
    { path: pathToFileURL(join(t.secret, "passwd")).href, why: "file URL to the secret" },
    { path: "file://remote-host/share/x", why: "file URL naming another host", violation: "bad_file_url" },
    { path: "~/.ssh/id_rsa", why: "home directory", violation: "outside_roots" },
    { path: "~", why: "bare home directory" },
    { path: "~root/.bashrc", why: "another user's home" },
    { path: "%7E/.bashrc", why: "URL-encoded tilde" },
    { path: "..\\secret\\passwd", why: "backslash traversal" },
    { path: "docs\\..\\..\\secret\\passwd", why: "backslash traversal after a real directory" },
    { path: "C:\\Windows\\System32\\config\\SAM", why: "Windows drive path", violation: "foreign_windows_path" },
    { path: "C:/Windows/win.ini", why: "Windows drive path with slashes", violation: "foreign_windows_path" },
    { path: "c:secret", why: "Windows drive-relative path", violation: "foreign_windows_path" },
    { path: "\\\\server\\share\\secret.txt", why: "Windows UNC path", violation: "foreign_windows_path" },
    { path: "\\\\?\\C:\\Windows", why: "Windows long-path device prefix", violation: "device_path" },
    { path: "\\\\.\\PhysicalDrive0", why: "Windows device namespace", violation: "device_path" },
    { path: "//server/share/x", why: "forward-slash UNC form" },
    { path: "/proc/self/root/etc/passwd", why: "procfs link to the filesystem root" },
    { path: "", why: "empty path", violation: "empty" },
  ];
}

/** Paths that must be allowed, with where they really lead. */
function legit(t: PathTree): Array<{ path: string; why: string; real: string }> {
  const d = t.data;
  return [
    { path: "docs/report..final.md", why: "double dot inside a name", real: join(d, "docs", "report..final.md") },
    { path: "docs/[...slug].tsx", why: "Next.js catch-all route name", real: join(d, "docs", "[...slug].tsx") },
    { path: join(d, "docs", "report..final.md"), why: "absolute path inside", real: join(d, "docs", "report..final.md") },
    { path: "..hidden", why: "name starting with two dots", real: join(d, "..hidden") },
    { path: "...dots", why: "name starting with three dots", real: join(d, "...dots") },
    { path: "a..b/c.txt", why: "directory name with two dots", real: join(d, "a..b", "c.txt") },
    { path: "docs/...", why: "a three-dot name that does not exist yet", real: join(d, "docs", "...") },
    { path: "new-file.txt", why: "a file to be created", real: join(d, "new-file.txt") },
    { path: "new-dir/sub/new.txt", why: "a file under directories to be created", real: join(d, "new-dir", "sub", "new.txt") },
    { path: "new-dir/../src/index.ts", why: ".. that stays inside, through a missing directory", real: join(d, "src", "index.ts") },
    { path: "docs/../src/", why: ".. that stays inside", real: join(d, "src") },
    { path: "link-inside/report..final.md", why: "symlink that stays inside", real: join(d, "docs", "report..final.md") },
    { path: "rel-in/[...slug].tsx", why: "relative symlink that stays inside", real: join(d, "docs", "[...slug].tsx") },
    { path: "dangling-in", why: "dangling symlink whose target is inside", real: join(d, "new-target.txt") },
    { path: ".", why: "the root itself", real: d },
    { path: d, why: "the root itself, absolute", real: d },
    { path: "./docs//report..final.md", why: "dot segment and double slash", real: join(d, "docs", "report..final.md") },
    { path: "docs/résumé.md", why: "non-ASCII name", real: join(d, "docs", "résumé.md") },
    { path: "docs/100%.txt", why: "a literal percent sign that is not an escape", real: join(d, "docs", "100%.txt") },
    { path: "my%20notes.md", why: "a percent escape that decodes to a harmless name", real: join(d, "my%20notes.md") },
    { path: "~backup.txt", why: "a tilde name that is not a home directory", real: join(d, "~backup.txt") },
    { path: pathToFileURL(join(d, "docs", "résumé.md")).href, why: "file URL inside the root", real: join(d, "docs", "résumé.md") },
    { path: "src/index.ts", why: "plain relative path", real: join(d, "src", "index.ts") },
  ];
}

describe("resolveInside: attack corpus on a real tree with symlinks", () => {
  it("has at least 40 attacks and 20 legitimate paths", () => {
    expect(attacks(tree).length).toBeGreaterThanOrEqual(40);
    expect(legit(tree).length).toBeGreaterThanOrEqual(20);
  });

  it.each(attacks(tree))("refuses $why: $path", (attack) => {
    const result = check(attack.path);
    expect(result.ok, `${attack.why}: ${JSON.stringify(attack.path)}`).toBe(false);
    if (!result.ok && attack.violation) expect(result.violation, attack.why).toBe(attack.violation);
  });

  it.each(legit(tree))("allows $why: $path", (entry) => {
    const result = check(entry.path);
    expect(result, `${entry.why}: ${JSON.stringify(entry.path)}`).toMatchObject({ ok: true, path: entry.real, root: tree.data });
  });
});

describe("resolveInside: roots", () => {
  it("accepts any of several roots and reports which one", () => {
    expect(check(join(tree.other, "notes.md"), [tree.data, tree.other])).toMatchObject({ ok: true, root: tree.other });
    expect(check(join(tree.other, "notes.md"), [tree.data]).ok).toBe(false);
  });

  it("resolves a root given through a symlink to its real directory", () => {
    const viaLink = join(tree.data, "link-inside");
    expect(check(join(tree.data, "docs", "report..final.md"), [viaLink])).toMatchObject({ ok: true, root: join(tree.data, "docs") });
    expect(check(join(tree.data, "src", "index.ts"), [viaLink]).ok).toBe(false);
  });

  it("treats the home directory as inside when a root contains it", () => {
    expect(resolveInside([homedir()], "~/anything.txt", { baseDir: homedir() })).toMatchObject({ ok: true, path: join(homedir(), "anything.txt") });
    // read literally, "~/x" is a directory named "~" below the base directory, outside this root
    expect(resolveInside([homedir()], "~/anything.txt", { baseDir: tree.data }).ok).toBe(false);
  });

  it("refuses a value that is not a string", () => {
    expect(check(42)).toMatchObject({ ok: false, violation: "not_a_string" });
  });
});

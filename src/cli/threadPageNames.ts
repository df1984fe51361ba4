/** Characters kept of a thread id in its page's file name; the rest is left out (a hash tells them apart). */
const KEPT_CHARS = 60;

/**
 * File names for threads' pages: thread ids come from the data (a checkpoint database, a file's
 * `id`), so each is reduced to letters, digits, `-`, `_` and `.` (never leading: no hidden file, no flag; never a
 * separator: a page cannot land outside its folder), cut short, and made unique with a short hash
 * of its key when two would share a name. The same key always gets the same name.
 */
export class ThreadPageNames {
  private readonly byKey = new Map<string, string>();
  private readonly taken = new Set<string>();

  /** `key` tells apart two threads with the same id (two files that both say `"id": "t1"`): their source, say. */
  nameOf(id: string, key: string = id): string {
    const known = this.byKey.get(key);
    if (known) return known;
    const base = safeStem(id);
    let name = `${base}.html`;
    // A second id with the same safe form, or one that was shortened or changed, gets the hash too.
    if (this.taken.has(name.toLowerCase()) || base !== id) name = `${base}-${fnv(key)}.html`;
    for (let n = 2; this.taken.has(name.toLowerCase()); n++) name = `${base}-${fnv(key)}-${n}.html`;
    this.taken.add(name.toLowerCase()); // case-insensitive file systems count "A" and "a" as one name
    this.byKey.set(key, name);
    return name;
  }
}

function safeStem(id: string): string {
  const stem = id
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._-]+/, "")
    .slice(0, KEPT_CHARS);
  return stem === "" ? "thread" : stem;
}

/** 32-bit FNV-1a of the id, as 8 hex digits. */
function fnv(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h.toString(16).padStart(8, "0");
}

import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Why a path argument is refused before anything is resolved. */
export type PathFormProblem = "empty" | "not_a_string" | "nul_byte" | "foreign_windows_path" | "device_path" | "bad_file_url";

export type PathForms = { ok: true; forms: string[] } | { ok: false; problem: PathFormProblem };

export interface PathFormsOptions {
  /** `process.platform` by default; injectable so Windows handling is testable anywhere. */
  platform?: NodeJS.Platform;
  home?: string;
}

const MAX_DECODE_ROUNDS = 3;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
const DRIVE = /^[A-Za-z]:/;
const WINDOWS_UNC = /^\\\\/;
const DEVICE = /^[\\/]{2}[?.][\\/]/;
const HOME_PREFIX = /^~(?=$|[\\/])/;
const USER_HOME_PREFIX = /^~([A-Za-z_][A-Za-z0-9_-]*)(?=$|[\\/])/;

/**
 * Every way a tool might read a path argument, so that each can be checked: the text as written,
 * its percent-decoded forms (`..%2f`, double encoding), a `file:` URL's path, `~` and `~user`
 * expanded to home directories, and on POSIX the form with backslashes read as separators.
 * The first form is the reading a tool most plausibly means (a file URL's path, `~` expanded).
 * A path is inside only when every reading is. NUL bytes (raw or encoded) are refused outright,
 * as are Windows device paths and, on POSIX, drive-letter and UNC forms that would name another
 * file on Windows.
 */
export function pathForms(input: unknown, options: PathFormsOptions = {}): PathForms {
  if (typeof input !== "string") return { ok: false, problem: "not_a_string" };
  if (input === "") return { ok: false, problem: "empty" };
  const platform = options.platform ?? process.platform;
  const windows = platform === "win32";

  const decoded = [input];
  for (let round = 0, current = input; round < MAX_DECODE_ROUNDS && PERCENT_ESCAPE.test(current); round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      break;
    }
    if (next === current) break;
    decoded.push(next);
    current = next;
  }

  const forms = new Set<string>();
  for (const form of decoded) {
    if (form.includes("\0")) return { ok: false, problem: "nul_byte" };
    if (DEVICE.test(form)) return { ok: false, problem: "device_path" };
    if (!windows && (DRIVE.test(form) || WINDOWS_UNC.test(form))) return { ok: false, problem: "foreign_windows_path" };
    let plain = form;
    if (/^file:/i.test(form)) {
      try {
        plain = fileURLToPath(form, { windows });
      } catch {
        return { ok: false, problem: "bad_file_url" };
      }
      if (plain.includes("\0")) return { ok: false, problem: "nul_byte" };
    }
    const home = expandHome(plain, options.home ?? homedir());
    for (const variant of [home, plain, form]) {
      if (variant === undefined) continue;
      forms.add(variant);
      if (!windows && variant.includes("\\")) forms.add(variant.replaceAll("\\", "/"));
    }
  }
  return { ok: true, forms: [...forms] };
}

function expandHome(form: string, home: string): string | undefined {
  if (HOME_PREFIX.test(form)) return home + form.slice(1);
  const user = USER_HOME_PREFIX.exec(form);
  if (user) return path.join(path.dirname(home), user[1]!) + form.slice(user[0].length);
  return undefined;
}

import type { PathViolation } from "./resolveInside.js";

const REASONS: Record<PathViolation, string> = {
  empty: "it is empty",
  not_a_string: "it is not a string",
  nul_byte: "it contains a NUL byte",
  foreign_windows_path: "it is a Windows drive or network path, which this system does not use",
  device_path: "it is a Windows device path",
  bad_file_url: "it is a file: URL that does not name a local path",
  outside_roots: "it resolves outside the allowed directories",
  through_symlink: "it resolves through a symbolic link to a place outside the allowed directories",
  unresolvable: "it cannot be resolved (a symbolic link loop or an unreadable directory)",
};

/** Read by the model: why a path argument was refused and where paths may point. */
export function pathRefusalText(tool: string, argument: string, value: unknown, violation: PathViolation, roots: readonly string[]): string {
  const shown = typeof value === "string" ? JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value) : "the value";
  const allowed = roots.length === 1 ? `inside ${roots[0]}` : `inside one of ${roots.join(", ")}`;
  return `${tool} was not run: path ${shown} in "${argument}" is not allowed because ${REASONS[violation]}. Use a path ${allowed}.`;
}

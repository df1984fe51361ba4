// harness-kit/node: parts that need Node's file system. Re-exports only.
export { FileSystemOffloadStore, type FileSystemOffloadStoreOptions } from "./offload/FileSystemOffloadStore.js";

// path guard (resolves paths on the real filesystem)
export { PathGuardMiddleware, DEFAULT_PATH_ARGUMENTS, PATTERN_ARGUMENTS, type PathGuardOptions } from "./guards/path/PathGuardMiddleware.js";
export { resolveInside, type PathCheck, type PathViolation, type ResolveInsideOptions } from "./guards/path/resolveInside.js";

// policy guard: rules from a JSON file
export { loadPolicyFile } from "./guards/policy/loadPolicyFile.js";

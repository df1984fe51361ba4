// Node-only path confinement (resolves paths on the real filesystem). Re-exported by "harness-kit/node".
export { PathGuardMiddleware, DEFAULT_PATH_ARGUMENTS, PATTERN_ARGUMENTS, type PathGuardOptions } from "../middleware/PathGuardMiddleware.js";
export { resolveInside, type PathCheck, type PathViolation, type ResolveInsideOptions } from "../guards/path/resolveInside.js";

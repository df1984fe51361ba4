// The path guard's public parts (entry "harness-kit/node": they read the real filesystem).
export {
  PathGuardMiddleware,
  DEFAULT_PATH_ARGUMENTS,
  PATTERN_ARGUMENTS,
  type PathGuardOptions,
} from "./PathGuardMiddleware.js";
export { resolveInside, type PathCheck, type PathViolation, type ResolveInsideOptions } from "./resolveInside.js";

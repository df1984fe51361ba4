// The progress-aware loop guard's public parts.
export {
  ProgressAwareLoopGuardMiddleware,
  type ProgressAwareLoopGuardOptions,
} from "./ProgressAwareLoopGuardMiddleware.js";

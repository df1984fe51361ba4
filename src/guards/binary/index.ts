// The binary read guard's public parts (its default directive: "harness-kit/observe").
export { BinaryReadGuardMiddleware, type BinaryReadGuardOptions } from "./BinaryReadGuardMiddleware.js";
export type { BinaryReadContext } from "./content.js";
export { mediaTypesAcceptedBy } from "./media.js";

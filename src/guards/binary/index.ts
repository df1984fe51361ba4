// The binary read guard's public parts.
export { BinaryReadGuardMiddleware, type BinaryReadGuardOptions } from "./BinaryReadGuardMiddleware.js";
export { binaryReadDirective } from "./texts.js";
export type { BinaryReadContext } from "./content.js";
export { mediaTypesAcceptedBy } from "./media.js";

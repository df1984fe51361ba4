// The binary read guard's public parts.
export { BinaryReadGuardMiddleware, binaryReadDirective, type BinaryReadGuardOptions, type BinaryReadContext } from "./BinaryReadGuardMiddleware.js";
export { mediaTypesAcceptedBy } from "./media.js";

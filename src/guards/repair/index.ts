// The tool-call repair guard's public parts.
export { ToolCallRepairMiddleware, type ToolCallRepairOptions } from "./ToolCallRepairMiddleware.js";

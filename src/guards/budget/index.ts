// The tool-result budget's public parts (its stores live in src/offload).
export { ToolResultBudgetMiddleware, type ToolResultBudgetOptions } from "./ToolResultBudgetMiddleware.js";

import { makePng } from "../guards/binary/fixtures.js";

/**
 * What tools return in the contract tests: repeats, fresh values, empty and block content,
 * errors, a thrown exception, floods and binary payloads.
 */
export const ODD_TOOL_RESULTS: Array<() => unknown> = [
  () => "same",
  () => `fresh ${Math.random()}`,
  () => "",
  () => [{ type: "text", text: "block" }],
  () => [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }],
  () => "Error: failed",
  () => {
    throw new Error("tool crashed");
  },
  () => "x".repeat(5000),
  () => "y\n".repeat(30_000),
  () => makePng().toString("utf8"),
  () => [
    { type: "image", mimeType: "image/png", data: "A".repeat(50_000) },
    { type: "text", text: "z".repeat(3000) },
  ],
];

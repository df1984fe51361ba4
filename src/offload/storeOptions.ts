import { z } from "zod";
import { wholeNumber } from "../core/baseOptions.js";
import type { OffloadStore } from "./OffloadStore.js";
import { DEFAULT_STORE_TIMEOUT_MS } from "./timeouts.js";

// The two options of every guard that offloads content, as their options schemas take them.

/** An OffloadStore option: an object with `put` and `get`. */
export const offloadStore = () =>
  z.custom<OffloadStore>(
    (value) =>
      value !== null &&
      typeof value === "object" &&
      typeof (value as OffloadStore).put === "function" &&
      typeof (value as OffloadStore).get === "function",
    "must be an OffloadStore (put and get)",
  );

/** How long to wait for the store. */
export const storeTimeoutMs = () =>
  wholeNumber()
    .default(DEFAULT_STORE_TIMEOUT_MS)
    .describe(
      "How long to wait for the store, in ms, when offloading and when the retrieval tool reads back; a store that does not answer in time counts as failed, and the run goes on without it.",
    );

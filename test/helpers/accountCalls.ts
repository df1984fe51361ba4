import fc from "fast-check";

/**
 * A model's call to an account agent's tools, for property tests: reads of two accounts, a write
 * (update_account, a tool that changes the world), searches, and a tool that does not exist.
 */
export const accountCallArb = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 7, max: 8 }).map((id) => ({ name: "get_account", args: { id } })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 2 }).map((seats) => ({ name: "update_account", args: { id: 7, seats } })),
  },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 1 }).map((q) => ({ name: "search", args: { q } })) },
  { weight: 1, arbitrary: fc.constant({ name: "ghost_tool", args: {} }) },
);

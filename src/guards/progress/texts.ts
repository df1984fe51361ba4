// What ProgressAwareLoopGuardMiddleware tells the model.

/** Read by the model when a repeat that history proves useless is refused. */
export function noProgressDirective(tool: string, failing: boolean): string {
  return failing
    ? `Not run (progress guard): "${tool}" already failed the same way with these arguments, and nothing has changed since. Fix the cause or change the arguments before trying again; do not repeat the call as is.`
    : `Not run (progress guard): "${tool}" with these arguments already returned the same result as before, so calling it again will not tell you anything new. Use that result, change the arguments, or take a different approach.`;
}

/** Read by the model when the same call appears twice in one batch. */
export function batchDuplicateDirective(tool: string): string {
  return `Not run (progress guard): the same "${tool}" call appears earlier in this batch of parallel calls; use that call's result.`;
}

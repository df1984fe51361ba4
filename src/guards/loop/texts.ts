// What LoopGuardMiddleware tells the model.

/** Read by the model when an identical call is refused. */
export function identicalCallDirective(tool: string, count: number): string {
  return (
    `Not run (identical-call loop guard): this is call ${count} to "${tool}" with exactly the same arguments, and repeating it will not change the outcome. ` +
    `Use the results you already have, change the arguments, or take a different approach.`
  );
}

// What RunawayGuardMiddleware tells the model.

/** Read by the model: the answer to a call refused in the block tier. */
export function repeatedCallDirective(tool: string, stallCalls: number): string {
  return (
    `Not run (runaway guard): the last ${stallCalls} rounds of tool results brought nothing new, and this "${tool}" call repeats one already made in this request, so it is refused. ` +
    `Answer with the results you already have, or make a call you have not made yet.`
  );
}

/** Read by the model (on a later request): the answer to a call that the stop tier prevented. */
export function stalledAnswer(): string {
  return "Not run (runaway guard): this request kept making calls that brought nothing new, so the run stopped before this call. Work from the results you already have.";
}

/** Read by the model (on a later request): the answer to a call that a token cap prevented. */
export function budgetSpentAnswer(): string {
  return "Not run (runaway guard): the token budget of this request was spent, so the run stopped before this call. Work from the results you already have.";
}

/**
 * A value now, or a promise of it. The guards answer at once when nothing needs waiting for:
 * inside LangGraph every promise pays for AsyncLocalStorage's hooks, and a step passes through
 * every guard's hooks (bench/README.md, "The stack's cost per step").
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`, at once when `value` is not a promise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** What `run` returns, as a promise: a synchronous throw becomes a rejection, a promise is passed on as it is. */
export function promised<T>(run: () => MaybePromise<T>): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `promised(() => run(argument))` without the thunk: the hooks call it on every step. */
export function promisedCall<A, T>(run: (argument: A) => MaybePromise<T>, argument: A): Promise<T> {
  try {
    return Promise.resolve(run(argument));
  } catch (error) {
    return Promise.reject(error);
  }
}

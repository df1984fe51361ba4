import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ranUnmarked } from "../core/marks.js";
import { promisedCall } from "../core/maybePromise.js";
import { isSummary, latestTurnIndex, messageKind, toolCallsOf, type ToolCallView } from "../core/messages.js";
import { probedRequest, stampRan, stampTurn } from "../core/ranStamps.js";
import { withAnsweredBefore } from "../hooks/answeredBefore.js";
import { summaryIndex } from "../hooks/carry.js";
import type { BatchFacts, QuietJudge, QuietModelRequest } from "../hooks/quietJudge.js";
import { noteSeen } from "../hooks/summaryRemovals.js";
import { freshCallsFor } from "../observe/freshCalls.js";
import { loadedHasher } from "../observe/hash.js";

type Handler = (request: any) => any;
type Full = (request: any, handler: Handler) => Promise<any>;

/**
 * The composed stack's short way through a step no guard acts on (a new call, a plain answer, a
 * model turn after plain answers): every guard's judge (hooks/quietJudge.ts) vouches that its
 * hook would only pass the step on, and the step gets the stamps the guards would have written,
 * without their machinery. A step costs a guard's cold code, not its work (bench/README.md), and
 * most steps need none of it. The judges are asked before the call runs; an answer one of them
 * would not keep goes through the whole stack with the answer already in hand, as if it had
 * arrived there, so what the guards decide never depends on the path.
 */
export class QuietPath {
  /** Calls and model calls answered on this path: tests and benches read them. */
  readonly steps = { tool: 0, model: 0 };

  /** Whether any judge reads the thread's facts (a stack of result guards alone needs none). */
  private readonly readsThread: boolean;
  // Each question asked only of the judges that answer it, in the stack's order: a step asks them all.
  private readonly callJudges: readonly QuietJudge[];
  private readonly answerJudges: readonly QuietJudge[];
  private readonly responseJudges: readonly QuietJudge[];
  /** Innermost first, as the hooks would settle on a response's way out. */
  private readonly settlers: readonly QuietJudge[];

  constructor(private readonly judges: readonly QuietJudge[]) {
    this.readsThread = judges.some((judge) => judge.readsThread === true);
    this.callJudges = judges.filter((judge) => judge.passesCall);
    this.answerJudges = judges.filter((judge) => judge.keepsAnswer);
    this.responseJudges = judges.filter((judge) => judge.keepsResponse);
    this.settlers = judges.filter((judge) => judge.settle).reverse();
  }

  toolCall(request: ToolRequestLike, handler: Handler, full: Full): Promise<unknown> {
    const messages = request.state?.messages;
    const id = request.toolCall.id;
    // The asking turn last: no sibling of its batch was answered before the guards judged it.
    const at = Array.isArray(messages) ? messages.length - 1 : -1;
    const facts =
      id !== undefined && at >= 0 && messageKind(messages![at]) === "ai" ? this.facts(messages!, at) : undefined;
    if (!facts) return full(request, handler);
    // LangChain's call itself, its id known: the judges only read it.
    const call = request.toolCall as ToolCallView;
    const asking = messages![at] as AIMessage;
    const judges = this.callJudges;
    for (let i = 0; i < judges.length; i++)
      if (!judges[i]!.passesCall!(call, asking, facts)) return full(request, handler);
    const history = messages as readonly BaseMessage[];
    noteSeen(history);
    const { request: probed, probe } = probedRequest(request);
    return promisedCall(handler, probed).then(
      (answer) => {
        if (!ToolMessage.isInstance(answer) || answer.tool_call_id !== call.id || !this.keepAnswer(answer, call))
          return full(probed, arrived(handler, answer));
        this.steps.tool++;
        return withAnsweredBefore(history, at, call.id, stampRan(answer, probe, call.id));
      },
      (error: unknown) => full(probed, arrived(handler, undefined, error)),
    );
  }

  modelCall(request: QuietModelRequest, handler: Handler, full: Full): Promise<unknown> {
    const messages: unknown = request.state?.messages;
    const facts = Array.isArray(messages) ? this.turnFacts(messages) : undefined;
    if (!facts) return full(request, handler);
    // What each judge of the response receives: the request the guard before it hands on.
    const received: QuietModelRequest[] = [];
    let passed: QuietModelRequest | undefined = request;
    const judges = this.judges;
    for (let i = 0; i < judges.length; i++) {
      const judge = judges[i]!;
      if (judge.keepsResponse) received.push(passed);
      if (judge.passesRequest) passed = judge.passesRequest(passed, facts);
      if (!passed) return full(request, handler);
    }
    noteSeen(messages as readonly BaseMessage[]);
    return promisedCall(handler, passed).then(
      (response) => {
        if (!AIMessage.isInstance(response) || !this.keepResponse(response, received))
          return full(request, arrived(handler, response));
        this.steps.model++;
        const stamped = stampTurn(response);
        const settled = this.settle(stamped, messages as readonly BaseMessage[]);
        return settled ? settled.then(() => stamped) : stamped;
      },
      (error: unknown) => full(request, arrived(handler, undefined, error)),
    );
  }

  /** What the judges do besides on a response they keep, innermost first, as their hooks would on its way out. */
  private settle(response: AIMessage, history: readonly BaseMessage[]): Promise<void> | undefined {
    let settled: Promise<void> | undefined;
    const settlers = this.settlers;
    for (let i = 0; i < settlers.length; i++) {
      const judge = settlers[i]!;
      settled = settled ? settled.then(() => judge.settle!(response, history)) : judge.settle!(response, history);
    }
    return settled;
  }

  private keepAnswer(answer: ToolMessage, call: ToolCallView): boolean {
    const judges = this.answerJudges;
    for (let i = 0; i < judges.length; i++) if (!judges[i]!.keepsAnswer!(answer, call)) return false;
    return true;
  }

  private keepResponse(response: AIMessage, received: readonly QuietModelRequest[]): boolean {
    const judges = this.responseJudges;
    for (let i = 0; i < judges.length; i++) if (!judges[i]!.keepsResponse!(response, received[i]!)) return false;
    return true;
  }

  /**
   * The facts before a model call: at a run's start (a user message last), or after a turn every
   * call of which a tool answered and every guard left as it came.
   */
  private turnFacts(messages: readonly unknown[]): BatchFacts | undefined {
    const last = messages.length - 1;
    if (last >= 0 && messageKind(messages[last]) === "human" && !isSummary(messages[last]))
      return this.facts(messages, -1);
    const at = latestTurnIndex(messages);
    return at >= 0 && plainAnswers(messages, at) ? this.facts(messages, at) : undefined;
  }

  /**
   * The facts of the turn at `at` (-1: a run about to begin, which has learned nothing yet and
   * wasted nothing), in a history with no summary and nothing stored (see FreshCalls).
   */
  private facts(messages: readonly unknown[], at: number): BatchFacts | undefined {
    const history = messages as readonly BaseMessage[];
    if (summaryIndex(history) >= 0) return undefined;
    if (!this.readsThread) return { history, fresh: false, learned: false };
    const hash = loadedHasher();
    if (hash === undefined) return undefined;
    const index = freshCallsFor(messages, hash);
    if (index.stored) return undefined;
    return at < 0
      ? { history, fresh: false, learned: true }
      : { history, fresh: index.fresh(messages[at]), learned: index.learned(messages[at]) };
  }
}

/** The part of LangChain's tool-call request the quiet path reads. */
interface ToolRequestLike {
  toolCall: { id?: string; name: string; args: unknown };
  tool?: unknown;
  state?: { messages?: readonly unknown[] };
}

/** Whether the turn at `at` is answered, every call of it, by a tool that ran and was left as it came. */
function plainAnswers(messages: readonly unknown[], at: number): boolean {
  const calls = toolCallsOf(messages[at]);
  if (calls.length === 0 || messages.length - 1 - at !== calls.length) return false;
  for (let i = at + 1; i < messages.length; i++) if (!ranUnmarked(messages[i])) return false;
  return true;
}

/**
 * A handler whose first call gives what already came back (the result, or the error thrown again),
 * and whose later calls (a guard's retry) go on as usual.
 */
function arrived(handler: Handler, result: unknown, ...error: [unknown?]): Handler {
  let given = false;
  return (request) => {
    if (given) return handler(request);
    given = true;
    return error.length > 0 ? Promise.reject(error[0]) : result;
  };
}

import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import type { HITLRequest, ToolCallHandler, ToolCallRequest } from "langchain";
import { guardToolMessage } from "../../core/answers.js";
import type { CallDecision } from "../../core/decision.js";
import { unusableCallIds } from "../../core/marks.js";
import { parseOptions } from "../../core/baseOptions.js";
import type { ToolCallView } from "../../core/messages.js";
import type { GuardAction, SignalCode } from "../../core/signals.js";
import { runToolSafely } from "../../core/toolErrors.js";
import { compilePolicy, POLICY_GUARD, type CompiledPolicy } from "./compile.js";
import { decideBatch, decideCall, type CallVerdict, type PolicyVerdict, type RuleHit } from "./decide.js";
import { pastCalls, POLICY_METADATA_KEY, type PastCall } from "./history.js";
import { policyGuardOptions, type PolicyGuardOptions } from "./options.js";
import { readReview } from "./review.js";
import { askDescription, deniedText, policyFailedText, rejectedText, unreadableReviewText } from "./texts.js";
import { carryStateSchema } from "../../hooks/carry.js";
import { MiddlewareBase } from "../../hooks/middlewareBase.js";
import { answerCall, judgePendingCall, signalCall, type CallGuard, type PendingCall } from "../../hooks/pendingCall.js";
import { answeredOutside } from "../../hooks/refusedCalls.js";
import { judgedCalls } from "../../core/verdict.js";

/** The agent state every createAgent graph has; typed so instances fit any agent's middleware list. */
type AgentState = { messages: BaseMessage[] };

export type { PolicyGuardOptions };

export type { PolicyReviewDecision } from "./review.js";

/** What an ask's interrupt carries: LangChain's `HITLRequest`, with one action (each asked call interrupts on its own). */
export type PolicyReviewRequest = HITLRequest;

/**
 * Decides each tool call before it runs from rules over the tool name, its arguments, the run's
 * context (`runtime.context`: user, role, profile) and the thread's earlier calls. A denied call
 * does not run: the model reads one line naming the rule and why. An asked call waits for a
 * reviewer through a LangGraph `interrupt` carrying LangChain's `HITLRequest` (as
 * `humanInTheLoopMiddleware` sends it, one action per call); resume with
 * `new Command({ resume: { decisions: [{ type: "approve" | "edit" | "reject", ... }] } })`, or, when
 * several calls of a batch wait, a map from each interrupt's id to its answer. An edited call is
 * checked again (a deny still denies; the edit counts as the approval). Needs a checkpointer for asks.
 *
 * Decisions are a pure function of the rules, the context and the history: the same live, after a
 * restore and in `harness-kit eval --policy`.
 *
 * @example
 * const agent = createAgent({
 *   model, tools, checkpointer: new MemorySaver(),
 *   middleware: [new PolicyGuardMiddleware({ policy: { rules: [
 *     { id: "no-transfer-after-web", decision: "deny", tool: "transfer_funds", when: { after: { tool: "fetch_url" } }, reason: "a web page was read in this thread" },
 *     { id: "big-transfer", decision: "ask", tool: "transfer_funds", args: { amount: { gt: 1000 } }, reason: "transfers over 1000 need approval" },
 *   ] } })],
 * });
 * await agent.invoke({ messages }, { configurable: { thread_id: "t1" }, context: { role: "teller" } });
 */
export class PolicyGuardMiddleware extends MiddlewareBase {
  readonly name = POLICY_GUARD;
  /** The carried-history channel (hooks/carry.ts): flow rules see calls a summary removed. */
  stateSchema?: typeof carryStateSchema = carryStateSchema;
  readonly observeOnly: boolean;
  private readonly policy: CompiledPolicy;
  private readonly callGuard: CallGuard;
  // A cache, not state: keyed by the asking AIMessage, recomputed for another context or process.
  private readonly verdicts = new WeakMap<
    object,
    { context: unknown; verdicts: CallVerdict[]; reaching: readonly ToolCallView[] }
  >();

  constructor(options: PolicyGuardOptions) {
    super();
    const settings = parseOptions(POLICY_GUARD, policyGuardOptions, options);
    this.policy = compilePolicy(settings.policy, "policy");
    this.observeOnly = settings.observeOnly;
    this.callGuard = { guard: this.name, observeOnly: this.observeOnly, onSignal: settings.onSignal };
  }

  /**
   * The decisions for a batch given the history that precedes it and the run's context, as
   * replay reports them: deny as a `directive` (code `policy_denied`), ask as a `warn` (code `policy_ask`).
   */
  readonly evaluate = async (
    messages: readonly BaseMessage[],
    pending: readonly ToolCallView[],
    context?: unknown,
  ): Promise<CallDecision[]> =>
    decideBatch(this.policy, context, messages, pending).map(({ call, verdict }) => ({
      call,
      decision: asDecision(verdict),
    }));

  /** The verdict on each call of a batch, without the middleware: for tests, evaluations and tools. */
  readonly decide = (
    messages: readonly unknown[],
    pending: readonly ToolCallView[],
    context?: unknown,
  ): CallVerdict[] => decideBatch(this.policy, context, messages, pending);

  readonly wrapToolCall = (
    request: ToolCallRequest<AgentState>,
    handler: ToolCallHandler<AgentState>,
  ): Promise<ToolMessage | Command> => judgePendingCall(request, handler, this.judged);

  private readonly judged = async (
    request: ToolCallRequest<AgentState>,
    handler: ToolCallHandler<AgentState>,
    { call, messages, at }: PendingCall,
  ): Promise<ToolMessage | Command> => {
    // The repair middleware explains calls its review found unusable better than a rule could.
    if (unusableCallIds(messages[at]).has(call.id)) return runToolSafely(request, handler);
    const context = request.runtime?.context;
    let verdicts: CallVerdict[];
    try {
      verdicts = this.batchVerdicts(messages, at, context);
    } catch (error) {
      // Fail closed: a policy that cannot be evaluated lets nothing through.
      await this.signal(call, "directive", "policy_failed", "the policy could not be evaluated; the call was denied", {
        error: String(error),
      });
      return answerCall(this.callGuard, request, handler, { kind: "refuse", text: policyFailedText() });
    }
    const index = verdicts.findIndex((v) => v.call.id === call.id);
    const verdict: PolicyVerdict =
      index < 0 ? decideCall(this.policy, this.facts(messages, call, context, [])) : verdicts[index]!.verdict;
    if (verdict.decision === "allow") return runToolSafely(request, handler);
    if (verdict.decision === "deny") {
      await this.signal(
        call,
        this.observeOnly ? "warn" : "directive",
        "policy_denied",
        deniedReason(verdict.rules),
        ruleDetail(verdict.rules),
      );
      return answerCall(this.callGuard, request, handler, { kind: "refuse", text: deniedText(verdict.rules) });
    }
    if (this.observeOnly) {
      await this.signal(call, "warn", "policy_ask", askedReason(verdict.rules), ruleDetail(verdict.rules));
      return runToolSafely(request, handler);
    }
    const before =
      index < 0
        ? []
        : verdicts
            .slice(0, index)
            .filter((v) => v.verdict.decision !== "deny")
            .map((v) => v.call);
    return this.review(request, handler, call, verdict, { messages, context, before });
  };

  /** Asks a reviewer (interrupt) and carries out the answer. */
  private async review(
    request: ToolCallRequest<AgentState>,
    handler: ToolCallHandler<AgentState>,
    call: ToolCallView,
    verdict: Extract<PolicyVerdict, { decision: "ask" }>,
    seen: { messages: readonly BaseMessage[]; context: unknown; before: ToolCallView[] },
  ): Promise<ToolMessage | Command> {
    const reviewRequest: PolicyReviewRequest = {
      actionRequests: [
        {
          name: call.name,
          args: argsObject(call.args),
          description: askDescription(verdict.rules, call.name, call.args),
        },
      ],
      reviewConfigs: [{ actionName: call.name, allowedDecisions: [...verdict.allowedDecisions] }],
    };
    const answer = readReview(interrupt(reviewRequest), verdict.allowedDecisions);
    const detail = ruleDetail(verdict.rules);
    if (answer === undefined) {
      await this.signal(
        call,
        "directive",
        "policy_review_unreadable",
        "the reviewer's answer could not be read; the call was not run",
        detail,
      );
      return guardToolMessage(call, this.name, "directive", unreadableReviewText(call.name));
    }
    if (answer.type === "reject") {
      await this.signal(call, "directive", "policy_rejected", "a reviewer rejected the call", detail);
      return guardToolMessage(call, this.name, "directive", rejectedText(call.name, answer.message));
    }
    if (answer.type === "approve") {
      await this.signal(call, "warn", "policy_approved", "a reviewer approved the call", detail);
      return reviewed(await runToolSafely(request, handler), call.id, { reviewed: "approve", rules: detail.rules });
    }
    const edited: ToolCallView = { id: call.id, name: answer.editedAction.name, args: answer.editedAction.args };
    const again = decideCall(this.policy, this.facts(seen.messages, edited, seen.context, seen.before));
    if (again.decision === "deny") {
      await this.signal(edited, "directive", "policy_denied", deniedReason(again.rules), {
        ...ruleDetail(again.rules),
        edited: true,
      });
      return this.refuse(edited, again.rules);
    }
    await this.signal(
      edited,
      "warn",
      "policy_edited",
      "a reviewer edited the call; the edited call goes on to the tool",
      {
        ...detail,
        from: { name: call.name, args: call.args },
      },
    );
    const editedRequest = {
      ...request,
      toolCall: { ...request.toolCall, name: edited.name, args: answer.editedAction.args },
      // Another tool: LangChain's handler finds it by name.
      ...(edited.name !== call.name ? { tool: undefined } : {}),
    };
    return reviewed(await runToolSafely(editedRequest, handler), call.id, {
      reviewed: "edit",
      rules: detail.rules,
      edited: { name: edited.name, args: edited.args },
    });
  }

  private batchVerdicts(messages: readonly BaseMessage[], at: number, context: unknown): CallVerdict[] {
    const asking = messages[at] as object;
    const cached = this.verdicts.get(asking);
    if (cached && cached.context === context) return cached.verdicts;
    const history = at === messages.length - 1 ? messages : messages.slice(0, at + 1);
    // The calls that reach it: one the repair middleware, a guard outside or a middleware before
    // the tools node answered did not run, and is no earlier call of the batch for a rule. Read
    // once per turn: the refusals noted since include this guard's own.
    const outside = answeredOutside(asking, messages, at);
    const reaching = cached?.reaching ?? judgedCalls(asking).filter((call) => !outside.has(call.id));
    const verdicts = decideBatch(this.policy, context, history, reaching);
    this.verdicts.set(asking, { context, verdicts, reaching });
    // The guards inside this one decide the turn once a call reaches them: the calls it denies never will.
    if (!this.observeOnly)
      for (const { call, verdict } of verdicts) if (verdict.decision === "deny") outside.add(call.id);
    return verdicts;
  }

  private facts(messages: readonly BaseMessage[], call: ToolCallView, context: unknown, before: ToolCallView[]) {
    let past: PastCall[] | undefined;
    return { call, context, past: () => (past ??= pastCalls(messages)), batchBefore: before };
  }

  private refuse(call: ToolCallView, rules: readonly RuleHit[]): ToolMessage {
    return guardToolMessage(call, this.name, "directive", deniedText(rules));
  }

  private signal(
    call: ToolCallView,
    action: GuardAction,
    code: SignalCode,
    reason: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    return signalCall(this.callGuard, call, { action, code, reason, detail });
  }
}

/** A verdict as the decision replay and `harness-kit eval` report. */
function asDecision(verdict: PolicyVerdict): CallDecision["decision"] {
  if (verdict.decision === "allow") return { action: "allow" };
  if (verdict.decision === "deny")
    return {
      action: "directive",
      code: "policy_denied",
      reason: deniedReason(verdict.rules),
      message: deniedText(verdict.rules),
      detail: ruleDetail(verdict.rules),
    };
  return { action: "warn", code: "policy_ask", reason: askedReason(verdict.rules), detail: ruleDetail(verdict.rules) };
}

/** For people reading signals: the rules that denied, each with its reason. */
function deniedReason(rules: readonly RuleHit[]): string {
  return `denied by ${rules.map((r) => `${r.id} (${r.reason})`).join(", ")}`;
}

function askedReason(rules: readonly RuleHit[]): string {
  return `approval asked by ${rules.map((r) => `${r.id} (${r.reason})`).join(", ")}`;
}

function ruleDetail(rules: readonly RuleHit[]): { rules: string[]; reasons: string[]; found: string[] } {
  return {
    rules: rules.map((r) => r.id),
    reasons: rules.map((r) => r.reason),
    found: [...new Set(rules.flatMap((r) => r.found))],
  };
}

function argsObject(args: unknown): Record<string, unknown> {
  return args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** The tool's answer with the review recorded in its metadata, so history (and flow rules) know what ran and why. */
function reviewed(
  result: ToolMessage | Command,
  callId: string,
  record: Record<string, unknown>,
): ToolMessage | Command {
  const stamp = (message: ToolMessage) =>
    new ToolMessage({
      content: message.content,
      tool_call_id: message.tool_call_id,
      name: message.name,
      id: message.id,
      status: message.status,
      artifact: message.artifact,
      additional_kwargs: message.additional_kwargs,
      response_metadata: { ...message.response_metadata, [POLICY_METADATA_KEY]: record },
      metadata: message.metadata,
    });
  if (ToolMessage.isInstance(result)) return stamp(result);
  const command = result as Command;
  const update = command.update as Record<string, unknown> | undefined;
  if (!update || !Array.isArray(update.messages)) return result;
  const messages = update.messages.map((m: unknown) =>
    ToolMessage.isInstance(m) && m.tool_call_id === callId ? stamp(m) : m,
  );
  return new Command({ ...command, update: { ...update, messages } });
}

// The graphs the test's LangGraph server serves (see server.ts): the agent, and the agent under summaries.
import { serverTestAgent } from "./agent.js";

export const agent = serverTestAgent({ summarised: false });
export const summarised = serverTestAgent({ summarised: true });

// Child process that runs the in-memory LangGraph server of `langgraph dev` (@langchain/langgraph-api)
// on the graphs of graph.ts: `node --import tsx server.ts <port> <folder>`. The server keeps its
// threads in <folder>. It tells its parent the URL, and stops when the parent says "stop" or goes away.
import { startServer } from "@langchain/langgraph-api/server";

const [port, cwd] = process.argv.slice(2) as [string, string];
const graph = new URL("./graph.ts", import.meta.url).pathname;

const { host, cleanup } = await startServer({
  port: Number(port),
  host: "127.0.0.1",
  nWorkers: 2,
  cwd,
  graphs: { agent: `${graph}:agent`, summarised: `${graph}:summarised` },
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await cleanup().catch(() => undefined);
  process.exit(0);
}

process.on("message", (message) => message === "stop" && void stop());
process.on("disconnect", () => void stop());
process.send?.({ url: `http://${host}` });

// `npm run demo`: every harness-kit guard firing inside real createAgent graphs driven by a
// scripted model (no API key), each next to the same run without the guard.
import { demoBudgetAndBinary } from "./budget.demo.js";
import { demoLoopGuards } from "./loopGuards.demo.js";
import { demoOutputValidator } from "./validator.demo.js";
import { demoRepairAndPaths } from "./repair.demo.js";
import { demoReplay } from "./replay.demo.js";
import { demoRunaway } from "./runaway.demo.js";

console.log("harness-kit demo: the same scripted agents, without and with each guard");
await demoLoopGuards();
await demoReplay();
await demoBudgetAndBinary();
await demoOutputValidator();
await demoRepairAndPaths();
await demoRunaway();

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";

/**
 * The packed tarball in a project of its own, as a user installs it. Offline and quick: the project's
 * node_modules links every package of this repository's node_modules (the peers, at the versions the
 * tests use) beside the unpacked tarball, which is what `npm install <tarball>` leaves when the peers
 * are already there. (pack.test.ts installs the tarball with npm itself.) Here: the build keeps its
 * class names, and every TypeScript example of the README and docs/ compiles and runs.
 */

const root = resolve(import.meta.dirname, "..", "..");
let work = "";
let app = "";

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "hk-packed-"));
  // Pack a copy of what the build reads: pack.test.ts rebuilds this repository's dist/ meanwhile.
  const copy = join(work, "repo");
  for (const file of ["package.json", "tsup.config.ts", "tsconfig.json", "README.md", "LICENSE", "src"])
    cpSync(join(root, file), join(copy, file), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: copy, encoding: "utf8" })
    .trim()
    .split("\n")
    .at(-1)!;

  app = join(work, "app");
  const modules = join(app, "node_modules");
  mkdirSync(join(modules, "harness-kit"), { recursive: true });
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name.startsWith(".") || name === "harness-kit") continue;
    symlinkSync(join(root, "node_modules", name), join(modules, name));
  }
  execFileSync("tar", ["-xzf", join(work, tarball), "-C", join(modules, "harness-kit"), "--strip-components=1"]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const runIn = (script: string, source: string): string => {
  writeFileSync(join(app, script), source);
  return execFileSync("node", [script], { cwd: app, encoding: "utf8" });
};

// Every exported class, by entry: [entry, export name, the class's own `name`].
const LIST_CLASSES = (load: string) => `
${load}
const found = [];
for (const [entry, exports] of Object.entries(entries)) {
  for (const [key, value] of Object.entries(exports)) {
    if (typeof value === "function" && /^class\\b/.test(Function.prototype.toString.call(value))) found.push([entry, key, value.name]);
  }
}
console.log(JSON.stringify(found));
`;

describe("the built package", () => {
  it.each([
    [
      "esm.mjs",
      `import * as main from "harness-kit"; import * as testing from "harness-kit/testing"; import * as node from "harness-kit/node"; import * as observe from "harness-kit/observe"; const entries = { main, testing, node, observe };`,
    ],
    [
      "cjs.cjs",
      `const entries = { main: require("harness-kit"), testing: require("harness-kit/testing"), node: require("harness-kit/node"), observe: require("harness-kit/observe") };`,
    ],
  ])("keeps every exported class's name (%s)", (script, load) => {
    const classes = JSON.parse(runIn(`classes-${script}`, LIST_CLASSES(load))) as Array<[string, string, string]>;
    expect(classes.map(([, key]) => key)).toEqual(
      expect.arrayContaining([
        "GuardStopError",
        "InvalidOptionsError",
        "LoopGuardMiddleware",
        "ScriptedChatModel",
        "PathGuardMiddleware",
        "ObservationStore",
      ]),
    );
    expect(classes.filter(([, key, name]) => key !== name)).toEqual([]);
  });

  it("a stop thrown through createAgent is named GuardStopError and found inside LangChain's wrapper", () => {
    const out = runIn(
      "stop.mjs",
      `
import { createAgent } from "langchain";
import { tool } from "@langchain/core/tools";
import { GuardStopError, LoopGuardMiddleware } from "harness-kit";
import { ScriptedChatModel } from "harness-kit/testing";
const search = tool(async () => "same", { name: "search", description: "search", schema: { type: "object", properties: {} } });
const model = new ScriptedChatModel({ turns: Array.from({ length: 9 }, () => ({ toolCalls: [{ name: "search", args: {} }] })) });
const agent = createAgent({ model, tools: [search], middleware: [new LoopGuardMiddleware({ stopAt: 3, warnAt: 2, exitBehavior: "throw" })] });
try {
  await agent.invoke({ messages: [{ role: "user", content: "go" }] });
  console.log("{}");
} catch (error) {
  const stop = GuardStopError.in(error);
  console.log(JSON.stringify({ thrown: error.constructor.name, name: error.name, isStop: error instanceof GuardStopError, found: stop?.name }));
}
`,
    );
    // LangChain 1.5 wraps it in a MiddlewareError that copies its name (README, API: GuardStopError).
    expect(JSON.parse(out)).toEqual({
      thrown: "MiddlewareError",
      name: "GuardStopError",
      isStop: false,
      found: "GuardStopError",
    });
  });
});

// ---- Every TypeScript example of the README and docs/, compiled and run against the tarball ----

/** A ```ts block: where it is, and its code. */
interface Example {
  where: string;
  code: string;
}

function examplesIn(file: string): Example[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue;
    const end = lines.indexOf("```", i + 1);
    found.push({ where: `${file}:${i + 1}`, code: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return found;
}

const DOCS = [
  "README.md",
  ...readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f.split("\\").join("/")}`)
    .sort(),
];
const EXAMPLES = DOCS.flatMap(examplesIn);

/**
 * What the examples leave to the reader, each given only to an example that does not declare the
 * name itself: the packages' names an excerpt uses without its imports, and the app's own things
 * (a model, tools, a metrics client). The model is scripted and declares a window, and each model
 * string ("openai:…") is played by it, so the examples run with no API key.
 */
const PRELUDE: ReadonlyArray<readonly [string, string]> = [
  ...[
    "createAgent",
    "summarizationMiddleware",
    "humanInTheLoopMiddleware",
    "toolErrorMiddleware",
    "toolRetryMiddleware",
    "modelRetryMiddleware",
    "modelCallLimitMiddleware",
    "toolCallLimitMiddleware",
  ].map((name) => [name, `const ${name} = __langchain.${name};`] as const),
  ...[
    "recommendedGuards",
    "SIGNAL_EVENT",
    "LoopGuardMiddleware",
    "ProgressAwareLoopGuardMiddleware",
    "OutputValidatorMiddleware",
    "InMemoryLastKnownGoodCache",
  ].map((name) => [name, `const ${name} = __kit.${name};`] as const),
  ["Signal", "type Signal = __kit.Signal;"],
  ["HumanMessage", "const HumanMessage = __messages.HumanMessage;"],
  ["BaseCallbackHandler", "const BaseCallbackHandler = __callbacks.BaseCallbackHandler;"],
  ["traceable", "const traceable = __traceable.traceable;"],
  ["z", "const z = __zod.z;"],
  [
    "model",
    `const model = new __testing.ScriptedChatModel({ turns: [{ toolCalls: [{ name: "search", args: { q: "x" } }] }, { text: "done" }], profile: { maxInputTokens: 128_000 } });`,
  ],
  ...["search", "statTool", "readFile"].map(
    (name) =>
      [
        name,
        `const ${name} = __tools.tool(async ({ q }: { q: string }) => \`${name} \${q}\`, { name: "${name}", description: "${name}", schema: __zod.z.object({ q: __zod.z.string() }) });`,
      ] as const,
  ),
  [
    "tools",
    'const tools = [__tools.tool(async ({ q }: { q: string }) => `results for ${q}`, { name: "search", description: "search", schema: __zod.z.object({ q: __zod.z.string() }) })];',
  ],
  ["metrics", "const metrics = { increment: (_key: string) => {}, record: (_report: unknown) => {} };"],
  ["messages", 'const messages = [new __messages.HumanMessage("go")];'],
  ["input", 'const input = { messages: [new __messages.HumanMessage("go")] };'],
  ["writeTools", 'const writeTools = ["send_email"];'],
  ["guards", "const guards = __kit.recommendedGuards();"],
  ["onError", "const onError = (error: unknown) => `failed: ${String(error)}`;"],
  ["TimeoutError", "class TimeoutError extends Error {}"],
  ["RateLimitError", "class RateLimitError extends Error {}"],
  ["signals", "const signals: __kit.Signal[] = [];"],
  [
    "agent",
    'const agent = __langchain.createAgent({ model: new __testing.ScriptedChatModel({ turns: [{ text: "done" }] }), tools: [], middleware: __kit.recommendedGuards().agent });',
  ],
  [
    "pollingAgent",
    'const pollingAgent = (onSignal: (signal: __kit.Signal) => void) => __langchain.createAgent({ model: new __testing.ScriptedChatModel({ turns: [{ text: "done" }] }), tools: [], middleware: __kit.recommendedGuards({ onSignal }).agent });',
  ],
];
const PRELUDE_IMPORTS = `import * as __langchain from "langchain";
import * as __kit from "harness-kit";
import * as __testing from "harness-kit/testing";
import * as __messages from "@langchain/core/messages";
import * as __tools from "@langchain/core/tools";
import * as __callbacks from "@langchain/core/callbacks/base";
import * as __traceable from "langsmith/traceable";
import * as __zod from "zod";`;

/** The names an example declares at its top level (imports included). */
function declaredBy(code: string): Set<string> {
  const source = ts.createSourceFile("example.ts", code, ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) names.add(element.name.text);
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if (
      (ts.isClassDeclaration(statement) ||
        ts.isFunctionDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

/** The example as a module of the app: its imports first, then what it leaves to the reader, then its code. */
function moduleOf(example: Example): string {
  const code = example.code.replace(/"(openai|anthropic):[^"]*"/g, "model");
  const declared = declaredBy(code);
  const source = ts.createSourceFile("example.ts", code, ts.ScriptTarget.Latest, true);
  const imports = source.statements.filter(ts.isImportDeclaration).map((s) => s.getText(source));
  const body = source.statements
    .filter((s) => !ts.isImportDeclaration(s))
    .map((s) => s.getFullText(source))
    .join("");
  const given = PRELUDE.filter(([name]) => !declared.has(name)).map(([, line]) => line);
  // An agent the example builds and does not run gets one run, as the reader would give it (the
  // Postgres one needs a server, so it is built only).
  const run =
    declared.has("agent") && !/\bagent\.(invoke|streamEvents)\(/.test(code) && !code.includes("DATABASE_URL")
      ? ['await agent.invoke({ messages: [new __messages.HumanMessage("go")] }, { configurable: { thread_id: "t" } });']
      : [];
  return [...imports, PRELUDE_IMPORTS, ...given, body, ...run, "export {};", ""].join("\n");
}

describe("the README's and docs' examples, against the packed tarball", () => {
  it("finds the examples of every page", () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(EXAMPLES.map((e) => e.where.split(":")[0]))).toEqual(
      new Set([
        "README.md",
        "docs/api.md",
        "docs/composing.md",
        "docs/observe.md",
        "docs/policy.md",
        "docs/signals.md",
        "docs/testing-kit.md",
        "docs/workers.md",
        ...["binary", "budget", "loop", "output", "overflow", "path", "policy", "progress", "repair", "runaway"].map(
          (guard) => `docs/guards/${guard}.md`,
        ),
      ]),
    );
  });

  it("each compiles (strict, nodenext) and runs to its end", () => {
    const project = join(app, "examples");
    mkdirSync(project, { recursive: true });
    // The saved thread the testing kit's example loads.
    writeFileSync(
      join(project, "run.json"),
      JSON.stringify({
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: "done" },
        ],
      }),
    );
    const files = EXAMPLES.map((example, i) => {
      const file = `example${String(i).padStart(2, "0")}.ts`;
      writeFileSync(join(project, file), `// ${example.where}\n${moduleOf(example)}`);
      return { file, where: example.where };
    });
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      strict: true,
      skipLibCheck: true,
      types: ["node"],
      outDir: "out",
      rootDir: ".",
    };
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: files.map((f) => f.file) }));
    try {
      execFileSync("node", [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project], {
        cwd: project,
        encoding: "utf8",
        stdio: "pipe",
      });
    } catch (error) {
      const where = new Map(files.map((f) => [f.file, f.where]));
      const report = String((error as { stdout?: string }).stdout ?? error).replace(
        /example\d\d\.ts/g,
        (file) => `${file} (${where.get(file)})`,
      );
      throw new Error(`examples do not compile:\n${report}`);
    }
    // One process runs them all in turn (each module once), and says which threw.
    writeFileSync(
      join(project, "run.mjs"),
      `
const failed = {};
for (const file of ${JSON.stringify(files.map((f) => f.file.replace(/\.ts$/, ".js")))}) {
  try { await import("./out/" + file); } catch (error) { failed[file] = String(error && error.stack || error).split("\\n").slice(0, 3).join(" | "); }
}
console.log(JSON.stringify(failed));
`,
    );
    const out = execFileSync("node", ["run.mjs"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" },
    });
    const failed = JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, string>;
    const where = new Map(files.map((f) => [f.file.replace(/\.ts$/, ".js"), f.where]));
    expect(Object.entries(failed).map(([file, error]) => `${where.get(file)}: ${error}`)).toEqual([]);
  }, 180_000);
});

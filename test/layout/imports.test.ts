import { readdirSync, readFileSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The import direction of docs/architecture.md, enforced. Every file of src/ sits in one layer;
// a file may import from its own layer and the layers above it in this table, never below.

// rank  layer                                       files (the first row that matches wins)
const LAYERS: ReadonlyArray<readonly [number, string, RegExp]> = [
  [0, "core", /^src\/core\//],
  [1, "observe", /^src\/observe\//],
  [2, "pure guard files", /^src\/guards\/[^/]+\/(?!index\.ts$)(?![^/]*Middleware\.ts$)/],
  [2, "offload", /^src\/offload\//],
  [3, "adapters", /^src\/hooks\//],
  [4, "middleware classes", /^src\/guards\/[^/]+\/[^/]*Middleware\.ts$/],
  [4, "feature indexes", /^src\/guards\/[^/]+\/index\.ts$/],
  [6, "entries", /^src\/(index|node|observe|testing\/index)\.ts$/],
  [5, "stack, replay, tools, testing kit", /^src\/(stack|replay|tools|testing)\//],
  [6, "cli", /^src\/cli\//],
];

// Who may import the package `langchain` (its agent and middleware API). The stack takes its
// `AgentMiddleware` type only; the entries re-export our own files and import nothing else.
const MAY_IMPORT_LANGCHAIN = /^src\/(hooks\/|guards\/[^/]+\/[^/]*Middleware\.ts$)/;
const MAY_IMPORT_LANGCHAIN_TYPES = /^src\/stack\//;

// What an example may import besides npm packages and its neighbours in examples/: a user copies
// an example out of the repository, so nothing from test/ or src/.
const PACKAGE_ENTRIES = new Set(["harness-kit", "harness-kit/node", "harness-kit/observe", "harness-kit/testing"]);

const root = join(import.meta.dirname, "..", "..");

interface Import {
  from: string;
  specifier: string;
  /** The repository path the specifier names, for a relative one. */
  target?: string;
  typeOnly: boolean;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (literal: ts.Expression | undefined, typeOnly: boolean) => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    const specifier = literal.text;
    const target = specifier.startsWith(".")
      ? posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, ".ts")
      : undefined;
    found.push({ from: file, specifier, ...(target ? { target } : {}), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const allTypes =
        !!clause &&
        (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function layerOf(file: string): { rank: number; name: string } {
  const row = LAYERS.find(([, , files]) => files.test(file));
  if (!row) throw new Error(`${file} is in no layer: add it to the table`);
  return { rank: row[0], name: row[1] };
}

const isLangchain = (specifier: string) => specifier === "langchain" || specifier.startsWith("langchain/");
const describeImport = (i: Import) => `${i.from} imports ${i.target ?? i.specifier}`;

const srcFiles = filesUnder("src");
const srcImports = srcFiles.flatMap(importsOf);

describe("import direction in src/", () => {
  it("every file of src/ is in a layer", () => {
    for (const file of srcFiles) expect(() => layerOf(file)).not.toThrow();
  });

  it("no import points down the layer table", () => {
    const upward = srcImports
      .filter((i) => i.target?.startsWith("src/"))
      .filter((i) => layerOf(i.target!).rank > layerOf(i.from).rank)
      .map((i) => `${describeImport(i)} (${layerOf(i.from).name} -> ${layerOf(i.target!).name})`);
    expect(upward).toEqual([]);
  });

  it("only adapters and middleware classes import langchain (the stack: types only)", () => {
    const misplaced = srcImports
      .filter((i) => isLangchain(i.specifier))
      .filter((i) => !MAY_IMPORT_LANGCHAIN.test(i.from) && !(i.typeOnly && MAY_IMPORT_LANGCHAIN_TYPES.test(i.from)))
      .map(describeImport);
    expect(misplaced).toEqual([]);
  });

  it("nothing outside src/cli imports src/cli", () => {
    const intoCli = srcImports
      .filter((i) => i.target?.startsWith("src/cli/") && !i.from.startsWith("src/cli/"))
      .map(describeImport);
    expect(intoCli).toEqual([]);
  });

  it("the entries only re-export", () => {
    for (const entry of ["src/index.ts", "src/node.ts", "src/observe.ts", "src/testing/index.ts"]) {
      const source = ts.createSourceFile(entry, readFileSync(join(root, entry), "utf8"), ts.ScriptTarget.Latest);
      const other = source.statements
        .filter((s) => !ts.isExportDeclaration(s))
        .map((s) => `${entry}: ${s.getText(source).slice(0, 60)}`);
      expect(other).toEqual([]);
    }
  });
});

describe("examples", () => {
  it("import harness-kit only through its package entries", () => {
    const stray = filesUnder("examples")
      .flatMap(importsOf)
      .filter((i) =>
        i.target
          ? !i.target.startsWith("examples/")
          : i.specifier.startsWith("harness-kit") && !PACKAGE_ENTRIES.has(i.specifier),
      )
      .map(describeImport);
    expect(stray).toEqual([]);
  });

  it("import nothing from test/", () => {
    const fromTests = filesUnder("examples")
      .flatMap(importsOf)
      .filter((i) => i.target?.startsWith("test/"))
      .map(describeImport);
    expect(fromTests).toEqual([]);
  });
});

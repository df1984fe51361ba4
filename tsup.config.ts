import { defineConfig } from "tsup";

// `npm run build` empties dist first (two configs build at once, so neither cleans).
// No source maps: the build is not minified, so stack traces already name our functions and
// lines close to the source, and maps would double the package (README, "Package").
export default defineConfig([
  {
    // The library: ESM and CommonJS, with types for both.
    entry: {
      index: "src/index.ts",
      "testing/index": "src/testing/index.ts",
      node: "src/node.ts",
      observe: "src/observe.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: false,
    clean: false,
    target: "node20",
    // Code the entries share (the error classes above all) goes into shared chunks, once: with a
    // copy per entry, an InvalidOptionsError thrown from "harness-kit/node" would fail
    // `instanceof` against the class imported from "harness-kit".
    splitting: true,
    // Classes keep their names: esbuild renames a class that refers to itself (`_ScriptedChatModel`),
    // and `name` is what an error's `name` and a stack trace print.
    keepNames: true,
  },
  {
    // The CLI: the ESM file that `bin` runs (nobody imports it), and the chunk it loads once it
    // has started its replay workers (src/cli/main.ts).
    entry: { main: "src/cli/main.ts" },
    outDir: "dist/cli",
    format: ["esm"],
    dts: false,
    sourcemap: false,
    clean: false,
    target: "node20",
    splitting: true,
    keepNames: true,
  },
]);

import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The package's four entries, resolved to the sources (as tsconfig.json's `paths` does for tsc
// and tsx), so a test can run an example that imports "harness-kit" without a build.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^harness-kit$/, replacement: source("./src/index.ts") },
      { find: /^harness-kit\/node$/, replacement: source("./src/node.ts") },
      { find: /^harness-kit\/observe$/, replacement: source("./src/observe.ts") },
      { find: /^harness-kit\/testing$/, replacement: source("./src/testing/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

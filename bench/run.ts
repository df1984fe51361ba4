// Runs every bench/*.bench.ts in one process, one after another, and prints their markdown
// sections. `npm run bench -- budget` runs only the benches whose file name contains "budget".
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? "";
const files = readdirSync(here)
  .filter((file) => file.endsWith(".bench.ts") && file.includes(filter))
  .sort();

console.log(`# harness-kit benchmarks\n\nNode ${process.version}, ${new Date().toISOString()}\n`);
for (const file of files) {
  const bench = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<string> };
  console.log(await bench.default());
  console.log();
}

#!/usr/bin/env node
// The `sluice` command on Node (the npm bin). An installed package runs its build
// (dist/src/cli/mod.js); a clone of the repository runs the TypeScript source through tsx's API,
// also when `npm pack` left a build there, which would be stale after the next edit. A clone is
// told by its tsconfig.json, which the package does not ship. Deno and Bun run src/cli/mod.ts
// directly.
import { existsSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/src/cli/mod.js", import.meta.url);
const clone = existsSync(fileURLToPath(new URL("../tsconfig.json", import.meta.url)));
let cli;
if (!clone && existsSync(fileURLToPath(built))) {
  cli = await import(built.href);
} else {
  const { tsImport } = await import("tsx/esm/api");
  cli = await tsImport("../src/cli/mod.ts", import.meta.url);
}
// main() returns once stdout and stderr have taken all it wrote.
process.exit(await cli.main(process.argv.slice(2)));

#!/usr/bin/env node
// The `sluice` command on Node (the npm bin). An installed package runs its build
// (dist/src/cli/mod.js); a clone of the repository, which has no build, runs the TypeScript
// source through tsx's API. Deno and Bun run src/cli/mod.ts directly.
import { existsSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/src/cli/mod.js", import.meta.url);
let cli;
if (existsSync(fileURLToPath(built))) {
  cli = await import(built.href);
} else {
  const { tsImport } = await import("tsx/esm/api");
  cli = await tsImport("../src/cli/mod.ts", import.meta.url);
}
const code = await cli.main(process.argv.slice(2));
await new Promise((done) => process.stdout.write("", done));
await new Promise((done) => process.stderr.write("", done));
process.exit(code);

// policies/README.md is generated from the policy schema: it must match what the generator writes
// now, every option of the schema must be documented (the generator throws otherwise), and a rate's
// row states the bounds of its numbers that the policy check enforces.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  formattedPolicyReference,
  OPTION_NOTES,
  optionName,
  optionPaths,
} from "../../scripts/policy-reference.ts";
import { checkPolicy, compilePolicy } from "../../src/policy/compile-policy.ts";

test("policies/README.md is what `npm run docs` writes from the policy schema", () => {
  const onDisk = readFileSync(new URL("../../policies/README.md", import.meta.url), "utf8");
  assert.equal(onDisk, formattedPolicyReference(), "policies/README.md is stale: run `npm run docs`");
});

test("every policy option has a note, and every note an option", () => {
  const paths = optionPaths();
  assert.deepEqual(paths.toSorted(), Object.keys(OPTION_NOTES).toSorted());
  assert.ok(paths.includes("maxJsonDepth") && paths.includes("transport.stdio.env"));
});

test("the transport options are named as a policy writes them, and a policy naming them so compiles", () => {
  const onDisk = readFileSync(new URL("../../policies/README.md", import.meta.url), "utf8");
  assert.deepEqual(
    [
      onDisk.includes("`transport.http."),
      onDisk.includes("`transport.stdio."),
      /\| `transport\.url` +\|/.test(onDisk),
    ],
    [false, false, true],
  );
  assert.deepEqual(
    ["transport.http.auth.oauth.scopes", "transport.stdio.cwd", "maxRounds"].map(optionName),
    ["transport.auth.oauth.scopes", "transport.cwd", "maxRounds"],
  );
  const policy = compilePolicy({
    server: "s",
    transport: { command: "node", args: [], cwd: "/tmp", env: {} },
  });
  assert.deepEqual(policy.transport, { kind: "stdio", command: "node", args: [], env: {}, cwd: "/tmp" });
});

test("policies/README.md states the bounds of each rate's numbers, the ones checkPolicy() enforces", () => {
  const onDisk = readFileSync(new URL("../../policies/README.md", import.meta.url), "utf8");
  const accepts = (option: string) => new RegExp(`^\\| \`${option}\` +\\| (.+?) +\\|`, "m").exec(onDisk)?.[1];
  const integers = "an integer from 1 to 1000000";
  const duration = 'a duration such as "500ms", "60s", "5m" or "1h", whole milliseconds from "1ms" to "596h"';
  assert.deepEqual(
    ["inputRateLimit", "logRateLimit"].map(accepts),
    ["inputRateLimit", "logRateLimit"].map(() =>
      `an object { rate, per, burst }: \`rate\` ${integers}; \`per\` ${duration}; \`burst\` ${integers}`
    ),
  );
  const base = { server: "s", transport: { url: "https://mcp.example.com/mcp" } };
  const problems = (rate: unknown) =>
    checkPolicy({ ...base, inputRateLimit: rate, logRateLimit: rate }).map((p) => p.message);
  assert.deepEqual(problems({ rate: 1, per: "596h", burst: 1 }), []);
  assert.deepEqual(problems({ rate: 1_000_000, per: "1ms", burst: 1_000_000 }), []);
  // Each option's three problems, in the order the rate names its numbers.
  const refused = (rate: string, per: string, burst: string) =>
    ["inputRateLimit", "logRateLimit"].flatMap((option) => [
      `"${option}.rate" must be ${integers}, received ${rate}`,
      `"${option}.per" must be ${duration}, received ${per}`,
      `"${option}.burst" must be ${integers}, received ${burst}`,
    ]);
  assert.deepEqual(
    [
      problems({ rate: 0, per: "597h", burst: 1_000_001 }),
      problems({ rate: 1_000_001, per: "0ms", burst: 0 }),
    ],
    [refused("0", '"597h"', "1000001"), refused("1000001", '"0ms"', "0")],
  );
});

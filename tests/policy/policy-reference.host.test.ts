// policies/README.md is generated from the policy schema: it must match what the generator writes
// now, and every option of the schema must be documented (the generator throws otherwise).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  formattedPolicyReference,
  OPTION_NOTES,
  optionName,
  optionPaths,
} from "../../scripts/policy-reference.ts";
import { compilePolicy } from "../../src/policy/compile-policy.ts";

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

// The public root holds the contract's values and nothing else at run time, and `@sluice/mcp/types`
// holds types only: a new value on either is a decision, made here on purpose.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as root from "../../mod.ts";
import * as types from "../../src/types.ts";

describe("the public entries", () => {
  test("@sluice/mcp exports the contract's eight values, openTelemetryDecisions, PolicyError and the sign-in errors", () => {
    assert.deepEqual(Object.keys(root).sort(), [
      "ClientError",
      "PolicyError",
      "SignInRequiredError",
      "UpstreamAuthError",
      "createClient",
      "createFront",
      "defineHandler",
      "definePolicy",
      "handlerApp",
      "openTelemetryDecisions",
      "remoteHandler",
      "sanitizeText",
      "signInRequiredBy",
    ]);
  });

  test("@sluice/mcp/types exports no value", () => {
    assert.deepEqual(Object.keys(types), []);
  });
});

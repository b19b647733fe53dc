// ClientError's details, as a user with exactOptionalPropertyTypes writes them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClientError, type ClientErrorDetails } from "../src/errors.ts";

test("ClientError takes details written as undefined as left out: no code, data, server id or cause", () => {
  const details: ClientErrorDetails = {
    code: undefined,
    data: undefined,
    serverId: undefined,
    cause: undefined,
  };
  const error = new ClientError("server", "refused", details);
  assert.deepEqual(
    [error.kind, error.message, error.code, error.data, error.serverId, "cause" in error],
    ["server", "refused", undefined, undefined, undefined, false],
  );
});

// ClientError's details, as a user with exactOptionalPropertyTypes writes them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClientError, type ClientErrorDetails } from "../src/errors.ts";
import { SignInRequiredError } from "../src/upstream-auth-error.ts";

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

test("SignInRequiredError tells the client's own sign-in how to make it, and a gateway caller's where: never `sluice login`, which signs in no caller", () => {
  assert.deepEqual(
    [
      new SignInRequiredError({ server: "files", principal: "" }).message,
      new SignInRequiredError({ server: "files", principal: "bob" }).message,
    ],
    [
      'server "files" needs a sign-in (give the handler an `authorize` callback, or run `sluice login files`)',
      'server "files" needs caller "bob" to sign in, at the gateway\'s sign-in page (offered to a caller that declares URL elicitation)',
    ],
  );
});

// Shared pieces of the legacy client tests: the legacy entry's client over a scripted legacy HTTP
// server, reached through its injected fetch so the tests run on every runtime.
import { createClient } from "../../../src/client/legacy/legacy-client.ts";
import type { Client } from "../../../src/client/client-types.ts";
import type { Timers } from "../../../src/_internal/timers.ts";
import type { Clock } from "../../../src/_internal/clock.ts";
import type { Policy } from "../../../src/policy/policy.ts";
import {
  postsOnly,
  type Reply,
  type ScriptedServer,
  scriptedServer,
} from "../../_support/scripted-server.ts";
import { URL_ } from "../_client-fixtures.ts";

/**
 * A legacy client of server `"demo"` over a scripted server answering its requests with `reply`
 * and its notifications with 202 Accepted; the standalone GET stream and the closing DELETE
 * (no body) are answered 405, as the spec allows.
 */
export function legacySetup(
  reply: Reply,
  options: {
    readonly callTimeout?: Policy["callTimeout"];
    readonly maxTotalTimeout?: Policy["maxTotalTimeout"];
    readonly time?: Timers & Clock;
    /** Sees each HTTP request the client makes, in order, the GET and DELETE included. */
    readonly onFetch?: (init: RequestInit) => void;
  } = {},
): { client: Client; server: ScriptedServer } {
  const server = scriptedServer((request, index) =>
    request.body.id === undefined ? new Response(null, { status: 202 }) : reply(request, index)
  );
  const { callTimeout, maxTotalTimeout, time } = options;
  const client = createClient({
    name: "agent",
    policies: [{
      server: "demo",
      transport: { url: URL_ },
      era: "legacy",
      ...(callTimeout === undefined ? {} : { callTimeout }),
      ...(maxTotalTimeout === undefined ? {} : { maxTotalTimeout }),
    }],
    ...(time === undefined ? {} : { timers: time, clock: time }),
    fetch: (url, init) => {
      options.onFetch?.(init);
      return postsOnly(server)(url, init);
    },
  });
  return { client, server };
}

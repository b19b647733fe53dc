/**
 * A Worker that puts sluice in front of one upstream MCP server. Callers speak MCP 2026-07-28
 * to `POST /mcp/upstream`, or 2025-11-25 / 2025-06-18 with a session (each session in its own
 * Durable Object, `SluiceSessions` below); sluice applies the policy below to everything the
 * upstream asks of the client. It answers `roots/list` itself with a fixed list, and passes
 * elicitations (forms a person fills in) down to the caller: a 2026 caller answers them on its
 * retry, a 2025 host as a request on its session's stream. It has no LLM of its own, so
 * sampling requests are refused.
 *
 * Callers authenticate with a bearer token (`Authorization: Bearer <GATEWAY_TOKEN>`); without
 * the secret `GATEWAY_TOKEN` the Worker answers every request `500` rather than run open.
 *
 * @module
 */
import { createWorker, type SessionsBinding } from "@sluice/mcp/workers";

/** The Worker's bindings (see wrangler.jsonc and README.md). */
export interface Env {
  /** The upstream MCP endpoint (a var). */
  readonly UPSTREAM_URL: string;
  /** A bearer token for the upstream (an optional secret). */
  readonly UPSTREAM_TOKEN?: string;
  /** Seals continuation states: at least 32 random bytes (a secret, required). */
  readonly SLUICE_STATE_KEY: string;
  /**
   * The token callers send as `Authorization: Bearer …`: at least 32 random bytes (a secret,
   * required: unset, every request is answered `500` naming "auth").
   */
  readonly GATEWAY_TOKEN?: string;
  /** A second token accepted while rotating `GATEWAY_TOKEN` (an optional secret). */
  readonly GATEWAY_TOKEN_NEXT?: string;
  /** Upstash Redis, for budgets shared by every isolate (optional secrets, both or neither). */
  readonly UPSTASH_REDIS_REST_URL?: string;
  /** See `UPSTASH_REDIS_REST_URL`. */
  readonly UPSTASH_REDIS_REST_TOKEN?: string;
  /** The Durable Object namespace of 2025 hosts' sessions (`SluiceSessions`, in wrangler.jsonc). */
  readonly SLUICE_SESSIONS?: SessionsBinding;
}

const worker = createWorker<Env>({
  name: "sluice-worker-example",
  // Who may call: whoever holds GATEWAY_TOKEN (or GATEWAY_TOKEN_NEXT, while rotating). Both stand
  // for one subject, so its input budget carries over a rotation. Returning nothing when the
  // secret is unset makes every request a 500 naming "auth", never an open gateway.
  auth: (env) =>
    env.GATEWAY_TOKEN === undefined || env.GATEWAY_TOKEN === "" ? undefined : {
      bearer: [env.GATEWAY_TOKEN, env.GATEWAY_TOKEN_NEXT]
        .filter((secret): secret is string => secret !== undefined && secret !== "")
        .map((secret) => ({ secret, subject: "gateway-client" })),
    },
  policies: (env) => [{
    server: "upstream",
    transport: {
      url: env.UPSTREAM_URL,
      ...(env.UPSTREAM_TOKEN === undefined
        ? {}
        : { headers: { authorization: `Bearer ${env.UPSTREAM_TOKEN}` } }),
    },
    era: "modern",
    // Forms only: a URL elicitation would send the caller's user to a page the upstream chose.
    elicitation: { modes: ["form"], maxFields: 20 },
    passDown: ["elicitation"],
    // A person answers the form; the caller must retry within this time.
    stateTtl: "15m",
    sampling: false,
    inputRateLimit: { rate: 5, per: "1s", burst: 10 },
  }],
  handler: {
    roots: () => ({ roots: [{ uri: "file:///workspace", name: "workspace" }] }),
  },
});

export default worker;

/** The Durable Object class of 2025 hosts' sessions, bound as `SLUICE_SESSIONS` in wrangler.jsonc. */
export const SluiceSessions = worker.Sessions;

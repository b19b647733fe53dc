// The main module of the test pool's Worker: the Workers entry in front of the real modern peer
// (its URL in the binding UPSTREAM_URL, set by vitest.config.ts), with the sessions' Durable
// Object class bound as SLUICE_SESSIONS in wrangler.jsonc, so tests inside workerd can run a
// 2025 host's session in a real Durable Object.
import { createWorker, type SessionsBinding } from "../../src/adapters/workers.ts";

/** The bindings of the pool's Worker. */
export interface PoolEnv {
  readonly SLUICE_STATE_KEY: string;
  readonly UPSTREAM_URL: string;
  readonly SLUICE_SESSIONS: SessionsBinding;
}

const worker = createWorker<PoolEnv>({
  name: "workerd-pool",
  // Only the tests in this pool call it, through its binding.
  auth: "none",
  policies: (env) => [{
    server: "modern",
    transport: { url: env.UPSTREAM_URL },
    era: "modern",
    passDown: ["elicitation"],
  }],
});

export default worker;

/** The class bound as SLUICE_SESSIONS. */
export const SluiceSessions = worker.Sessions;

// A Worker for tests/runtime/workerd-serve.node.test.ts: the front in front of one modern upstream
// (`UPSTREAM_URL`), open to anyone, beating every 200 ms.
import { createWorker } from "../../../src/adapters/workers.ts";

export default createWorker<{ UPSTREAM_URL: string }>({
  auth: "none",
  heartbeat: "200ms",
  policies: (env) => [{ server: "hostile", transport: { url: env.UPSTREAM_URL }, era: "modern" }],
});

// Run by stdio-connection.host.test.ts on Node (with tsx), Deno or Bun, with a Node binary as its
// argument: connects to the scripted legacy server in its "linger" scenario (it outlives its stdin
// and exits on SIGTERM) through `sh -c`, prints `server <pid>`, then calls process.exit(130)
// without closing the connection, as the CLI does on a second Ctrl-C.
import process from "node:process";
import type { JsonRpcResultResponse } from "../../src/protocol/jsonrpc.ts";
import { createStdioConnection } from "../../src/transport/stdio-connection.ts";

const node = process.argv[2] ?? "node";
const connection = createStdioConnection({
  kind: "stdio",
  command: "sh",
  args: [
    "-c",
    '"$@"; echo done',
    "sh",
    node,
    "--import",
    "tsx",
    "tests/peers/legacy-stdio-server.ts",
    "linger",
  ],
  env: {},
  cwd: undefined,
})({ onServerMessage: () => {}, onClose: () => {} });
const answer = await connection.request(
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "pid", arguments: {} } },
  { signal: new AbortController().signal },
);
const { pid } = (answer as JsonRpcResultResponse).result.structuredContent as { pid: number };
await new Promise((resolve) => process.stdout.write(`server ${pid}\n`, resolve));
process.exit(130);

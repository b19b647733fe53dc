/**
 * A lean modern-era (2026-07-28) server for throughput benchmarks, run as its own process: it
 * does the least a conformant server must for three tools: `ask_form`, that needs one form
 * elicitation (check the headers against the body, ask, then answer the retry), `ask_rounds`,
 * that asks the same form `rounds` times (0 to 50) before it completes, checking every answer,
 * and `echo`, that answers at once, so the client's (or the front's) own cost is what the
 * benchmark sees. The real peers (tests/peers/) are for correctness; the official server package
 * builds a fresh server per request and would hide every client's cost.
 *
 * `--work-ms N` makes every `echo` take N ms before it answers, like a tool that does real work.
 *
 * Prints `FAST_PEER_URL <url>` once listening.
 *
 * @module
 */
import { createServer } from "node:http";
import { PEER_FORM } from "./_peer-form.ts";

const TOOLS = [
  { name: "ask_form", inputSchema: { type: "object", properties: {} } },
  {
    name: "ask_rounds",
    inputSchema: { type: "object", properties: { rounds: { type: "integer", minimum: 0, maximum: 50 } } },
  },
  { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
];

let next = 0;

function reply(id: unknown, result: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete", ...result } });
}

function error(id: unknown, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

function answer(headers: Record<string, string | string[] | undefined>, body: string): [number, string] {
  const message = JSON.parse(body) as { id: unknown; method: string; params?: Record<string, unknown> };
  const meta = (message.params?._meta ?? {}) as Record<string, unknown>;
  if (
    headers["mcp-protocol-version"] !== "2026-07-28" ||
    meta["io.modelcontextprotocol/protocolVersion"] !== "2026-07-28" ||
    headers["mcp-method"] !== message.method
  ) {
    return [400, error(message.id, -32020, "Header mismatch")];
  }
  if (message.method === "server/discover") {
    return [
      200,
      reply(message.id, {
        ttlMs: 0,
        cacheScope: "private",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "fast-peer", version: "1" } },
      }),
    ];
  }
  if (message.method === "tools/list") {
    return [200, reply(message.id, { ttlMs: 0, cacheScope: "private", tools: TOOLS })];
  }
  if (message.method === "tools/call" && message.params?.name === "echo") {
    const text = String((message.params.arguments as { text?: unknown } | undefined)?.text ?? "");
    return [200, reply(message.id, { content: [{ type: "text", text }] })];
  }
  if (message.method === "tools/call" && message.params?.name === "ask_rounds") {
    return askRounds(message.id, message.params);
  }
  if (message.method !== "tools/call" || message.params?.name !== "ask_form") {
    return [404, error(message.id, -32601, "Not found")];
  }
  const responses = message.params.inputResponses as Record<string, { content?: unknown }> | undefined;
  const state = message.params.requestState;
  if (responses === undefined || typeof state !== "string" || !state.startsWith("form-")) {
    return [
      200,
      JSON.stringify({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          resultType: "input_required",
          inputRequests: {
            who: { method: "elicitation/create", params: { message: "Who?", requestedSchema: PEER_FORM } },
          },
          requestState: `form-${++next}`,
        },
      }),
    ];
  }
  return [
    200,
    reply(message.id, { content: [{ type: "text", text: JSON.stringify(responses.who?.content ?? null) }] }),
  ];
}

function inputRequired(id: unknown, requestState: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    result: {
      resultType: "input_required",
      inputRequests: {
        who: { method: "elicitation/create", params: { message: "Who?", requestedSchema: PEER_FORM } },
      },
      requestState,
    },
  });
}

/** `ask_rounds`: the state is `rounds-<answered>-<of>`; every answer must name Ada. */
function askRounds(id: unknown, params: Record<string, unknown>): [number, string] {
  const rounds = Number((params.arguments as { rounds?: unknown } | undefined)?.rounds ?? 1);
  if (!Number.isInteger(rounds) || rounds < 0 || rounds > 50) {
    return [200, error(id, -32602, "rounds must be an integer from 0 to 50")];
  }
  const state = /^rounds-(\d+)-(\d+)$/.exec(String(params.requestState ?? ""));
  let answered = 0;
  if (state !== null) {
    const who = (params.inputResponses as Record<string, { content?: { name?: unknown } }> | undefined)?.who;
    if (Number(state[2]) !== rounds || who?.content?.name !== "Ada") {
      return [200, error(id, -32602, "Missing or wrong answer")];
    }
    answered = Number(state[1]) + 1;
  }
  if (answered < rounds) return [200, inputRequired(id, `rounds-${answered}-${rounds}`)];
  return [200, reply(id, { content: [{ type: "text", text: JSON.stringify({ rounds, name: "Ada" }) }] })];
}

const flag = process.argv.indexOf("--work-ms");
const workMs = flag < 0 ? 0 : Number(process.argv[flag + 1]);

const server = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => (body += chunk));
  request.on("end", () => {
    const [status, text] = answer(request.headers, body);
    const send = () => {
      response.writeHead(status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
      });
      response.end(text);
    };
    if (workMs > 0 && body.includes('"echo"')) setTimeout(send, workMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address !== null && typeof address === "object") {
    console.log(`FAST_PEER_URL http://127.0.0.1:${address.port}/mcp`);
  }
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();

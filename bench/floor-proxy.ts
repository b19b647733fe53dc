/**
 * The floor of one extra hop, as its own process for the front bench: a bare pass-through proxy
 * (`node:http` in, an undici `Pool` out) in front of the fast peer whose URL is the first
 * argument. It forwards each POST's body and MCP headers as they came and the answer as it went,
 * and parses only what a gateway cannot avoid parsing to answer a form round itself: an answer
 * that says `input_required` is read, the retry is built with the form's answer for every input
 * request and the echoed `requestState`, and sent upstream; the caller gets the last answer. No
 * validation, no policy, no events: what any gateway pays at least.
 *
 * Prints `FLOOR_URL <url>` once listening; exits when stdin ends.
 *
 * @module
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import process from "node:process";
import { Pool } from "undici";

const upstream = process.argv[2];
if (upstream === undefined) throw new Error("floor-proxy: pass the upstream URL");
const target = new URL(upstream);
const pool = new Pool(target.origin, { keepAliveTimeout: 60_000 });
const ANSWER = { action: "accept", content: { name: "Ada", age: 36 } };
const FORWARDED = ["content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name"];

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

async function post(headers: Record<string, string>, body: string): Promise<Answer> {
  const response = await pool.request({ path: target.pathname, method: "POST", headers, body });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    contentType: String(response.headers["content-type"] ?? "application/json"),
    text,
  };
}

/** Relays one POST; a form round is answered here, with one more POST upstream. */
async function relay(incoming: IncomingHttpHeaders, body: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = incoming[name];
    if (typeof value === "string") headers[name] = value;
  }
  let answer = await post(headers, body);
  // A cheap look first: only an answer that mentions input_required is parsed.
  while (answer.text.includes('"input_required"')) {
    const result = (JSON.parse(answer.text) as { result?: Record<string, unknown> }).result ?? {};
    if (result.resultType !== "input_required") break;
    const message = JSON.parse(body) as { params: Record<string, unknown> };
    const responses: Record<string, unknown> = {};
    for (const key of Object.keys(result.inputRequests as object)) responses[key] = ANSWER;
    message.params.inputResponses = responses;
    message.params.requestState = result.requestState;
    body = JSON.stringify(message);
    answer = await post(headers, body);
  }
  return answer;
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    relay(request.headers, Buffer.concat(chunks).toString("utf8")).then((answer) => {
      response.writeHead(answer.status, {
        "content-type": answer.contentType,
        "content-length": Buffer.byteLength(answer.text),
      });
      response.end(answer.text);
    }, (error: unknown) => {
      response.writeHead(502, { "content-type": "text/plain" });
      response.end(String(error));
    });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address !== null && typeof address === "object") {
    console.log(`FLOOR_URL http://127.0.0.1:${address.port}/mcp`);
  }
});
process.stdin.on("end", () => server.close(() => void pool.close().then(() => process.exit(0))));
process.stdin.resume();

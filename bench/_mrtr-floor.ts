/**
 * The floor of the MRTR bench: exactly the POSTs of one multi round-trip tool call (the first
 * request, then one retry per round with the answer and the echoed `requestState`), with the
 * headers the server checks and no validation at all.
 *
 * @module
 */

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "ask_rounds",
};

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "floor", version: "1" },
};

const ANSWER = { action: "accept", content: { name: "Ada", age: 36 } };

interface FloorResult {
  readonly resultType?: string;
  readonly inputRequests?: Record<string, unknown>;
  readonly requestState?: string;
  readonly content?: ReadonlyArray<{ readonly text: string }>;
}

/**
 * One tool call of `ask_rounds` with `rounds` rounds, by hand.
 *
 * @param fetch The fetch to use.
 * @param url The peer's endpoint.
 * @param rounds The rounds the peer asks for.
 * @param id The first JSON-RPC id (the retries count up from it).
 * @returns The result's text.
 */
export async function floorCall(fetch: Fetch, url: string, rounds: number, id: number): Promise<string> {
  const post = async (params: Record<string, unknown>, requestId: number): Promise<FloorResult> => {
    const response = await fetch(url, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: requestId, method: "tools/call", params }),
    });
    return (await response.json() as { result: FloorResult }).result;
  };
  const args = { rounds };
  let result = await post({ name: "ask_rounds", arguments: args, _meta: META }, id);
  for (let round = 1; result.resultType === "input_required"; round++) {
    const key = Object.keys(result.inputRequests ?? {})[0] as string;
    result = await post({
      name: "ask_rounds",
      arguments: args,
      _meta: META,
      inputResponses: { [key]: ANSWER },
      requestState: result.requestState,
    }, id + round);
  }
  return result.content?.[0]?.text ?? "";
}

// An upstream -32021 (a missing client capability) for what the caller did declare, but the
// gateway's policy neither handles nor passes down: the caller is told that, not the upstream's
// "the request's client capabilities do not declare…", which would send it after its own
// declaration. Both eras of caller, through the whole front; the upstream is scripted, so this
// runs the same on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { discovered, result, rpcError, toolsList } from "../_support/scripted-server.ts";
import {
  askScriptedFront,
  SCRIPTED_FRONT_URL,
  type ScriptedFront,
  scriptedFront,
} from "../_support/gateway-caller.ts";
import { LegacyCaller } from "../_support/legacy-caller.ts";

const REQUIRED = { requiredCapabilities: { elicitation: { form: {} } } };
const UPSTREAM_WORDS =
  "Cannot request input 'profile' (elicitation/create): the request's client capabilities do not declare the required capability";
const WITHHELD =
  'Server "up" needs elicitation (form) for this call, and this gateway does not offer it: the policy of "up" neither handles it nor passes it down to callers ("passDown")';

/** A front over a modern upstream whose `ask` needs form elicitation, refusing with -32021 when it is not declared. */
function front(passDown: readonly "elicitation"[], policy: Record<string, unknown> = {}): ScriptedFront {
  return scriptedFront(({ body: { id, method, params } }) => {
    if (method === "tools/list") return toolsList(id, [{ name: "ask", inputSchema: { type: "object" } }]);
    if (method === "tools/call") {
      const meta = (params?._meta ?? {}) as Record<string, { elicitation?: { form?: object } } | undefined>;
      const declared = meta["io.modelcontextprotocol/clientCapabilities"]?.elicitation?.form !== undefined;
      return declared
        ? result(id, { resultType: "complete", content: [{ type: "text", text: "asked" }] })
        : rpcError(id, -32021, UPSTREAM_WORDS, REQUIRED, 400);
    }
    return discovered(id);
  }, { policy: { passDown, ...policy } });
}

/** A modern caller's `tools/call` of `ask`, declaring `capabilities`: the HTTP status and JSON-RPC answer. */
function modernAsk(gate: ScriptedFront, capabilities: Record<string, unknown>) {
  return askScriptedFront(gate, "tools/call", { name: "ask", arguments: {} }, { capabilities });
}

describe("an upstream -32021 for what the caller declared and the policy withholds", () => {
  test("a modern caller that declared form elicitation is told the gateway's policy withholds it", async () => {
    const gate = front([]);
    // HTTP 400, as 2026-07-28 asks of a missing client capability.
    assert.deepEqual(await modernAsk(gate, { elicitation: { form: {} } }), {
      status: 400,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32021, message: WITHHELD, data: REQUIRED } },
    });
    await gate.client.close();
  });

  test("the words name what withholds it: a kind the policy turns off, a mode it leaves out, though passDown lists it", async () => {
    const said = [];
    for (const policy of [{ elicitation: false }, { elicitation: { modes: ["url"] } }]) {
      const gate = front(["elicitation"], policy);
      said.push((await modernAsk(gate, { elicitation: { form: {} } })).body);
      await gate.client.close();
    }
    const withheld = (why: string) => ({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32021,
        message: WITHHELD.replace('neither handles it nor passes it down to callers ("passDown")', why),
        data: REQUIRED,
      },
    });
    assert.deepEqual(said, [
      withheld('turns it off ("elicitation": false)'),
      withheld('leaves that mode out ("elicitation.modes")'),
    ]);
  });

  test("with several kinds withheld, each is named with its own reason", async () => {
    const required = { requiredCapabilities: { sampling: {}, elicitation: { form: {} } } };
    const gate = scriptedFront(({ body: { id, method } }) => {
      if (method === "tools/list") return toolsList(id, [{ name: "ask", inputSchema: { type: "object" } }]);
      if (method === "tools/call") return rpcError(id, -32021, UPSTREAM_WORDS, required, 400);
      return discovered(id);
    }, { policy: { passDown: [], elicitation: false } });
    assert.deepEqual((await modernAsk(gate, { sampling: {}, elicitation: { form: {} } })).body, {
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32021,
        message:
          'Server "up" needs sampling, elicitation (form) for this call, and this gateway does not offer it: the policy of "up" neither handles sampling nor passes it down to callers ("passDown"), and turns elicitation (form) off ("elicitation": false)',
        data: required,
      },
    });
    await gate.client.close();
  });

  test("a modern caller that declared nothing gets the upstream's own words", async () => {
    const gate = front([]);
    assert.deepEqual(await modernAsk(gate, {}), {
      status: 400,
      body: { jsonrpc: "2.0", id: 1, error: { code: -32021, message: UPSTREAM_WORDS, data: REQUIRED } },
    });
    await gate.client.close();
  });

  test("with elicitation passed down, the declaring caller's call goes through", async () => {
    const gate = front(["elicitation"]);
    assert.deepEqual(await modernAsk(gate, { elicitation: { form: {} } }), {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: { resultType: "complete", content: [{ type: "text", text: "asked" }] },
      },
    });
    await gate.client.close();
  });

  test("a 2025-11-25 host that declared elicitation is told the same", async () => {
    const gate = front([]);
    const host = new LegacyCaller(
      async (url, init) => await gate.app.fetch(new Request(url, init)),
      SCRIPTED_FRONT_URL,
    );
    await host.initialize({ elicitation: {} });
    const response = await host.post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "ask" },
    });
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32021, message: WITHHELD, data: REQUIRED },
    });
    await gate.client.close();
  });
});

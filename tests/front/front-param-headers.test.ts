// A modern caller's `Mcp-Param-*` headers are checked against its `tools/call` arguments by the
// tool's `x-mcp-header` rules, as the upstream listed them (2026-07-28, "Server Validation": a
// server that processes the body must): a mismatch is refused with HTTP 400 and -32020 before
// anything goes upstream, and before a retry's state is opened. The upstream is scripted, so
// this runs the same on every runtime.
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

/**
 * A front over a modern upstream whose `deploy` mirrors `region` into `Mcp-Param-Region`, while
 * `mirrored()` says so: the upstream lists the rule it has at the time, and refuses a call that
 * lacks the header then `-32020`.
 */
function front(mirrored: () => boolean = () => true): ScriptedFront {
  return scriptedFront(({ body: { id, method, params }, headers }) => {
    if (method === "tools/list") {
      const region = mirrored() ? { type: "string", "x-mcp-header": "Region" } : { type: "string" };
      return toolsList(id, [{
        name: "deploy",
        inputSchema: { type: "object", properties: { region, replicas: { type: "integer" } } },
      }]);
    }
    if (method === "tools/call") {
      const region = (params?.arguments as { region?: unknown } | undefined)?.region;
      if (mirrored() && region !== undefined && headers["mcp-param-region"] === undefined) {
        return rpcError(id, -32020, "Header mismatch: Mcp-Param-Region", undefined, 400);
      }
      return result(id, {
        resultType: "complete",
        content: [{ type: "text", text: `to ${String(region)}` }],
      });
    }
    return discovered(id);
  });
}

/** A modern caller's `tools/call` of `deploy` with `args` and extra `headers`: status and body. */
function deploy(gate: ScriptedFront, args: object, headers: Record<string, string>) {
  return askScriptedFront(gate, "tools/call", { name: "deploy", arguments: args }, { headers });
}

/** The answer to a call that went through: `deploy`'s text. */
const deployed = (text: string) => ({
  status: 200,
  body: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", content: [{ type: "text", text }] } },
});

/** The answer to a call of a tool the front's client refuses to call, for `why`. */
const cannotBeCalled = (tool: string, why: string) => ({
  status: 200,
  body: {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32602, message: `Tool "${tool}" of server "up" cannot be called: ${why}` },
  },
});

const mismatch = (message: string) => ({
  status: 400,
  body: { jsonrpc: "2.0", id: 1, error: { code: -32020, message } },
});

describe("the front checks a caller's Mcp-Param-* headers against its arguments", () => {
  test("a call whose header equals its argument (decoded from base64) goes upstream", async () => {
    const gate = front();
    assert.deepEqual(
      await deploy(gate, { region: "us-west1" }, { "mcp-param-region": "us-west1" }),
      deployed("to us-west1"),
    );
    assert.deepEqual(
      await deploy(gate, { region: "東京" }, { "Mcp-Param-Region": "=?base64?5p2x5Lqs?=" }),
      deployed("to 東京"),
    );
    // What went upstream: the tools listed once, then the two calls with the header sluice wrote.
    assert.deepEqual(
      gate.upstream.requests.map((r) => [r.body.method, r.headers["mcp-param-region"] ?? null]),
      [["tools/list", null], ["tools/call", "us-west1"], ["tools/call", "=?base64?5p2x5Lqs?="]],
    );
    await gate.client.close();
  });

  test("a header that differs, is missing, has no argument or is not valid base64 is refused with 400 and -32020", async () => {
    const gate = front();
    assert.deepEqual(
      await deploy(gate, { region: "us-west1" }, { "mcp-param-region": "eu-west1" }),
      mismatch(
        'Header mismatch: Mcp-Param-Region "eu-west1" differs from the body\'s argument "region", "us-west1"',
      ),
    );
    assert.deepEqual(
      await deploy(gate, { region: "us-west1" }, {}),
      mismatch('Header mismatch: Mcp-Param-Region is missing, and the body\'s argument "region" has a value'),
    );
    assert.deepEqual(
      await deploy(gate, { replicas: 2 }, { "mcp-param-region": "us-west1" }),
      mismatch(
        'Header mismatch: Mcp-Param-Region "us-west1" was sent, but the body\'s argument "region" has no value',
      ),
    );
    assert.deepEqual(
      await deploy(gate, { region: "us-west1" }, { "mcp-param-region": "=?base64?dXMtd2VzdDE?=" }),
      mismatch(
        'Header mismatch: Mcp-Param-Region "=?base64?dXMtd2VzdDE?=" is not a valid value: expected visible ASCII, or "=?base64?…?=" holding Base64 of UTF-8',
      ),
    );
    // Only the listing went upstream: no refused call did.
    assert.deepEqual(gate.upstream.requests.map((r) => r.body.method), ["tools/list"]);
    await gate.client.close();
  });

  test("a caller told -32020 after the upstream dropped a rule lists the tools again through the front, and its retry goes through", async () => {
    let mirrored = true;
    const gate = front(() => mirrored);
    assert.deepEqual(
      await deploy(gate, { region: "us-west1" }, { "mcp-param-region": "us-west1" }),
      deployed("to us-west1"),
    );
    mirrored = false;
    const missing =
      'Header mismatch: Mcp-Param-Region is missing, and the body\'s argument "region" has a value';
    assert.deepEqual(await deploy(gate, { region: "eu-west1" }, {}), mismatch(missing));
    // The caller does what -32020 asks (2026-07-28): it lists the tools again, and sees no rule.
    const listed = await askScriptedFront(gate, "tools/list", {});
    assert.deepEqual(
      (listed.body as { result: { tools: { inputSchema: unknown }[] } }).result.tools.map((tool) =>
        tool.inputSchema
      ),
      [{ type: "object", properties: { region: { type: "string" }, replicas: { type: "integer" } } }],
    );
    // Before: refused -32020 again, for as long as the gateway ran.
    assert.deepEqual(await deploy(gate, { region: "eu-west1" }, {}), deployed("to eu-west1"));
    assert.deepEqual(
      gate.upstream.requests.map((r) => [r.body.method, r.headers["mcp-param-region"] ?? null]),
      [["tools/list", null], ["tools/call", "us-west1"], ["tools/list", null], ["tools/call", null]],
    );
    await gate.client.close();
  });

  test("after the upstream adds a rule the front did not know, a call is retried past the upstream's -32020 only when its headers agree with the new rule", async () => {
    const afterNewRule = async (headers: Record<string, string>) => {
      let mirrored = false;
      const gate = front(() => mirrored);
      assert.deepEqual(await deploy(gate, { region: "us-west1" }, {}), deployed("to us-west1"));
      mirrored = true;
      const answer = await deploy(gate, { region: "us-west1" }, headers);
      await gate.client.close();
      return {
        answer,
        upstream: gate.upstream.requests.map((r) => [r.body.method, r.headers["mcp-param-region"] ?? null]),
      };
    };
    const before = [["tools/list", null], ["tools/call", null], ["tools/call", null], ["tools/list", null]];
    assert.deepEqual(await afterNewRule({ "mcp-param-region": "us-west1" }), {
      answer: deployed("to us-west1"),
      upstream: [...before, ["tools/call", "us-west1"]],
    });
    // Before: retried all the same, so the tool ran for "us-west1" while the caller's header said
    // "eu-west1". The caller gets the upstream's -32020, lists the tools and retries.
    assert.deepEqual(await afterNewRule({ "mcp-param-region": "eu-west1" }), {
      answer: {
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: 1,
          error: { code: -32020, message: "Header mismatch: Mcp-Param-Region" },
        },
      },
      upstream: before,
    });
  });

  test("a tool whose x-mcp-header annotation is invalid is listed to no caller, and a call to it is refused with -32602 naming why", async () => {
    const number = { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } };
    const gate = scriptedFront(({ body: { id, method } }) => {
      if (method === "tools/list") {
        return toolsList(id, [{ name: "bad", inputSchema: number }, {
          name: "ok",
          inputSchema: { type: "object" },
        }]);
      }
      if (method === "tools/call") return result(id, { resultType: "complete", content: [] });
      return discovered(id);
    });
    const listed = await askScriptedFront(gate, "tools/list", {});
    assert.deepEqual((listed.body as { result: { tools: unknown } }).result.tools, [
      { name: "ok", inputSchema: { type: "object" } },
    ]);
    assert.deepEqual(
      await askScriptedFront(gate, "tools/call", { name: "bad", arguments: { n: 1 } }),
      cannotBeCalled(
        "bad",
        'x-mcp-header "N" at "$.properties.n" is on a property of type "number", which is not permitted (use "integer")',
      ),
    );
    const host = new LegacyCaller(
      async (url, init) => await gate.app.fetch(new Request(url, init)),
      SCRIPTED_FRONT_URL,
    );
    await host.initialize({});
    const hostList = await host.post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    assert.deepEqual(((await hostList.json()) as { result: { tools: unknown } }).result.tools, [
      { name: "ok", inputSchema: { type: "object" } },
    ]);
    // Nothing but the two callers' listings went upstream: the refused call was judged by what
    // the first listing showed the front.
    assert.deepEqual(
      gate.upstream.requests.map((r) => r.body.method).filter((m) => m !== "server/discover"),
      ["tools/list", "tools/list"],
    );
    await gate.client.close();
  });

  test("a listed entry that is not a valid tool is listed to no caller, and a call of its name is refused with -32602, never sent without its headers", async () => {
    const gate = scriptedFront(({ body: { id, method } }) => {
      if (method === "tools/list") {
        const region = {
          type: "object",
          properties: { region: { type: "string", "x-mcp-header": "Region" } },
        };
        return toolsList(id, [
          { name: "titled", title: 5, inputSchema: region },
          { title: "no name at all", inputSchema: { type: "object" } },
          { name: "ok", inputSchema: { type: "object" } },
        ]);
      }
      if (method === "tools/call") return result(id, { resultType: "complete", content: [] });
      return discovered(id);
    });
    const listed = await askScriptedFront(gate, "tools/list", {});
    assert.deepEqual((listed.body as { result: { tools: unknown } }).result.tools, [
      { name: "ok", inputSchema: { type: "object" } },
    ]);
    const called = await askScriptedFront(
      gate,
      "tools/call",
      { name: "titled", arguments: { region: "eu" } },
      {
        headers: { "mcp-param-region": "eu" },
      },
    );
    assert.deepEqual(
      called,
      cannotBeCalled("titled", "its tools/list entry is not valid ($.title: expected string, received 5)"),
    );
    assert.deepEqual(gate.upstream.requests.filter((r) => r.body.method === "tools/call"), []);
    await gate.client.close();
  });
});

// The tool header rules a modern session keeps when two listings of the tools run at once and
// their answers come out of order: the listing started last wins, whichever answer came last,
// for a refresh (after -32020) while the first listing is in flight, for two listTools() calls,
// and for a listTools() page answered while a call's own listing is in flight. Runs on every
// runtime, against a scripted server that answers each tools/list when the test says.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ToolHeaderCache } from "../../../src/client/modern/tool-header-cache.ts";
import { result, toolsList } from "../../_support/scripted-server.ts";
import { eventually } from "../../_support/eventually.ts";
import { failure, setup } from "../_client-fixtures.ts";

/** The tool `deploy` whose argument `region` goes in the header `header`. */
function deploy(header: string) {
  return {
    name: "deploy",
    inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": header } } },
  };
}

/**
 * A client over a server whose `n`th `tools/list` (from 0) is answered with `deploy(headers[n])`
 * once the test calls `answer(n)`, and whose calls complete.
 */
function listingsAnsweredInTurn(headers: readonly string[]) {
  const answers: Array<() => void> = [];
  let listings = 0;
  const { client, server } = setup((req) => {
    if (req.body.method !== "tools/list") return result(req.body.id, { resultType: "complete", content: [] });
    const header = headers[listings++] ?? "";
    return new Promise<Response>((resolve) =>
      answers.push(() => resolve(toolsList(req.body.id, [deploy(header)])))
    );
  });
  /** Waits until the `n`th listing was sent. */
  const sent = (n: number) => eventually(`tools/list ${n} sent`, () => answers[n]);
  /** Answers the `n`th listing, once it was sent. */
  const answer = async (n: number) => (await sent(n))();
  /** The Mcp-Param-* headers of the last tools/call. */
  const paramHeaders = () => {
    const call = server.requests.findLast((request) => request.body.method === "tools/call");
    return Object.entries(call?.headers ?? {}).filter(([name]) => name.startsWith("mcp-param-"));
  };
  return { client, sent, answer, paramHeaders };
}

describe("ToolHeaderCache with listings answered out of order", () => {
  test("keeps the refresh's listing when the listing it replaced is answered after it", async () => {
    const answers: Array<(header: string) => void> = [];
    const cache = new ToolHeaderCache(
      "demo",
      () => new Promise((resolve) => answers.push((header) => resolve({ tools: [deploy(header)] }))),
    );
    const signal = new AbortController().signal;
    const first = cache.rulesFor("deploy", signal);
    const refreshed = cache.refresh(signal);
    answers[1]?.("Area");
    await refreshed;
    answers[0]?.("Region");
    await first;
    assert.deepEqual(cache.knownRules("deploy"), [
      { property: "region", path: ["region"], header: "Area", type: "string" },
    ]);
  });

  test("a call sends the headers of the second of two listTools() whose answers came in reverse order", async () => {
    const { client, sent, answer, paramHeaders } = listingsAnsweredInTurn(["Region", "Area"]);
    const older = client.listTools("demo");
    await sent(0);
    const newer = client.listTools("demo");
    await answer(1);
    await newer;
    await answer(0);
    await older;
    await client.callTool("demo", "deploy", { region: "eu" });
    assert.deepEqual(paramHeaders(), [["mcp-param-area", "eu"]]);
    await client.close();
  });

  test("a call sends the headers of a listTools() page made while the call's own listing ran and answered before it", async () => {
    const { client, sent, answer, paramHeaders } = listingsAnsweredInTurn(["Region", "Area"]);
    const call = client.callTool("demo", "deploy", { region: "eu" });
    await sent(0);
    const listed = client.listTools("demo");
    await answer(1);
    await listed;
    await answer(0);
    await call;
    assert.deepEqual(paramHeaders(), [["mcp-param-area", "eu"]]);
    await client.close();
  });
});

describe("ToolHeaderCache with a listing a tool of which is malformed", () => {
  test("a call of a valid tool goes out with its headers, and listTools shows the valid tools, when another listed tool is malformed", async () => {
    const { client, server } = setup((req) => {
      if (req.body.method !== "tools/list") {
        return result(req.body.id, { resultType: "complete", content: [] });
      }
      return toolsList(req.body.id, [
        { name: "broken", inputSchema: { type: "object" }, annotations: { readOnlyHint: "yes" } },
        deploy("Region"),
      ]);
    });
    try {
      assert.deepEqual(await client.callTool("demo", "deploy", { region: "eu" }), {
        resultType: "complete",
        content: [],
      });
      const call = server.requests.findLast((request) => request.body.method === "tools/call");
      assert.equal(call?.headers["mcp-param-region"], "eu");
      assert.deepEqual((await client.listTools("demo")).tools.map((tool) => tool.name), ["deploy"]);
      // The malformed one is refused, not called as if unlisted (without the headers it may want).
      assert.deepEqual(await failure(client.callTool("demo", "broken", {})), [
        "config",
        -32602,
        'Tool "broken" of server "demo" cannot be called: its tools/list entry is not valid ($.annotations.readOnlyHint: expected boolean, received "yes")',
      ]);
    } finally {
      await client.close();
    }
  });
});

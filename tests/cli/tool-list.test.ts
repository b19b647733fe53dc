// listAllTools(), which `sluice tools` and `sluice call` read a server's tools with: every page,
// and a plain word when reading stops before the last one. A client over a scripted server.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { listAllTools } from "../../src/cli/_tool-list.ts";
import { result } from "../_support/scripted-server.ts";
import { setup } from "../client/_client-fixtures.ts";

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });

/** A server whose page `n` (cursor `"p<n>"`) holds tool `t<n>` and points at `next(n)`. */
function paged(next: (page: number) => string | undefined) {
  return setup((request) => {
    const cursor = (request.body.params as { cursor?: string } | undefined)?.cursor ?? "p0";
    const page = Number(cursor.slice(1));
    const nextCursor = next(page);
    return result(request.body.id, {
      resultType: "complete",
      tools: [tool(`t${page}`)],
      ...(nextCursor === undefined ? {} : { nextCursor }),
    });
  });
}

describe("listAllTools()", () => {
  test("reads every page and leaves no cursor", async () => {
    const { client, server } = paged((page) => page < 2 ? `p${page + 1}` : undefined);
    const listed = await listAllTools(client, "demo");
    await client.close();
    assert.deepEqual(
      [
        listed.stopped,
        listed.result.tools.map((t) => t.name),
        listed.result.nextCursor,
        server.requests.length,
      ],
      [undefined, ["t0", "t1", "t2"], undefined, 3],
    );
  });

  test("stops at a cursor it has followed before, and says the list may be incomplete", async () => {
    const { client } = paged((page) => page === 2 ? "p1" : `p${page + 1}`);
    const listed = await listAllTools(client, "demo");
    await client.close();
    assert.deepEqual([listed.result.tools.map((t) => t.name), listed.result.nextCursor, listed.stopped], [
      ["t0", "t1", "t2"],
      "p1",
      "the list may be incomplete: reading stopped after 3 pages (3 tools), as the server sent a cursor it had sent before",
    ]);
  });

  test("stops after 100 pages, and says so", async () => {
    const { client, server } = paged((page) => `p${page + 1}`);
    const listed = await listAllTools(client, "demo");
    await client.close();
    assert.deepEqual(
      [listed.result.tools.length, listed.result.nextCursor, listed.stopped, server.requests.length],
      [
        100,
        "p100",
        "the list may be incomplete: reading stopped after 100 pages (100 tools), as 100 pages is the most read",
        100,
      ],
    );
  });
});

// The loopback listener `sluice login` gives the authorization server as its redirect URI, over
// real HTTP on 127.0.0.1: it hands over only the callback of the sign-in it waits for, on the
// port it was asked for while that is free.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { listenForCallback } from "../../src/cli/_callback-listener.ts";

describe("listenForCallback()", () => {
  test("answers 400 to a callback before arrival() and to one of another state, waits on, and hands over the sign-in's", async () => {
    const listener = await listenForCallback();
    try {
      const get = (query: string) =>
        fetch(`${listener.redirectUri}${query}`).then(async (page) => [page.status, await page.text()]);
      const early = await get("?code=c&state=s1");
      const arrival = listener.arrival("s1");
      const others = [await get("?code=c&state=s2"), await get("?code=c"), await get("?code=c&state=")];
      const browser = get("?code=c&state=s1&iss=x");
      const arrived = await arrival;
      await arrived.answer(200, "<p>signed in</p>");
      const wrong =
        "This is not the sign-in sluice is waiting for: its state differs from the one sluice sent. " +
        "Sign in from the URL sluice printed last.\n";
      assert.deepEqual([early, others, arrived.url, await browser, await get("?code=c&state=s1")], [
        [400, wrong],
        [[400, wrong], [400, wrong], [400, wrong]],
        `${listener.redirectUri}?code=c&state=s1&iss=x`,
        [200, "<p>signed in</p>"],
        [404, "Not found\n"],
      ]);
    } finally {
      await listener.close();
    }
  });

  test("listens on the port it is asked for while that is free, and on a free one while it is taken", async () => {
    const first = await listenForCallback();
    const port = Number(new URL(first.redirectUri).port);
    const elsewhere = await listenForCallback(port);
    await first.close();
    const again = await listenForCallback(port);
    try {
      assert.deepEqual(
        [elsewhere.redirectUri === first.redirectUri, again.redirectUri],
        [false, `http://127.0.0.1:${port}/callback`],
      );
    } finally {
      await elsewhere.close();
      await again.close();
    }
  });
});

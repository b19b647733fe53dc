// hostReach(): how far a URL's host reaches, told by its name alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { hostReach } from "../../src/_internal/host-kind.ts";

test("hostReach() gives an IPv4-mapped IPv6 address the reach of its IPv4 address", () => {
  const urls = [
    "https://127.0.0.1/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://10.0.0.1/",
    "https://[::ffff:10.0.0.1]/",
    "https://192.168.1.1/",
    "https://[::ffff:192.168.1.1]/",
  ];
  assert.deepEqual(urls.map((url) => hostReach(new URL(url))), [
    "loopback",
    "loopback",
    "loopback",
    "private",
    "private",
    "private",
    "private",
  ]);
});

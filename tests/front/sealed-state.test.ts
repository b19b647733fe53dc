import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { codecs } from "../../src/_internal/encoding.ts";
import { MIN_SECRET_BYTES } from "../../src/_internal/secret-key.ts";
import {
  type ContinuationState,
  digestRequest,
  importStateKey,
  newNonce,
  openState,
  sealState,
  type StateKey,
} from "../../src/front/sealed-state.ts";
import { MAX_TOKEN_LENGTH, sealPayload } from "../../src/front/_state-token.ts";
import { canonicalJson, withoutPrototypes } from "../../src/front/_canonical-json.ts";
import { np, same } from "../_support/exact.ts";
import { PROPERTY_SETTINGS, propertyName } from "../_support/property-runs.ts";
import {
  hostileKey,
  hostileString,
  jsonSafeValue,
  jsonText,
  objectOf,
  wireValue,
} from "../property/_arbitraries.ts";
import { anyValue, realise } from "../property/_js-only-values.ts";
import { mutated } from "../property/_mutated.ts";

const settings = PROPERTY_SETTINGS;

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const OTHER_SECRET = Uint8Array.from({ length: 32 }, (_, i) => 32 - i);
const NOW = 1_785_000_000_000;
const EXPIRES_AT = NOW + 600_000;
const CALL = { name: "deploy", arguments: { x: 1, repo: "sluice" } };
/** sha256 of `{"method":"tools/call","params":{"arguments":{"repo":"sluice","x":1},"name":"deploy"}}`. */
const CALL_DIGEST = "62b10b00801c387707d64573547b603b3422a6b35e7ab886ac5ba3d16ebed472";
/** A fixed nonce of the right shape (22 base64url characters), so tokens are reproducible. */
const NONCE = "test-nonce-0123456789a";
/** The ending of every message that refuses a state key. */
const MAKE_A_KEY = "make one with `openssl rand -base64 32`";

let keyPromise: Promise<StateKey> | undefined;
let otherKeyPromise: Promise<StateKey> | undefined;
function theKey(): Promise<StateKey> {
  return keyPromise ??= importStateKey(SECRET);
}
function otherKey(): Promise<StateKey> {
  return otherKeyPromise ??= importStateKey(OTHER_SECRET);
}

/** One pending form entry, as the chain leaves it, and the answer of a front handler. */
function typicalState(): ContinuationState {
  return {
    serverId: "github",
    principal: "alice",
    nonce: NONCE,
    requestDigest: CALL_DIGEST,
    upstreamState: "opaque-upstream-state",
    answers: np({ roots: { roots: [{ uri: "file:///srv/project" }] } }),
    pending: np({
      github_login: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Your GitHub login?",
          requestedSchema: {
            type: "object",
            properties: np({ name: { type: "string" } }),
            required: ["name"],
          },
        },
      },
    }),
    expiresAt: EXPIRES_AT,
  };
}

const EXPECT = { now: NOW, serverId: "github", principal: "alice", requestDigest: CALL_DIGEST } as const;

/** The same JSON value with every object prototype-free, as `openState` returns it. */
function deepNp(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepNp);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) out[key] = deepNp((value as Record<string, unknown>)[key]);
  return out;
}

function opened(state: ContinuationState): unknown {
  const out: Record<string, unknown> = { ...state };
  out["answers"] = deepNp(state.answers);
  out["pending"] = deepNp(state.pending);
  return { ok: true, state: out };
}

function refused(reason: string): unknown {
  return { ok: false, reason };
}

async function sealTypical(): Promise<string> {
  return await sealState(typicalState(), await theKey());
}

/** The token with its payload (`part` 1) or MAC (`part` 2) bytes changed by `edit`. */
function editPart(token: string, part: 1 | 2, edit: (bytes: Uint8Array) => void): string {
  const parts = token.split(".");
  const bytes = codecs.fromBase64Url(parts[part] as string) as Uint8Array;
  edit(bytes);
  parts[part] = codecs.toBase64Url(bytes);
  return parts.join(".");
}

/** Seals an arbitrary payload text with the right MAC, to reach the checks after the MAC. */
async function forge(payload: string | Uint8Array): Promise<string> {
  const bytes = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  return await sealPayload(bytes, await theKey());
}

function payloadText(token: string): string {
  return new TextDecoder().decode(codecs.fromBase64Url(token.split(".")[1] as string));
}

describe("importStateKey()", () => {
  test("importStateKey() refuses a 31-byte secret, naming the 32-byte rule", async () => {
    await assert.rejects(importStateKey(new Uint8Array(31)), {
      name: "TypeError",
      message:
        `importStateKey(): the secret must be at least 32 bytes of random data, received 31: ${MAKE_A_KEY}`,
    });
    assert.equal(MIN_SECRET_BYTES, 32);
  });

  test("importStateKey() counts a string secret in UTF-8 bytes", async () => {
    await assert.rejects(importStateKey("éèêëàâäîïôöùûüça"), {
      name: "TypeError",
      message:
        `importStateKey(): the secret must be at least 32 bytes of random data, received 31: ${MAKE_A_KEY}`,
    });
    const key = await importStateKey("éèêëàâäîïôöùûüçñ");
    same(key, { algorithm: "HMAC-SHA256" });
  });

  test("importStateKey() refuses a secret that repeats a pattern of at most half its length", async () => {
    const repeating = [
      "0123456789abcdef0123456789abcdef",
      "é".repeat(16),
      "k".repeat(32),
      "abc".repeat(11),
      new Uint8Array(32),
      Uint8Array.from({ length: 64 }, (_, i) => i % 32),
    ];
    for (const secret of repeating) {
      await assert.rejects(importStateKey(secret), {
        name: "TypeError",
        message: `importStateKey(): the secret repeats a pattern: expected random bytes, ${MAKE_A_KEY}`,
      });
    }
  });

  test("importStateKey() refuses a secret of fewer than 8 distinct bytes that repeats no pattern", async () => {
    for (const secret of ["abcdefg".repeat(4) + "gfedcba", "aaaaaaaabbbbbbbbccccccccdddddddde"]) {
      await assert.rejects(importStateKey(secret), {
        name: "TypeError",
        message:
          `importStateKey(): the secret has fewer than "8" distinct bytes: expected random bytes, ${MAKE_A_KEY}`,
      });
    }
  });

  test("importStateKey() refuses a secret that is neither a string nor bytes", async () => {
    await assert.rejects(importStateKey(32 as unknown as string), {
      name: "TypeError",
      message: 'importStateKey(): the secret must be a string or a Uint8Array, received "number"',
    });
  });

  test("importStateKey() gives the same key for a string and its UTF-8 bytes, and copies the bytes", async () => {
    const text = "a string secret of at least 32 bytes";
    const token = await sealState(typicalState(), await importStateKey(text));
    const bytes = new TextEncoder().encode(text);
    const key = await importStateKey(bytes);
    bytes.fill(0);
    same(await openState(token, key, EXPECT), opened(typicalState()));
  });
});

describe("newNonce()", () => {
  test("newNonce() gives 22 base64url characters (16 random bytes), a new one each time", () => {
    const nonces = Array.from({ length: 100 }, () => newNonce());
    for (const nonce of nonces) {
      assert.match(nonce, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(codecs.fromBase64Url(nonce)?.length, 16);
    }
    assert.equal(new Set(nonces).size, 100);
  });
});

describe("sealState()", () => {
  test("sealState() writes v1.<canonical JSON>.<43-character MAC>", async () => {
    const token = await sealTypical();
    assert.match(token, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.equal(
      payloadText(token),
      '{"answers":{"roots":{"roots":[{"uri":"file:///srv/project"}]}},"expiresAt":1785000600000,' +
        '"nonce":"test-nonce-0123456789a","pending":{"github_login":{"method":"elicitation/create","params":' +
        '{"message":"Your GitHub login?","mode":"form","requestedSchema":{"properties":{"name":' +
        '{"type":"string"}},"required":["name"],"type":"object"}}}},"principal":"alice","requestDigest":"' +
        CALL_DIGEST + '","serverId":"github",' +
        '"upstreamState":"opaque-upstream-state"}',
    );
  });

  test("sealState() gives the same token for equal states built in another key order", async () => {
    const state = typicalState();
    const reordered: ContinuationState = {
      expiresAt: state.expiresAt,
      pending: JSON.parse(JSON.stringify(state.pending)),
      answers: { roots: { roots: [{ uri: "file:///srv/project" }] } },
      upstreamState: "opaque-upstream-state",
      requestDigest: CALL_DIGEST,
      nonce: NONCE,
      principal: "alice",
      serverId: "github",
    };
    assert.equal(await sealState(reordered, await theKey()), await sealTypical());
  });

  test("sealState() leaves out an upstreamState that is undefined, and does not modify the state", async () => {
    const state = Object.freeze({ ...typicalState(), upstreamState: undefined });
    const token = await sealState(state as unknown as ContinuationState, await theKey());
    const { upstreamState: _, ...rest } = typicalState();
    same(await openState(token, await theKey(), EXPECT), opened(rest));
  });

  test("sealState() refuses an answer that is not JSON, naming its path", async () => {
    const state = { ...typicalState(), answers: { x: [1, Number.NaN] } };
    await assert.rejects(sealState(state, await theKey()), {
      name: "TypeError",
      message: 'Canonical JSON: "$.answers.x[1]" must be a JSON value, received "NaN"',
    });
  });

  test("sealState() refuses a state of the wrong shape", async () => {
    const state = { ...typicalState(), requestDigest: "ABC" };
    await assert.rejects(sealState(state, await theKey()), {
      name: "TypeError",
      message:
        'sealState(): the state must be a ContinuationState, $.requestDigest: expected /^[0-9a-f]{64}$/, received "ABC"',
    });
  });

  test("sealState() refuses a nonce that is not 22 base64url characters, or a principal that is not a string", async () => {
    const cases: Array<[Partial<ContinuationState> | Record<string, unknown>, string]> = [
      [
        { nonce: "test-nonce-0123456789" },
        '$.nonce: expected /^[A-Za-z0-9_-]{22}$/, received "test-nonce-0123456789"',
      ],
      [
        { nonce: "test+nonce/0123456789a" },
        '$.nonce: expected /^[A-Za-z0-9_-]{22}$/, received "test+nonce/0123456789a"',
      ],
      [{ principal: undefined }, "$.principal: expected string, received undefined"],
    ];
    for (const [edit, problem] of cases) {
      await assert.rejects(sealState({ ...typicalState(), ...edit } as ContinuationState, await theKey()), {
        name: "TypeError",
        message: `sealState(): the state must be a ContinuationState, ${problem}`,
      });
    }
  });

  test("sealState() refuses a key that did not come from importStateKey()", async () => {
    const fake = { algorithm: "HMAC-SHA256" } as StateKey;
    await assert.rejects(sealState(typicalState(), fake), {
      name: "TypeError",
      message: 'sealState(): the key must come from importStateKey(), received "object"',
    });
  });

  test("sealState() refuses a state whose token would pass 1 MiB", async () => {
    const state = { ...typicalState(), upstreamState: "u".repeat(800_000) };
    const bytes = canonicalJson(state).length;
    const length = 3 + Math.ceil((bytes * 4) / 3) + 1 + 43;
    assert.equal(length > MAX_TOKEN_LENGTH, true);
    await assert.rejects(sealState(state, await theKey()), {
      name: "RangeError",
      message: `sealState(): the sealed state must be at most "1048576" characters, received "${length}"`,
    });
  });
});

describe("openState()", () => {
  test("openState() gives back the sealed state, every object prototype-free", async () => {
    const result = await openState(await sealTypical(), await theKey(), EXPECT);
    same(result, opened(typicalState()));
    assert.equal(result.ok && Object.getPrototypeOf(result.state.pending["github_login"]), null);
  });

  test("openState() keeps __proto__ and constructor as ordinary keys", async () => {
    const answers = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"__proto__":1}}');
    const state = { ...typicalState(), answers, pending: JSON.parse('{"__proto__":{}}') };
    const result = await openState(await sealState(state, await theKey()), await theKey(), EXPECT);
    same(result, opened(state));
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  });

  test("openState() keeps the upstream state byte for byte, lone surrogates included", async () => {
    const upstreamState = '\uD800 日本語 \uDC00 \u0000 \u2028 "\\';
    const state = { ...typicalState(), upstreamState };
    const result = await openState(await sealState(state, await theKey()), await theKey(), EXPECT);
    assert.equal(result.ok && result.state.upstreamState, upstreamState);
  });

  test('openState() refuses a value that is not a string with "not-string"', async () => {
    const token = await sealTypical();
    for (
      const value of [undefined, null, 42, {}, [token], new String(token), new TextEncoder().encode(token)]
    ) {
      same(await openState(value, await theKey(), EXPECT), refused("not-string"));
    }
  });

  test('openState() refuses a token over 1 MiB with "too-long", and reads one of exactly 1 MiB', async () => {
    const long = "v1." + "A".repeat(MAX_TOKEN_LENGTH - 3);
    same(await openState(long + "A", await theKey(), EXPECT), refused("too-long"));
    same(await openState(long, await theKey(), EXPECT), refused("format"));
  });

  test('openState() refuses another version with "version" and another format with "format"', async () => {
    const token = await sealTypical();
    const rest = token.slice(2);
    for (const version of ["v2", "v0", "v10", "v01"]) {
      same(await openState(version + rest, await theKey(), EXPECT), refused("version"));
    }
    for (const bad of ["V1" + rest, "x" + token, rest.slice(1), " " + token, token + ".x", token + ".", ""]) {
      same(await openState(bad, await theKey(), EXPECT), refused("format"));
    }
  });

  test('openState() refuses bad or non-canonical base64url with "base64url"', async () => {
    const token = await sealTypical();
    const [version, payload, mac] = token.split(".") as [string, string, string];
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(mac.slice(-1));
    const nonCanonical = mac.slice(0, -1) + alphabet[last ^ 1];
    for (
      const bad of [
        `${version}.${payload}.${nonCanonical}`,
        `${version}.${payload}.${mac}=`,
        `${version}.${payload}+.${mac}`,
        `${version}.${payload}.${mac.replace(/^./, "/")}`,
        `${version}.${payload} .${mac}`,
      ]
    ) {
      same(await openState(bad, await theKey(), EXPECT), refused("base64url"));
    }
  });

  test('openState() refuses a flipped bit in the payload or the MAC with "mac"', async () => {
    const token = await sealTypical();
    for (
      const [part, index, bit] of [[1, 0, 0], [1, 40, 3], [1, -1, 7], [2, 0, 0], [2, 17, 5], [
        2,
        31,
        7,
      ]] as const
    ) {
      const bad = editPart(token, part, (bytes) => {
        const at = index < 0 ? bytes.length + index : index;
        bytes[at] = (bytes[at] as number) ^ (1 << bit);
      });
      same(await openState(bad, await theKey(), EXPECT), refused("mac"));
    }
  });

  test('openState() refuses a token sealed with another key, or an unusable key, with "mac" and "key"', async () => {
    const token = await sealState(typicalState(), await otherKey());
    same(await openState(token, await theKey(), EXPECT), refused("mac"));
    same(await openState(await sealTypical(), { algorithm: "HMAC-SHA256" }, EXPECT), refused("key"));
  });

  test("openState() refuses a truncated token, wherever it is cut", async () => {
    const token = await sealTypical();
    const second = token.lastIndexOf(".");
    const cuts: Array<[number, string]> = [
      [0, "format"],
      [1, "format"],
      [2, "format"],
      [3, "format"],
      [40, "format"],
      [second, "format"],
      [second + 1, "mac"],
      [second + 1 + 20, "mac"],
      [second + 1 + 40, "mac"],
      [second + 1 + 41, "base64url"],
      [token.length - 1, "base64url"],
    ];
    for (const [cut, reason] of cuts) {
      same([cut, await openState(token.slice(0, cut), await theKey(), EXPECT)], [cut, refused(reason)]);
    }
  });

  test("openState() checks the MAC before reading the payload", async () => {
    const notJson = `v1.${codecs.toBase64Url(new TextEncoder().encode("not json"))}.${"A".repeat(43)}`;
    same(await openState(notJson, await theKey(), EXPECT), refused("mac"));
  });

  test('openState() refuses an authentic payload that is not UTF-8 JSON with "json"', async () => {
    for (
      const payload of [
        "not json",
        "",
        "{",
        new Uint8Array([0xff]),
        new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
      ]
    ) {
      same(await openState(await forge(payload), await theKey(), EXPECT), refused("json"));
    }
  });

  test('openState() refuses an authentic payload of another shape with "shape"', async () => {
    const good = JSON.parse(canonicalJson(typicalState())) as Record<string, unknown>;
    const { pending: _, ...noPending } = good;
    const { principal: _p, ...noPrincipal } = good;
    const { nonce: _n, ...noNonce } = good;
    for (
      const payload of [
        { ...good, extra: 1 },
        { ...good, answers: [] },
        { ...good, pending: null },
        noPending,
        { ...good, expiresAt: String(EXPIRES_AT) },
        { ...good, requestDigest: CALL_DIGEST.toUpperCase() },
        { ...good, upstreamState: 1 },
        { ...good, serverId: null },
        noPrincipal,
        { ...good, principal: null },
        { ...good, principal: 1 },
        noNonce,
        { ...good, nonce: NONCE.slice(1) },
        { ...good, nonce: NONCE + "A" },
        { ...good, nonce: NONCE.replace("-", "=") },
        [good],
        null,
        "state",
      ]
    ) {
      same(await openState(await forge(JSON.stringify(payload)), await theKey(), EXPECT), refused("shape"));
    }
  });

  test('openState() refuses a state for another server with "server"', async () => {
    same(
      await openState(await sealTypical(), await theKey(), { ...EXPECT, serverId: "gitlab" }),
      refused("server"),
    );
  });

  test('openState() refuses a state sealed for another caller with "principal"', async () => {
    const token = await sealTypical();
    for (const principal of ["bob", "", "Alice", "alice "]) {
      same(
        [principal, await openState(token, await theKey(), { ...EXPECT, principal })],
        [principal, refused("principal")],
      );
    }
    const anonymous = await sealState({ ...typicalState(), principal: "" }, await theKey());
    same(await openState(anonymous, await theKey(), EXPECT), refused("principal"));
    same(
      await openState(anonymous, await theKey(), { ...EXPECT, principal: "" }),
      opened({ ...typicalState(), principal: "" }),
    );
  });

  test("openState() checks the server, then the principal, then the request, then the expiry", async () => {
    const token = await sealTypical();
    const requestDigest = await digestRequest("tools/call", { ...CALL, name: "destroy" });
    const all = { now: EXPIRES_AT, serverId: "gitlab", principal: "bob", requestDigest };
    same(await openState(token, await theKey(), all), refused("server"));
    same(await openState(token, await theKey(), { ...all, serverId: "github" }), refused("principal"));
    same(
      await openState(token, await theKey(), { ...all, serverId: "github", principal: "alice" }),
      refused("request"),
    );
    same(
      await openState(token, await theKey(), {
        ...all,
        serverId: "github",
        principal: "alice",
        requestDigest: CALL_DIGEST,
      }),
      refused("expired"),
    );
  });

  test('openState() refuses a state replayed against another request with "request"', async () => {
    const token = await sealTypical();
    const others = [
      await digestRequest("tools/call", { ...CALL, arguments: { x: 2, repo: "sluice" } }),
      await digestRequest("tools/call", { ...CALL, name: "destroy" }),
      await digestRequest("prompts/get", CALL),
    ];
    for (const requestDigest of others) {
      same(await openState(token, await theKey(), { ...EXPECT, requestDigest }), refused("request"));
    }
  });

  test("openState() accepts a state until 1 ms before expiresAt and refuses it from expiresAt on", async () => {
    const token = await sealTypical();
    const at = async (now: number): Promise<unknown> =>
      await openState(token, await theKey(), { ...EXPECT, now });
    same(await at(EXPIRES_AT - 1), opened(typicalState()));
    same(await at(EXPIRES_AT), refused("expired"));
    same(await at(EXPIRES_AT + 1), refused("expired"));
    same(await at(Number.NaN), refused("expired"));
  });
});

describe("digestRequest()", () => {
  test("digestRequest() is sha-256 of the canonical method and params", async () => {
    assert.equal(await digestRequest("tools/call", CALL), CALL_DIGEST);
    assert.equal(
      await digestRequest("tools/call", {}),
      "fee95a27604e96d5011447647a735b90de7d370d5bd60a75aa114d8d9dccdedb",
    );
  });

  test("digestRequest() ignores _meta, inputResponses, requestState and key order", async () => {
    const params = {
      _meta: { progressToken: 7, "io.modelcontextprotocol/clientCapabilities": {} },
      arguments: { repo: "sluice", x: 1 },
      inputResponses: { github_login: { action: "accept", content: { name: "octocat" } } },
      requestState: "v1.x.y",
      name: "deploy",
    };
    assert.equal(await digestRequest("tools/call", params), CALL_DIGEST);
    assert.equal(params.requestState, "v1.x.y");
  });

  test("digestRequest() changes with the arguments, the name, the URI and the method", async () => {
    const digests = [
      await digestRequest("tools/call", { ...CALL, arguments: { x: 1, repo: "Sluice" } }),
      await digestRequest("tools/call", { ...CALL, arguments: { x: 1, repo: "sluice", _meta: {} } }),
      await digestRequest("tools/call", { ...CALL, arguments: { x: "1", repo: "sluice" } }),
      await digestRequest("tools/call", {
        ...CALL,
        arguments: JSON.parse('{"x":1,"repo":"sluice","__proto__":1}'),
      }),
      await digestRequest("tools/call", { name: "deploy" }),
      await digestRequest("tools/call", { ...CALL, name: "deploy2" }),
      await digestRequest("prompts/get", CALL),
      await digestRequest("resources/read", { uri: "file:///a" }),
      await digestRequest("resources/read", { uri: "file:///b" }),
      CALL_DIGEST,
    ];
    assert.equal(new Set(digests).size, digests.length);
  });

  test("digestRequest() refuses params JSON cannot carry", async () => {
    await assert.rejects(digestRequest("tools/call", { name: "t", arguments: { n: 1n } }), {
      name: "TypeError",
      message: 'Canonical JSON: "$.params.arguments.n" must be a JSON value, received "bigint"',
    });
  });
});

describe("canonicalJson()", () => {
  test("canonicalJson() sorts keys by code unit and writes no whitespace", () => {
    const value = { b: [1, -0, 1e21, 0.1, "é\u2028\uD800"], a: { "10": null, "9": true, "": false }, B: {} };
    assert.equal(
      canonicalJson(value),
      '{"B":{},"a":{"":false,"10":null,"9":true},"b":[1,0,1e+21,0.1,"é\u2028\\ud800"]}',
    );
  });

  test("canonicalJson() refuses cycles, non-finite numbers and non-plain objects, and drops undefined members", () => {
    const cycle: Record<string, unknown> = {};
    cycle["self"] = [cycle];
    const cases: Array<[unknown, string]> = [
      [cycle, '"$.self[0]" must be a JSON value, received "a cycle"'],
      [{ n: Infinity }, '"$.n" must be a JSON value, received "Infinity"'],
      [{ "a b": new Date(0) }, '"$["a b"]" must be a JSON value, received "a non-plain object"'],
      [[undefined], '"$[0]" must be a JSON value, received "undefined"'],
      [() => 1, '"$" must be a JSON value, received "function"'],
    ];
    for (const [value, message] of cases) {
      assert.throws(() => canonicalJson(value), { name: "TypeError", message: `Canonical JSON: ${message}` });
    }
    const shared = { x: 1 };
    assert.equal(canonicalJson({ a: shared, b: shared, c: undefined }), '{"a":{"x":1},"b":{"x":1}}');
  });

  test("canonicalJson() and withoutPrototypes() take 100000 levels of nesting", () => {
    const depth = 100_000;
    const text = '{"a":'.repeat(depth) + "[1]" + "}".repeat(depth);
    const value = withoutPrototypes(JSON.parse(text));
    assert.equal(canonicalJson(value), text);
    assert.equal(Object.getPrototypeOf(value), null);
  });
});

describe("sealed state properties", () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  const map = fc.dictionary(fc.string({ unit: "binary", maxLength: 8 }), json, { maxKeys: 4 });
  const stateArbitrary = fc.record(
    {
      serverId: fc.string({ unit: "binary", maxLength: 12 }),
      principal: fc.string({ unit: "binary", maxLength: 12 }),
      nonce: fc.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      requestDigest: fc.stringMatching(/^[0-9a-f]{64}$/),
      upstreamState: fc.string({ unit: "binary", maxLength: 40 }),
      answers: map,
      pending: map,
      expiresAt: fc.integer({ min: 1, max: 2 ** 50 }),
    },
    { requiredKeys: ["serverId", "principal", "nonce", "requestDigest", "answers", "pending", "expiresAt"] },
  );

  test(propertyName("sealState() then openState() gives back any state of JSON values"), async () => {
    await fc.assert(
      fc.asyncProperty(stateArbitrary, async (state) => {
        const token = await sealState(state, await theKey());
        const { serverId, principal, requestDigest, expiresAt } = state;
        const result = await openState(token, await theKey(), {
          now: expiresAt - 1,
          serverId,
          principal,
          requestDigest,
        });
        same(result, opened(JSON.parse(JSON.stringify(state))));
      }),
      settings,
    );
  });

  test(
    propertyName("openState() refuses a sealed token with any one character replaced, removed or added"),
    async () => {
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ é\u0000";
      const edit = fc.record({
        kind: fc.constantFrom("replace", "remove", "add"),
        at: fc.nat(),
        char: fc.constantFrom(...alphabet),
      });
      await fc.assert(
        fc.asyncProperty(stateArbitrary, edit, async (state, { kind, at, char }) => {
          const token = await sealState(state, await theKey());
          const i = at % (token.length + (kind === "add" ? 1 : 0));
          if (kind === "replace" && token[i] === char) return;
          const changed = token.slice(0, i) + (kind === "remove" ? "" : char) +
            token.slice(kind === "add" ? i : i + 1);
          const { serverId, principal, requestDigest, expiresAt } = state;
          const result = await openState(changed, await theKey(), {
            now: expiresAt - 1,
            serverId,
            principal,
            requestDigest,
          });
          assert.equal(result.ok, false);
        }),
        settings,
      );
    },
  );

  const REASONS = [
    "not-string",
    "too-long",
    "format",
    "version",
    "base64url",
    "mac",
    "json",
    "shape",
    "server",
    "principal",
    "request",
    "expired",
    "keys",
  ];
  const tokenText = fc.oneof(
    hostileString(40),
    fc.tuple(
      fc.constantFrom("v1.", "v2.", "V1.", ".", "v1.."),
      hostileString(20),
      fc.constantFrom("", ".", ".AAAA"),
    )
      .map((parts) => parts.join("")),
    fc.tuple(fc.base64String({ maxLength: 40 }), fc.base64String({ maxLength: 44 })).map(([payload, mac]) =>
      `v1.${payload.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}.${mac.replace(/=+$/, "")}`
    ),
  );

  test(
    propertyName("openState() of any token, string or not, is a stable refusal and never throws"),
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(tokenText, anyValue), async (generated) => {
          const token = realise(generated);
          const result = await openState(token, await theKey(), EXPECT);
          assert.equal(result.ok, false);
          assert.ok(!result.ok && REASONS.includes(result.reason), JSON.stringify(result));
          same(
            await openState(typeof token === "string" ? token : realise(generated), await theKey(), EXPECT),
            result,
          );
        }),
        settings,
      );
    },
  );

  test(
    propertyName(
      "openState() of any validly sealed payload opens as the state it holds or refuses it, never throws",
    ),
    async () => {
      const state = fc.record({
        serverId: fc.constant("github"),
        principal: fc.constant("alice"),
        nonce: fc.constant(NONCE),
        requestDigest: fc.constant(CALL_DIGEST),
        upstreamState: hostileString(12),
        answers: fc.array(fc.tuple(hostileKey, jsonSafeValue), { maxLength: 3 }).map(objectOf),
        pending: fc.array(fc.tuple(hostileKey, jsonSafeValue), { maxLength: 3 }).map(objectOf),
        expiresAt: fc.constantFrom(EXPIRES_AT, NOW, NOW + 1),
      }, {
        requiredKeys: ["serverId", "principal", "nonce", "requestDigest", "answers", "pending", "expiresAt"],
      });
      const payload = fc.oneof(
        mutated(state, wireValue).map((value) => JSON.stringify(value) ?? ""),
        jsonText,
        hostileString(40),
      );
      await fc.assert(
        fc.asyncProperty(payload, async (text) => {
          const token = await sealPayload(new TextEncoder().encode(text), await theKey());
          const result = await openState(token, await theKey(), EXPECT);
          same(await openState(token, await theKey(), EXPECT), result);
          if (!result.ok) {
            assert.ok(
              ["json", "shape", "server", "principal", "request", "expired"].includes(result.reason),
              result.reason,
            );
            return;
          }
          same(result, opened(JSON.parse(text) as ContinuationState));
          same(
            await openState(await sealState(result.state, await theKey()), await theKey(), EXPECT),
            result,
          );
        }),
        settings,
      );
    },
  );
});

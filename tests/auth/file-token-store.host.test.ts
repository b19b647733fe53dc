// createFileTokenStore() on Node, Deno and Bun, in real files under a fresh temporary directory:
// the token store contract, where the file lives by default, its permissions, atomic writes,
// sharing between stores, and the refusal of files that are not private or not token files.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import {
  createFileTokenStore,
  defaultTokenFile,
  type FileTokenStoreOptions,
  STALE_LOCK_MS,
} from "../../src/auth/file-token-store.ts";
import { contractClock, describeTokenStoreContract } from "./token-store-contract.ts";

const root = await mkdtemp(join(tmpdir(), "sluice-token-file-"));
let made = 0;

/** A path in a directory of its own that does not exist yet. */
function freshPath(): string {
  return join(root, `d${++made}`, "sluice", "tokens.json");
}

/** The file's permission bits, as an octal string. */
async function modeOf(path: string): Promise<string> {
  return ((await stat(path)).mode & 0o777).toString(8).padStart(4, "0");
}

after(async () => {
  await rm(root, { recursive: true, force: true });
});

describeTokenStoreContract("createFileTokenStore()", () => {
  const clock = contractClock();
  return { store: createFileTokenStore({ path: freshPath(), clock }), clock };
});

describe("defaultTokenFile()", () => {
  test("defaultTokenFile() is $SLUICE_TOKEN_FILE when set, before $XDG_CONFIG_HOME", () => {
    assert.equal(
      defaultTokenFile({
        SLUICE_TOKEN_FILE: "/srv/sluice/tokens.json",
        XDG_CONFIG_HOME: "/home/ada/.config",
      }),
      "/srv/sluice/tokens.json",
    );
  });

  test("defaultTokenFile() is $XDG_CONFIG_HOME/sluice/tokens.json when SLUICE_TOKEN_FILE is unset or empty", () => {
    assert.deepEqual(
      [
        defaultTokenFile({ XDG_CONFIG_HOME: "/home/ada/.config" }),
        defaultTokenFile({ SLUICE_TOKEN_FILE: "", XDG_CONFIG_HOME: "/xdg" }),
      ],
      ["/home/ada/.config/sluice/tokens.json", "/xdg/sluice/tokens.json"],
    );
  });

  test("defaultTokenFile() is ~/.config/sluice/tokens.json without XDG_CONFIG_HOME, or with a relative one", () => {
    const home = join(homedir(), ".config", "sluice", "tokens.json");
    assert.deepEqual(
      [
        defaultTokenFile({}),
        defaultTokenFile({ XDG_CONFIG_HOME: "" }),
        defaultTokenFile({ XDG_CONFIG_HOME: "cfg" }),
      ],
      [home, home, home],
    );
  });
});

describe("createFileTokenStore()", () => {
  test("createFileTokenStore() creates the file with mode 0600 in directories created with mode 0700", async () => {
    const base = join(root, `d${++made}`);
    const path = join(base, "config", "sluice", "tokens.json");
    const store = createFileTokenStore({ path });
    assert.equal(await store.get("k"), undefined);
    const createdByGet = await readdir(root);
    await store.set("k", "v");
    assert.deepEqual(
      [
        createdByGet.includes(`d${made}`),
        await modeOf(join(base, "config")),
        await modeOf(join(base, "config", "sluice")),
        await modeOf(path),
      ],
      [false, "0700", "0700", "0600"],
    );
  });

  test("createFileTokenStore() writes the version, the values with their expiry and the claims, as JSON", async () => {
    const path = freshPath();
    const clock = contractClock(5000);
    const store = createFileTokenStore({ path, clock });
    await store.set("token:github:alice", '{"access_token":"at"}', 1000);
    await store.set("registration:github", "{}");
    await store.claim("state:n1", 600_000);
    assert.deepEqual(JSON.parse(await readFile(path, "utf8")), {
      version: 1,
      values: {
        "token:github:alice": { value: '{"access_token":"at"}', until: 6000 },
        "registration:github": { value: "{}" },
      },
      claims: { "state:n1": 605_000 },
    });
  });

  test("createFileTokenStore() drops expired values and claims when it writes", async () => {
    const path = freshPath();
    const clock = contractClock(0);
    const store = createFileTokenStore({ path, clock });
    await store.set("short", "s", 100);
    await store.set("long", "l", 10_000);
    await store.claim("brief", 100);
    await store.claim("held", 10_000);
    clock.advance(100);
    await store.set("new", "n");
    assert.deepEqual(JSON.parse(await readFile(path, "utf8")), {
      version: 1,
      values: { long: { value: "l", until: 10_000 }, new: { value: "n" } },
      claims: { held: 10_000 },
    });
  });

  test("createFileTokenStore() takes path and clock written as undefined as left out: the default file, the system clock", async () => {
    const path = freshPath();
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // Expired at 1 ms after the epoch by the system clock; a clock at 0 would still hold them.
    const values = { past: { value: "p", until: 1 }, kept: { value: "k" } };
    await writeFile(path, JSON.stringify({ version: 1, values, claims: { gone: 1 } }), { mode: 0o600 });
    const options: FileTokenStoreOptions = { path: undefined, clock: undefined };
    const saved = process.env["SLUICE_TOKEN_FILE"];
    process.env["SLUICE_TOKEN_FILE"] = path;
    let store;
    try {
      store = createFileTokenStore(options);
    } finally {
      if (saved === undefined) delete process.env["SLUICE_TOKEN_FILE"];
      else process.env["SLUICE_TOKEN_FILE"] = saved;
    }
    assert.deepEqual([await store.get("past"), await store.get("kept")], [undefined, "k"]);
    await store.set("new", "n");
    assert.deepEqual(JSON.parse(await readFile(path, "utf8")), {
      version: 1,
      values: { kept: { value: "k" }, new: { value: "n" } },
      claims: {},
    });
  });

  test("createFileTokenStore() leaves no temporary file behind after sets, deletes and claims", async () => {
    const path = freshPath();
    const store = createFileTokenStore({ path });
    for (let i = 0; i < 5; i++) await store.set(`k${i}`, `v${i}`, 60_000);
    await store.delete("k0");
    await store.claim("c", 60_000);
    await Promise.all(Array.from({ length: 5 }, (_, i) => store.set(`p${i}`, "x")));
    assert.deepEqual(await readdir(join(path, "..")), ["tokens.json"]);
  });

  test("createFileTokenStore() runs one process's concurrent operations one at a time: none is lost", async () => {
    const path = freshPath();
    const first = createFileTokenStore({ path });
    const second = createFileTokenStore({ path });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).set(`k${i}`, String(i))),
    );
    const claims = await Promise.all(Array.from({ length: 4 }, () => first.claim("once", 60_000)));
    const values = await Promise.all(Array.from({ length: 20 }, (_, i) => second.get(`k${i}`)));
    assert.deepEqual([values, claims.filter(Boolean).length], [
      Array.from({ length: 20 }, (_, i) => String(i)),
      1,
    ]);
  });

  test("createFileTokenStore() waits while another process holds the file's lock, then changes the file and releases it", async () => {
    const path = freshPath();
    const store = createFileTokenStore({ path });
    await store.set("before", "1");
    // Another process's lock, as it makes it.
    await writeFile(`${path}.lock`, "", { mode: 0o600 });
    let settled = false;
    const setting = store.set("during", "2").finally(() => (settled = true));
    // Ten tries to take the lock, 5 ms apart.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const whileHeld = [
      settled,
      await readFile(path, "utf8").then((text) => Object.keys(JSON.parse(text).values)),
    ];
    await rm(`${path}.lock`);
    await setting;
    assert.deepEqual([whileHeld, await store.get("during"), await readdir(join(path, ".."))], [
      [false, ["before"]],
      "2",
      ["tokens.json"],
    ]);
  });

  test("createFileTokenStore() removes a lock older than STALE_LOCK_MS, left by a process that died holding it", async () => {
    const path = freshPath();
    const store = createFileTokenStore({ path });
    await store.set("before", "1");
    await writeFile(`${path}.lock`, "", { mode: 0o600 });
    const past = (Date.now() - STALE_LOCK_MS - 1_000) / 1_000;
    await utimes(`${path}.lock`, past, past);
    await store.delete("before");
    assert.deepEqual([await store.get("before"), await readdir(join(path, ".."))], [undefined, [
      "tokens.json",
    ]]);
  });

  /**
   * A token file with a stale lock beside it, and 16 stores of it under aliases of its directory:
   * each store has its own queue, as a process of its own would.
   */
  async function staleLockAndStores() {
    const path = freshPath();
    await createFileTokenStore({ path }).set("seed", "x");
    const dir = join(path, "..");
    const stores = await Promise.all(Array.from({ length: 16 }, async (_, i) => {
      await symlink(dir, join(root, `alias${made}-${i}`));
      return createFileTokenStore({ path: join(root, `alias${made}-${i}`, "tokens.json") });
    }));
    await writeFile(`${path}.lock`, "", { mode: 0o600 });
    const past = (Date.now() - STALE_LOCK_MS - 1_000) / 1_000;
    await utimes(`${path}.lock`, past, past);
    return { path, stores };
  }

  test("createFileTokenStore() from 16 processes at once finding one stale lock keeps every key they set", async () => {
    for (let round = 0; round < 10; round++) {
      const { path, stores } = await staleLockAndStores();
      await Promise.all(stores.map((store, i) => store.set(`k${i}`, "v")));
      const kept = Object.keys(JSON.parse(await readFile(path, "utf8")).values);
      assert.deepEqual(
        [kept.length, await readdir(join(path, ".."))],
        [17, ["tokens.json"]],
        `round ${round}`,
      );
    }
  });

  test("createFileTokenStore() from 16 processes at once finding one stale lock lets one claim of a key win", async () => {
    for (let round = 0; round < 10; round++) {
      const { stores } = await staleLockAndStores();
      const claimed = await Promise.all(stores.map((store) => store.claim("once", 60_000)));
      assert.equal(claimed.filter(Boolean).length, 1, `round ${round}`);
    }
  });

  test("createFileTokenStore() shares one file between stores: each sees the other's values, deletes and claims", async () => {
    const path = freshPath();
    const first = createFileTokenStore({ path });
    const second = createFileTokenStore({ path });
    await first.set("a", "1");
    await second.set("b", "2");
    const seen = [await second.get("a"), await first.get("b")];
    await second.delete("a");
    assert.deepEqual(
      [seen, await first.get("a"), await first.claim("n", 60_000), await second.claim("n", 60_000)],
      [["1", "2"], undefined, true, false],
    );
  });

  test("createFileTokenStore() refuses a file with mode 0644, naming it and chmod 600, and leaves it as it was", async () => {
    const path = freshPath();
    await createFileTokenStore({ path }).set("k", "v");
    await chmod(path, 0o644);
    const before = await readFile(path, "utf8");
    const store = createFileTokenStore({ path });
    const refusal = {
      name: "Error",
      message:
        `Token file "${path}" has mode "0644", so others may read its tokens: expected "0600", run chmod 600 "${path}"`,
    };
    await assert.rejects(store.get("k"), refusal);
    await assert.rejects(store.set("k", "w"), refusal);
    await assert.rejects(store.claim("c", 1000), refusal);
    assert.deepEqual([await readFile(path, "utf8"), await modeOf(path)], [before, "0644"]);
    await chmod(path, 0o600);
    assert.equal(await store.get("k"), "v");
  });

  test("createFileTokenStore() refuses a file that is not JSON, naming it and the format expected", async () => {
    const path = freshPath();
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, "{ not json", { mode: 0o600 });
    await assert.rejects(createFileTokenStore({ path }).get("k"), {
      name: "Error",
      message: `Token file "${path}" is not JSON: expected a token file {"version": 1, "values": ` +
        `{<key>: {"value": <string>, "until"?: <ms>}}, "claims": {<key>: <ms>}}; it is left as it is: ` +
        "move it aside (its sign-ins are then lost) and sign in again",
    });
    assert.equal(await readFile(path, "utf8"), "{ not json");
  });

  test("createFileTokenStore() refuses JSON that is not a token file, naming where it differs, and never overwrites it", async () => {
    const path = freshPath();
    await mkdir(join(path, ".."), { recursive: true });
    const format =
      '{"version": 1, "values": {<key>: {"value": <string>, "until"?: <ms>}}, "claims": {<key>: <ms>}}';
    const cases: Array<[unknown, string]> = [
      [{ version: 2, values: {}, claims: {} }, "$.version: expected 1, received 2"],
      [
        { version: 1, values: { k: { value: 1 } }, claims: {} },
        "$.values.k.value: expected string, received 1",
      ],
      [{ version: 1, values: {}, claims: { c: "soon" } }, '$.claims.c: expected number, received "soon"'],
      [[], "$: expected Object, received Array"],
    ];
    const messages: string[] = [];
    for (const [contents] of cases) {
      await writeFile(path, JSON.stringify(contents), { mode: 0o600 });
      const store = createFileTokenStore({ path });
      await store.set("k", "v").catch((error: Error) => messages.push(error.message));
      assert.equal(await readFile(path, "utf8"), JSON.stringify(contents));
    }
    assert.deepEqual(
      messages,
      cases.map(([, where]) =>
        `Token file "${path}" is not a token file ${format}: ${where}; it is left as it is: ` +
        "move it aside (its sign-ins are then lost) and sign in again"
      ),
    );
  });

  test("createFileTokenStore() keeps keys such as __proto__ as ordinary keys", async () => {
    const path = freshPath();
    const store = createFileTokenStore({ path });
    await store.set("__proto__", "p");
    await store.set("constructor", "c");
    assert.deepEqual(
      [await store.get("__proto__"), await store.get("constructor"), await store.get("toString")],
      ["p", "c", undefined],
    );
  });
});

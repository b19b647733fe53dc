/**
 * A token store in one JSON file, for the command line and other self-hosted processes of one
 * person: readable by its owner only, written atomically, shared by every process that opens the
 * same path. Node, Deno and Bun (`node:fs`).
 *
 * The file: `{ "version": 1, "values": { <key>: { "value": <string>, "until"?: <ms since the
 * epoch> } }, "claims": { <key>: <ms since the epoch> } }`.
 *
 * @example
 * ```ts
 * import { mkdtemp, rm } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createFileTokenStore } from "./file-token-store.ts";
 * const dir = await mkdtemp(join(tmpdir(), "sluice-doc-"));
 * const store = createFileTokenStore({ path: join(dir, "tokens.json") });
 * await store.set("k", "v", 60_000);
 * console.log(await store.get("k")); // v
 * await rm(dir, { recursive: true });
 * ```
 *
 * @module
 */
import { chmod, mkdir, open, rename, rm, stat } from "node:fs/promises";
import type { Stats } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import * as v from "valibot";
import { codecs } from "../_internal/encoding.ts";
import { type Clock, systemClock } from "../_internal/clock.ts";
import { decode, refuseArrays } from "../protocol/decode.ts";
import { nullProtoRecord } from "../protocol/null-proto-record.ts";
import type { TokenStore } from "./token-store.ts";
import { finiteTtlMs } from "../_internal/ttl-ms.ts";

/** Options of {@linkcode createFileTokenStore}. */
export interface FileTokenStoreOptions {
  /**
   * The file; created (with its directory) on the first write.
   *
   * @default defaultTokenFile(process.env)
   */
  readonly path?: string | undefined;
  /**
   * The clock values and claims expire by.
   *
   * @default systemClock
   */
  readonly clock?: Clock | undefined;
}

/** What the file holds, read into maps (its keys are untrusted). */
interface Contents {
  readonly values: Map<string, Held>;
  readonly claims: Map<string, number>;
}

interface Held {
  readonly value: string;
  /** When it expires, ms since the epoch; never when absent. */
  readonly until?: number | undefined;
}

const MS = v.pipe(v.number(), v.finite());
const FileSchema = refuseArrays(v.strictObject({
  version: v.literal(1),
  values: nullProtoRecord(refuseArrays(v.strictObject({ value: v.string(), until: v.optional(MS) }))),
  claims: nullProtoRecord(MS),
}));
/** The file's shape, for the messages that refuse a file. */
const FORMAT =
  '{"version": 1, "values": {<key>: {"value": <string>, "until"?: <ms>}}, "claims": {<key>: <ms>}}';

/** The end of each file's last operation, by resolved path: one operation at a time per file. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Where the command line keeps tokens: `$SLUICE_TOKEN_FILE` when set, else
 * `$XDG_CONFIG_HOME/sluice/tokens.json` when that is an absolute path, else
 * `~/.config/sluice/tokens.json`.
 *
 * @param env The environment variables, such as `process.env`.
 * @returns The absolute path of the file.
 * @example
 * ```ts
 * import { defaultTokenFile } from "./file-token-store.ts";
 * console.log(defaultTokenFile({ XDG_CONFIG_HOME: "/home/ada/.config" })); // /home/ada/.config/sluice/tokens.json
 * ```
 */
export function defaultTokenFile(env: Readonly<Record<string, string | undefined>>): string {
  const file = env["SLUICE_TOKEN_FILE"];
  if (file !== undefined && file !== "") return resolve(file);
  // The XDG base directory spec: a relative XDG_CONFIG_HOME is invalid and is ignored.
  const config = env["XDG_CONFIG_HOME"];
  const base = config !== undefined && isAbsolute(config) ? config : join(homedir(), ".config");
  return join(base, "sluice", "tokens.json");
}

/**
 * Creates a token store in a JSON file, mode `0600` in a directory made `0700`, replaced atomically
 * on every write (expired entries dropped). Every operation reads the file again, so processes
 * sharing it see each other's values. A file others may read, or that is not a token file, is
 * refused with an error, never overwritten: it may hold tokens.
 *
 * Every change runs under a lock file `<path>.lock`, so sharing processes never lose each other's
 * writes and a claim is atomic across them. A lock older than {@linkcode STALE_LOCK_MS} is removed;
 * a change that cannot take it within {@linkcode LOCK_WAIT_MS} fails naming the lock file.
 *
 * @param options The path and the clock.
 * @returns The store.
 */
export function createFileTokenStore(options: FileTokenStoreOptions = {}): TokenStore {
  const path = resolve(options.path ?? defaultTokenFile(process.env));
  const clock = options.clock ?? systemClock;

  /** Runs `work` after every earlier operation on this file in this process has ended. */
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const result = (queues.get(path) ?? Promise.resolve()).then(work);
    const settled = result.then(() => {}, () => {});
    queues.set(path, settled);
    void settled.then(() => {
      if (queues.get(path) === settled) queues.delete(path);
    });
    return result;
  };
  /** Runs a read-modify-write of the file: in turn in this process, under the lock across processes. */
  const changing = <T>(work: () => Promise<T>): Promise<T> => serially(() => locked(path, work));

  return {
    get: (key) =>
      serially(async () => {
        const held = (await readContents(path)).values.get(key);
        return held !== undefined && live(held.until, clock.now()) ? held.value : undefined;
      }),
    set: (key, value, ttlMs) =>
      changing(async () => {
        const until = ttlMs === undefined
          ? undefined
          : clock.now() + finiteTtlMs("createFileTokenStore().set()", ttlMs);
        const contents = await readContents(path);
        contents.values.set(key, { value, until });
        await writeContents(path, contents, clock.now());
      }),
    delete: (key) =>
      changing(async () => {
        const contents = await readContents(path);
        if (contents.values.delete(key)) await writeContents(path, contents, clock.now());
      }),
    claim: (key, ttlMs) =>
      changing(async () => {
        const now = clock.now();
        const until = now + finiteTtlMs("createFileTokenStore().claim()", ttlMs);
        const contents = await readContents(path);
        const held = contents.claims.get(key);
        if (held !== undefined && live(held, now)) return false;
        contents.claims.set(key, until);
        await writeContents(path, contents, now);
        return true;
      }),
  };
}

/** How long a change waits for another process's lock before it fails. */
export const LOCK_WAIT_MS = 10_000;
/** The age past which a lock file is taken for one left by a process that died holding it. */
export const STALE_LOCK_MS = 30_000;
/** The pause between two tries to take the lock. */
const LOCK_RETRY_MS = 5;

/**
 * Runs `work` holding the lock file `<path>.lock`, made with `O_EXCL`: `node:fs` offers no OS file
 * lock on all three runtimes. Its age is read by the wall clock, not the store's (a test's) clock.
 *
 * @throws {Error} When another process holds the lock for longer than {@linkcode LOCK_WAIT_MS}.
 */
async function locked<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  for (const deadline = Date.now() + LOCK_WAIT_MS;;) {
    try {
      await (await open(lock, "wx", 0o600)).close();
      break;
    } catch (error) {
      if (codeOf(error) !== "EEXIST") throw error;
    }
    const held = await stat(lock).catch(() => undefined);
    if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
      await removeStale(lock, held);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `Token file "${path}" stayed locked by another process for ${LOCK_WAIT_MS} ms: expected its lock "${lock}" to be released; remove it if no sluice process is running`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}

/**
 * Removes a stale lock if it is still the one judged stale (another process may have replaced it
 * meanwhile), checking and removing under a second lock `<lock>.break`, itself removed when older
 * than {@linkcode STALE_LOCK_MS}.
 *
 * @param lock The lock file.
 * @param stale What `stat` said of it when it was judged stale.
 */
async function removeStale(lock: string, stale: Stats): Promise<void> {
  const breaker = `${lock}.break`;
  try {
    await (await open(breaker, "wx", 0o600)).close();
  } catch (error) {
    if (codeOf(error) !== "EEXIST") throw error;
    const left = await stat(breaker).catch(() => undefined);
    if (left !== undefined && Date.now() - left.mtimeMs > STALE_LOCK_MS) await rm(breaker, { force: true });
    return;
  }
  try {
    const now = await stat(lock).catch(() => undefined);
    if (now?.ino === stale.ino && now.mtimeMs === stale.mtimeMs) await rm(lock, { force: true });
  } finally {
    await rm(breaker, { force: true });
  }
}

function live(until: number | undefined, now: number): boolean {
  return until === undefined || now < until;
}

/**
 * Reads the file: empty contents when it does not exist.
 *
 * @throws {Error} When others may read it, it cannot be read, or it is not a token file.
 */
async function readContents(path: string): Promise<Contents> {
  let text: string;
  try {
    // Opened once, then checked and read through the same handle: the file checked is the file read.
    const handle = await open(path, "r");
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        throw new Error(`Token file "${path}" is not a regular file: expected a file or none`);
      }
      assertPrivate(path, stat.mode);
      text = await handle.readFile({ encoding: "utf8" });
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (codeOf(error) === "ENOENT") return { values: new Map(), claims: new Map() };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`Token file "${path}" is not JSON: expected a token file ${FORMAT}${LEFT_AS_IT_IS}`, {
      cause: error,
    });
  }
  const decoded = decode(FileSchema, parsed);
  if (!decoded.ok) {
    throw new Error(`Token file "${path}" is not a token file ${FORMAT}: ${decoded.message}${LEFT_AS_IT_IS}`);
  }
  return {
    values: new Map(Object.entries(decoded.value.values)),
    claims: new Map(Object.entries(decoded.value.claims)),
  };
}

/** What to do with a file sluice cannot read: it is never overwritten, so no sign-in is lost unasked. */
const LEFT_AS_IT_IS = "; it is left as it is: move it aside (its sign-ins are then lost) and sign in again";

/** Refuses a file whose group or other permission bits are set (not on Windows, which reports `0666`). */
function assertPrivate(path: string, mode: number): void {
  if (process.platform === "win32" || (mode & 0o077) === 0) return;
  const shown = (mode & 0o777).toString(8).padStart(4, "0");
  throw new Error(
    `Token file "${path}" has mode "${shown}", so others may read its tokens: expected "0600", run chmod 600 "${path}"`,
  );
}

/** Replaces the file with `contents` less what expired by `now`: a private temporary file, renamed. */
async function writeContents(path: string, contents: Contents, now: number): Promise<void> {
  const values: Record<string, Held> = Object.create(null);
  for (const [key, held] of contents.values) if (live(held.until, now)) values[key] = held;
  const claims: Record<string, number> = Object.create(null);
  for (const [key, until] of contents.claims) if (live(until, now)) claims[key] = until;
  const text = `${JSON.stringify({ version: 1, values, claims }, null, 2)}\n`;

  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const random = codecs.toHex(crypto.getRandomValues(new Uint8Array(8)));
  const temporary = join(dir, `.${basename(path)}.${random}.tmp`);
  try {
    const handle = await open(temporary, "wx", 0o600);
    try {
      // The umask can only take bits away from 0600; chmod makes it exactly 0600 all the same.
      await chmod(temporary, 0o600);
      await handle.writeFile(text, { encoding: "utf8" });
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

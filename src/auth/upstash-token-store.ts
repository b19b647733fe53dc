/**
 * A token store shared by every isolate and machine, over Upstash Redis, every value encrypted at
 * rest. Web standards only: runs on Cloudflare Workers, Deno Deploy, Bun, Deno and Node.
 *
 * @example
 * ```ts
 * import { Redis } from "@upstash/redis";
 * import { createUpstashTokenStore } from "./upstash-token-store.ts";
 * const store = createUpstashTokenStore({
 *   redis: new Redis({ url: "https://x.upstash.io", token: "t" }),
 *   key: "an example secret, at least 32 bytes long",
 * });
 * ```
 *
 * @module
 */
import type { Redis } from "@upstash/redis";
import { codecs } from "../_internal/encoding.ts";
import { MAKE_A_KEY, secretKeyProblem } from "../_internal/secret-key.ts";
import { checkUpstashOptions, timeoutOption, within } from "../limits/redis-within.ts";
import type { TokenStore } from "./token-store.ts";
import { finiteTtlMs } from "../_internal/ttl-ms.ts";

/** The part of any `@upstash/redis` client the token store uses. */
export type UpstashTokenRedis = Pick<Redis, "get" | "set" | "del">;

/** Options of {@linkcode createUpstashTokenStore}. */
export interface UpstashTokenStoreOptions {
  /** The Redis client, e.g. `new Redis({ url, token })` from `@upstash/redis/cloudflare`. */
  readonly redis: UpstashTokenRedis;
  /**
   * The secret values are encrypted under: at least 32 random bytes as a string (`openssl rand
   * -base64 32`). Changing it signs everyone out.
   */
  readonly key: string;
  /**
   * Prepended to every Redis key (`<prefix>:v:<key>`, `<prefix>:claim:<key>`). Changing it signs
   * everyone out.
   *
   * @default "sluice:oauth"
   */
  readonly prefix?: string | undefined;
  /**
   * How long an operation may wait for Redis before it rejects with `StoreUnavailableError`.
   *
   * @default 1000
   */
  readonly timeoutMs?: number | undefined;
}

/** HKDF's `info`: the AES key is never the states' HMAC key, even under the same secret. */
const KEY_INFO = "sluice token store v1";
const OPTION_KEYS: readonly (keyof UpstashTokenStoreOptions)[] = ["redis", "key", "prefix", "timeoutMs"];
const VERSION = "v1";
const IV_BYTES = 12;
/** An AES-GCM ciphertext is at least its 16-byte tag. */
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Creates a token store over Upstash Redis. Values are stored as `v1.<iv>.<ciphertext>`: AES-256-GCM,
 * the key derived with HKDF-SHA-256 from `key`, the value's Redis key as additional data (a value
 * moved to another key does not open). A value that does not decrypt reads as absent.
 *
 * It fails closed: when Redis is unreachable, errs, or exceeds `timeoutMs`, the operation rejects
 * with `StoreUnavailableError`. Claims are `SET NX PX` of a random value, atomic across instances; a
 * claim rejected as too slow is given back (`GET` then `DEL`, as the client may lack `eval`) once
 * Redis answers that it was made: a claim made between the two, just as this one expires, would go
 * too, and one whose answer is lost holds until its ttl.
 *
 * @param options The client, the secret, the key prefix and the timeout.
 * @returns The store.
 * @throws {TypeError} When an option is unknown, `redis` has no `get`, `set` and `del`, or `key`
 * is not a string of at least 32 random-looking bytes.
 * @throws {RangeError} When `timeoutMs` is not a positive integer of at most 2^31 − 1.
 */
export function createUpstashTokenStore(options: UpstashTokenStoreOptions): TokenStore {
  checkUpstashOptions("createUpstashTokenStore()", options, OPTION_KEYS, ["get", "set", "del"]);
  const secret: unknown = options.key;
  const problem = typeof secret === "string"
    ? secretKeyProblem(secret)
    : `must be a string, received "${typeof secret}": ${MAKE_A_KEY}`;
  if (problem !== undefined) throw new TypeError(`createUpstashTokenStore(): "key" ${problem}`);
  const timeoutMs = timeoutOption("createUpstashTokenStore()", options.timeoutMs);
  const { redis } = options;
  const prefix = options.prefix ?? "sluice:oauth";
  let derived: Promise<CryptoKey> | undefined;
  const aesKey = () => (derived ??= deriveKey(secret as string));

  return {
    async get(key: string): Promise<string | undefined> {
      const name = `${prefix}:v:${key}`;
      const stored = await within(redis.get<unknown>(name), timeoutMs, "expected an answer to GET", "tokens");
      return typeof stored === "string" ? await open(stored, name, await aesKey()) : undefined;
    },
    async set(key: string, value: string, ttlMs?: number): Promise<void> {
      const name = `${prefix}:v:${key}`;
      const px = ttlMs === undefined ? undefined : wholeMs(ttlMs, "createUpstashTokenStore().set()");
      const sealed = await seal(value, name, await aesKey());
      const set = px === undefined ? redis.set(name, sealed) : redis.set(name, sealed, { px });
      await within(set, timeoutMs, "expected an answer to SET", "tokens");
    },
    async delete(key: string): Promise<void> {
      await within(redis.del(`${prefix}:v:${key}`), timeoutMs, "expected an answer to DEL", "tokens");
    },
    async claim(key: string, ttlMs: number): Promise<boolean> {
      const px = wholeMs(ttlMs, "createUpstashTokenStore().claim()");
      const name = `${prefix}:claim:${key}`;
      // The claim's own value: its give-back deletes no claim made after it expired.
      const value = crypto.randomUUID();
      const sent = redis.set(name, value, { nx: true, px });
      try {
        if (await within(sent, timeoutMs, "expected an answer to SET NX", "tokens") === "OK") return true;
        // Held, perhaps by this claim: the client's retry of a SET that landed finds the key taken.
        return await within(redis.get(name), timeoutMs, "expected an answer to GET", "tokens") === value;
      } catch (error) {
        // The SET may still land: give it back, or the next attempt is refused for its whole ttl.
        const giveBack = async () => {
          if (await redis.get(name) === value) await redis.del(name);
        };
        void sent.then((answer) => answer === "OK" ? giveBack() : undefined).catch(() => {});
        throw error;
      }
    },
  };
}

/** The AES-256-GCM key of the store, from the secret's UTF-8 bytes. */
async function deriveKey(secret: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(KEY_INFO) },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** Encrypts `value` for the Redis key `name`: `v1.<iv>.<ciphertext>`. */
async function seal(value: string, name: string, key: CryptoKey): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(name) },
    key,
    encoder.encode(value),
  );
  return `${VERSION}.${codecs.toBase64Url(iv)}.${codecs.toBase64Url(new Uint8Array(ciphertext))}`;
}

/** Decrypts what {@linkcode seal} made for `name`, or `undefined` when it does not open. */
async function open(stored: string, name: string, key: CryptoKey): Promise<string | undefined> {
  const [version, ivText, ciphertextText, extra] = stored.split(".");
  if (version !== VERSION || ivText === undefined || ciphertextText === undefined || extra !== undefined) {
    return undefined;
  }
  const iv = codecs.fromBase64Url(ivText);
  const ciphertext = codecs.fromBase64Url(ciphertextText);
  if (iv?.length !== IV_BYTES || ciphertext === undefined || ciphertext.length < TAG_BYTES) return undefined;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: new Uint8Array(iv), additionalData: encoder.encode(name) },
      key,
      new Uint8Array(ciphertext),
    );
    return decoder.decode(plain);
  } catch {
    // Another key, a tampered or moved value: absent, as the store's contract says.
    return undefined;
  }
}

/** `ttlMs` as Redis's `PX`: whole milliseconds, at least 1 (`PX 0` is an error in Redis). */
function wholeMs(ttlMs: number, where: string): number {
  return Math.max(1, Math.ceil(finiteTtlMs(where, ttlMs)));
}

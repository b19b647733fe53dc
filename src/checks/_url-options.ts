/**
 * Validation and compilation of the URL check's options, once, at factory time.
 *
 * @module
 */
import { compileHostRules, type HostRules } from "./_host-rules.ts";
import { describeKind, describeValue, quote } from "../_internal/quote.ts";

/** The compiled options of the URL check. */
export interface UrlRules {
  /** `allowIpHosts`. */
  readonly allowIp: boolean;
  /** `allowPrivateHosts`. */
  readonly allowPrivate: boolean;
  /** `maxUrlLength`. */
  readonly maxLength: number;
  /** `denyHosts`, compiled. */
  readonly deny: HostRules;
  /** `allowHosts`, compiled; `undefined` when every host is allowed. */
  readonly allow: HostRules | undefined;
}

const OPTION_KEYS: readonly string[] = [
  "allowHosts",
  "denyHosts",
  "allowIpHosts",
  "allowPrivateHosts",
  "maxUrlLength",
];

/**
 * Validates and compiles the options of `createElicitationUrlCheck`.
 *
 * @param options The options as given.
 * @returns The compiled rules.
 * @throws {TypeError} On an unknown key or a malformed value.
 */
export function compileUrlOptions(options: unknown): UrlRules {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `createElicitationUrlCheck: options must be an object, received ${describeKind(options)}`,
    );
  }
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!OPTION_KEYS.includes(key)) {
      const known = OPTION_KEYS.join(", ");
      throw new TypeError(
        `createElicitationUrlCheck: unknown option ${quote(key)}, expected one of ${known}`,
      );
    }
  }
  const allowIp = readFlag(given["allowIpHosts"], "allowIpHosts");
  const allowPrivate = readFlag(given["allowPrivateHosts"], "allowPrivateHosts");
  const maxLength = given["maxUrlLength"] ?? 2048;
  if (typeof maxLength !== "number" || !Number.isSafeInteger(maxLength) || maxLength < 1) {
    const received = describeValue(maxLength);
    throw new TypeError(
      `createElicitationUrlCheck: "maxUrlLength" must be a positive integer, received ${received}`,
    );
  }
  const deny = compileHostRules(readList(given["denyHosts"] ?? [], "denyHosts"), "denyHosts");
  let allow: HostRules | undefined;
  if (given["allowHosts"] !== undefined) {
    const list = readList(given["allowHosts"], "allowHosts");
    if (list.length === 0) {
      throw new TypeError(
        'createElicitationUrlCheck: "allowHosts" must list at least one host; omit it to allow every host',
      );
    }
    allow = compileHostRules(list, "allowHosts", { ip: allowIp, private: allowPrivate });
  }
  return { allowIp, allowPrivate, maxLength, deny, allow };
}

function readFlag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") {
    throw new TypeError(
      `createElicitationUrlCheck: "${name}" must be a boolean, received ${describeValue(value)}`,
    );
  }
  return value;
}

function readList(value: unknown, name: string): readonly unknown[] {
  if (!Array.isArray(value)) {
    const received = describeValue(value);
    throw new TypeError(
      `createElicitationUrlCheck: "${name}" must be an array of hosts, received ${received}`,
    );
  }
  return value;
}

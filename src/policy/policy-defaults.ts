/**
 * The default of every policy option.
 *
 * @module
 */

import { MESSAGE_LIMIT_DEFAULTS } from "../protocol/message-limits.ts";
import type { ElicitationPolicy, HandlerTimeoutPolicy, Policy, SamplingPolicy } from "./policy.ts";

/** Every option of `T` set: a user's may be written `undefined`, a default never is. */
type Defaulted<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> };

/** The type of {@linkcode POLICY_DEFAULTS}; each option is documented on {@linkcode Policy}. */
export interface PolicyDefaults extends
  Defaulted<
    Pick<
      Policy,
      | "era"
      | "roots"
      | "inputRateLimit"
      | "logRateLimit"
      | "logLevel"
      | "rateLimitFailOpen"
      | "callTimeout"
      | "maxTotalTimeout"
      | "maxServerRequests"
      | "maxRounds"
      | "maxMessageBytes"
      | "maxEventBytes"
      | "maxInputRequests"
      | "maxJsonDepth"
      | "maxWaitingNotifications"
      | "passDown"
      | "stateTtl"
      | "maxSessions"
      | "sessionIdleTimeout"
    >
  > {
  /** The sampling options' defaults (a policy may also say `sampling: false`). */
  readonly sampling: Defaulted<SamplingPolicy>;
  /** The elicitation options' defaults (`origin`, `allowHosts` and `denyHosts` have none). */
  readonly elicitation: Defaulted<
    Pick<
      ElicitationPolicy,
      "modes" | "allowIpHosts" | "allowPrivateHosts" | "maxUrlLength" | "maxFields" | "maxEnumValues"
    >
  >;
  /** The handler time limits' defaults. */
  readonly handlerTimeout: Defaulted<HandlerTimeoutPolicy>;
}

/** The defaults a policy's missing options take. */
export const POLICY_DEFAULTS: PolicyDefaults = Object.freeze({
  era: "auto",
  sampling: Object.freeze({
    maxTokens: 4096,
    context: false,
    allowIdle: false,
    maxToolIterations: 5,
    rejectionCode: -1,
    tools: false,
  }),
  elicitation: Object.freeze({
    modes: Object.freeze(["form", "url"] as const),
    allowIpHosts: false,
    allowPrivateHosts: false,
    maxUrlLength: 2048,
    maxFields: 100,
    maxEnumValues: 500,
  }),
  roots: true,
  inputRateLimit: Object.freeze({ rate: 10, per: "1s", burst: 20 }),
  logRateLimit: Object.freeze({ rate: 50, per: "1s", burst: 100 }),
  logLevel: "info",
  rateLimitFailOpen: false,
  handlerTimeout: Object.freeze({ elicitation: "5m", default: "60s" }),
  callTimeout: "60s",
  maxTotalTimeout: "10m",
  maxServerRequests: 8,
  maxRounds: 10,
  maxMessageBytes: MESSAGE_LIMIT_DEFAULTS.maxMessageBytes,
  maxEventBytes: MESSAGE_LIMIT_DEFAULTS.maxEventBytes,
  maxInputRequests: 16,
  maxJsonDepth: MESSAGE_LIMIT_DEFAULTS.maxJsonDepth,
  maxWaitingNotifications: 1000,
  passDown: Object.freeze([]),
  stateTtl: "10m",
  maxSessions: 32,
  sessionIdleTimeout: "10m",
});

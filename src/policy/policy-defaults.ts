/**
 * The default of every policy option: the seed's numbers, and the safe choice where the seed
 * is silent.
 *
 * @module
 */

import type { Duration } from "./duration.ts";
import type {
  ElicitationPolicy,
  HandlerTimeoutPolicy,
  LogLevel,
  RateOption,
  SamplingPolicy,
} from "./policy.ts";

/** The type of {@linkcode POLICY_DEFAULTS}: every option that has a default. */
export interface PolicyDefaults {
  readonly era: "modern" | "legacy" | "auto";
  readonly sampling: Required<SamplingPolicy>;
  readonly elicitation: Required<
    Pick<
      ElicitationPolicy,
      "modes" | "allowIpHosts" | "allowPrivateHosts" | "maxUrlLength" | "maxFields" | "maxEnumValues"
    >
  >;
  readonly roots: boolean;
  readonly inputRateLimit: RateOption;
  readonly logRateLimit: RateOption;
  readonly logLevel: LogLevel;
  readonly rateLimitFailOpen: boolean;
  readonly handlerTimeout: Required<HandlerTimeoutPolicy>;
  readonly callTimeout: Duration;
  readonly maxTotalTimeout: Duration;
  readonly maxServerRequests: number;
  readonly maxRounds: number;
  readonly passDown: readonly ("sampling" | "elicitation" | "roots")[];
  readonly stateTtl: Duration;
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
  passDown: Object.freeze([]),
  stateTtl: "10m",
});

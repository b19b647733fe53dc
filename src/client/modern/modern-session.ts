/**
 * One server spoken to in the modern era (`2026-07-28`): no session on the wire, so this holds
 * only what the client learns and reuses (the negotiated version, the tools' header rules) and
 * sends each request as a fresh POST carrying the full `_meta` and headers.
 *
 * @module
 */
import type { Chain } from "../../chain/chain.ts";
import type { Timers } from "../../_internal/timers.ts";
import { ClientError } from "../../errors.ts";
import type { CompiledHttpTransport } from "../../policy/compile-policy.ts";
import { decodeUnsupportedVersionData } from "../../protocol/error-data.ts";
import {
  createRequestIds,
  isNotification,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
} from "../../protocol/jsonrpc.ts";
import type { LoggingLevel } from "../../protocol/logging-level.ts";
import { type Implementation, type RequestMeta, withRequestMeta } from "../../protocol/meta.ts";
import { MODERN_PROTOCOL_VERSION, type ModernProtocolVersion } from "../../protocol/versions.ts";
import { openLeg } from "../../_internal/signals.ts";
import { copyOwn } from "../../_internal/copy.ts";
import { legError, type LegOutcome } from "./failure-errors.ts";
import { type Fetcher, fetchWithRedirects } from "../../transport/fetch-with-redirects.ts";
import { readResponse } from "../../transport/read-response.ts";
import type { MessageLimits } from "../../protocol/message-limits.ts";
import { mcpNameOf, mcpRequestHeaders } from "../../protocol/mcp-request-headers.ts";
import { MRTR_METHODS } from "../../protocol/input-required.ts";
import { ToolHeaderCache } from "./tool-header-cache.ts";
import { deliverProgress } from "../../notify/progress-delivery.ts";
import type { CallContext } from "../server-session.ts";

/** What a session needs from its client. */
export interface ModernSessionOptions {
  readonly serverId: string;
  readonly transport: CompiledHttpTransport;
  readonly chain: Chain;
  readonly clientInfo: Implementation;
  readonly tasks: boolean;
  readonly fetch: Fetcher;
  readonly timers: Timers;
  readonly callTimeoutMs: number;
  /** The policy's message limits, applied to every response. */
  readonly limits: MessageLimits;
  /** The policy's `maxInputRequests`: the most entries of one round. */
  readonly maxInputRequests: number;
  /**
   * Asks for server logs at this level (the policy's `logLevel`) on every request but the front's (its caller
   * chooses).
   */
  readonly logLevel: LoggingLevel;
  /** Receives the server's notifications, in order. */
  readonly notify: (notification: JsonRpcNotification) => void;
}

/** Options of one request: a call's signal, progress, notifications, capabilities, log level and fetch. */
export type ModernRequestOptions =
  & Pick<CallContext, "signal" | "onProgress" | "onNotification" | "capabilities" | "logLevel" | "fetch">
  & {
    /** Hears the request sent again after its response stream broke: the server may have run it. */
    readonly onResent?: (() => void) | undefined;
    /**
     * Asked once a `tools/call` the server refused `-32020` has had the tools listed again, before it is sent
     * with the new headers: `false` fails it with the server's `-32020` instead (the front, when its caller's
     * own headers disagree with the new rules). @default () => true
     */
    readonly retriesHeaders?: (() => boolean) | undefined;
  };

/** The versions this client speaks in the modern era, preferred first. */
const MODERN_VERSIONS: readonly ModernProtocolVersion[] = [MODERN_PROTOCOL_VERSION];

/** A modern-era server. */
export class ModernSession {
  readonly #options: ModernSessionOptions;
  readonly #ids: () => number = createRequestIds();
  readonly #tools: ToolHeaderCache;
  #version: ModernProtocolVersion = MODERN_PROTOCOL_VERSION;
  #progress = 0;

  /** @param options What the session needs from its client. */
  constructor(options: ModernSessionOptions) {
    this.#options = options;
    this.#tools = new ToolHeaderCache(
      options.serverId,
      (params, signal, fetch) => this.request("tools/list", params, { signal, fetch }),
    );
  }

  /** The server's id. */
  get serverId(): string {
    return this.#options.serverId;
  }

  /** The chain of this server. */
  get chain(): Chain {
    return this.#options.chain;
  }

  /** The protocol version in use. */
  get version(): ModernProtocolVersion {
    return this.#version;
  }

  /** The most `inputRequests` entries answered in one round (the policy's `maxInputRequests`). */
  get maxInputRequests(): number {
    return this.#options.maxInputRequests;
  }

  /** The tools' header rules, learned from `tools/list`. */
  get tools(): ToolHeaderCache {
    return this.#tools;
  }

  /** Stops the work the session's calls share (a listing of the tools in progress). */
  close(): void {
    this.#tools.close(new ClientError("cancelled", `Server "${this.serverId}": the session is closed`));
  }

  /**
   * Sends one request and returns its result object. Re-issues once (with a new id) when the
   * response stream breaks; retries once with a supported version on `-32022`; refreshes the
   * tool list and retries once on a `tools/call`'s `-32020`, whether or not `Mcp-Param-*`
   * headers were sent (a tool added or changed since the list was read may want them).
   *
   * @param method The method.
   * @param params The params without `_meta`'s reserved keys; never mutated.
   * @param options The flow's signal and a progress callback.
   * @returns The result object, as the server sent it (decoded JSON).
   * @throws {ClientError} `"server"`, `"transport"`, `"protocol"` (also for a result asking for
   *   input, `input_required`, to a method that may not: any but `tools/call`, `resources/read`
   *   and `prompts/get`), `"timeout"` or `"cancelled"`.
   */
  async request(method: string, params: JsonObject, options: ModernRequestOptions): Promise<JsonObject> {
    const retried = new Set<Retry>();
    for (;;) {
      // Without a promise once the tools are known: only the first call waits for the list.
      const paramHeaders = method !== "tools/call" ? [] : this.#tools.knownParamHeaders(params) ??
        await this.#tools.paramHeadersFor(params, options.signal, options.fetch);
      const outcome = await this.#leg(this.#message(method, params, paramHeaders, options), options);
      if (outcome.kind === "result") {
        if (outcome.result.resultType === "input_required" && !MRTR_METHODS.has(method)) {
          // Else the method's decoder would report the fields an input_required result lacks.
          throw new ClientError(
            "protocol",
            `Server "${this.serverId}" answered ${method} with input_required, which only tools/call, resources/read and prompts/get may do`,
            { serverId: this.serverId },
          );
        }
        return outcome.result;
      }
      const retry = retryFor(outcome, method === "tools/call");
      if (retry === undefined || retried.has(retry)) throw legError(this.serverId, method, outcome);
      retried.add(retry);
      if (retry === "stream") options.onResent?.();
      if (retry === "version" && outcome.kind === "error") {
        this.#version = this.#pickVersion(outcome.error.data, method);
      }
      if (retry === "tools") {
        await this.#tools.refresh(options.signal, options.fetch);
        if (options.retriesHeaders?.() === false) throw legError(this.serverId, method, outcome);
      }
    }
  }

  /** Builds one leg's message: a fresh id, `_meta` (and a progress token), and the MCP headers. */
  #message(
    method: string,
    params: JsonObject,
    paramHeaders: ReadonlyArray<readonly [string, string]>,
    options: ModernRequestOptions,
  ): OutgoingMessage {
    const { chain, tasks, clientInfo } = this.#options;
    const id = this.#ids();
    const progressToken = options.onProgress === undefined ? undefined : `sluice-${++this.#progress}`;
    // Whoever takes the request's notifications (the front) chooses the log level.
    const logLevel = options.onNotification === undefined ? this.#options.logLevel : options.logLevel;
    const meta: RequestMeta = {
      protocolVersion: this.#version,
      clientCapabilities: options.capabilities ?? chain.capabilities(this.#version, { tasks }),
      clientInfo,
      ...(logLevel === undefined ? {} : { logLevel }),
    };
    const withToken = progressToken === undefined ? params : withProgressToken(params, progressToken);
    const headers = mcpRequestHeaders({
      protocolVersion: this.#version,
      method,
      name: mcpNameOf(method, params),
      params: paramHeaders,
    });
    const body = { jsonrpc: "2.0" as const, id, method, params: withRequestMeta(withToken, meta) };
    return { id, body, headers, progressToken };
  }

  /** Sends one leg under the call's signal and the leg's deadline, routing what arrives before the response. */
  async #leg(message: OutgoingMessage, options: ModernRequestOptions): Promise<LegOutcome> {
    const { transport, timers, callTimeoutMs, notify, limits } = this.#options;
    const { id, body, headers, progressToken } = message;
    const fetch = options.fetch ?? this.#options.fetch;
    const leg = openLeg(options.signal, { ms: callTimeoutMs, which: "leg", timers });
    const onMessage = (message: JsonRpcMessage) => {
      // Modern servers send no requests; a stray one has no channel to be answered on.
      if (!isNotification(message)) return;
      const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
      if (
        message.method === "notifications/progress" && progressToken !== undefined && token === progressToken
      ) {
        if (options.onProgress !== undefined) {
          deliverProgress(this.serverId, options.onProgress, message.params);
        }
      } else {
        // The front relays them to its caller in a microtask, as progress is delivered, so the caller gets
        // both in the server's order; the client's queue hears them too.
        const relay = options.onNotification;
        if (relay !== undefined) queueMicrotask(() => relay(message));
        notify(message);
      }
    };
    try {
      const sent = await fetchWithRedirects({
        transport,
        fetch,
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: leg.signal,
      });
      if (sent.kind === "aborted") return { kind: "aborted", reason: leg.signal.reason };
      if (sent.kind !== "fetched") return sent;
      const outcome = await readResponse(sent.response, {
        requestId: id,
        onMessage,
        signal: leg.signal,
        ...limits,
      });
      if (outcome.kind === "aborted") return { kind: "aborted", reason: leg.signal.reason };
      if (outcome.kind !== "response") return outcome;
      const { message: response } = outcome;
      return "result" in response
        ? { kind: "result", result: response.result }
        : { kind: "error", error: response.error };
    } finally {
      leg.dispose();
    }
  }

  #pickVersion(data: unknown, method: string): ModernProtocolVersion {
    const decoded = decodeUnsupportedVersionData(data);
    const supported = decoded.ok ? decoded.value.supported : [];
    const pick = MODERN_VERSIONS.find((version) => supported.includes(version));
    if (pick !== undefined) return pick;
    const serverId = this.#options.serverId;
    throw new ClientError(
      "protocol",
      `Server "${serverId}" refused ${method}: it supports ${
        supported.map((v) => quoteVersion(v)).join(", ") || "no version it named"
      }, and this client speaks ${MODERN_VERSIONS.map(quoteVersion).join(", ")} in the modern era`,
      { code: -32022, data, serverId },
    );
  }
}

/** One leg's message, as sent. */
interface OutgoingMessage {
  readonly id: number;
  readonly body: JsonRpcMessage;
  readonly headers: Readonly<Record<string, string>>;
  /** The progress token in `_meta`, when the caller wants progress. */
  readonly progressToken: string | undefined;
}

/** A retry a request makes at most once. */
type Retry = "stream" | "version" | "tools";

/**
 * The retry a leg's outcome calls for, if any (see {@linkcode ModernSession.request}).
 */
function retryFor(
  outcome: Exclude<LegOutcome, { kind: "result" }>,
  toolCall: boolean,
): Retry | undefined {
  if (outcome.kind === "stream_broken") return "stream";
  if (outcome.kind !== "error") return undefined;
  if (outcome.error.code === -32022) return "version";
  if (outcome.error.code === -32020 && toolCall) return "tools";
  return undefined;
}

function quoteVersion(version: string): string {
  return JSON.stringify(version.slice(0, 32));
}

/**
 * `{ ...params, _meta: { ...params._meta, progressToken } }`, built by copies: V8 builds an object slowly
 * when keys follow a spread.
 */
function withProgressToken(params: JsonObject, progressToken: string): JsonObject {
  const meta = copyOwn((params._meta ?? {}) as object);
  meta.progressToken = progressToken;
  const out = copyOwn(params);
  out._meta = meta;
  return out as JsonObject;
}

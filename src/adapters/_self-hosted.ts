/**
 * The gateway of the self-hosted entries (`@sluice/mcp/node`, `/deno`, `/bun`): the
 * legacy-capable client, and the playground at `GET /` unless turned off. Kept out of
 * `gateway.ts` so the Workers bundle carries neither.
 *
 * @module
 */
import { createClient } from "../client/legacy/legacy-client.ts";
import { playgroundApp } from "../playground/playground.ts";
import { buildGateway, type Gateway, type GatewayOptions } from "./gateway.ts";

/** What a self-hosted entry tells {@linkcode selfHostedGateway} about its runtime. */
export interface SelfHostedRuntime {
  /** Reads an environment variable (for the state key). */
  readonly environment: (name: string) => string | undefined;
  /**
   * Whether stdout is a terminal: decision events are then written for a person (`"text"`),
   * else as JSON lines, unless `decisions` says otherwise.
   */
  readonly terminal: boolean;
  /** Where those lines go. @default `console.log` */
  readonly writeLine?: (line: string) => void;
  /** The address a request came from, from its bindings as this runtime gives them. */
  readonly peerAddress: (request: Request, env: unknown) => string | undefined;
}

/**
 * Builds a self-hosted gateway.
 *
 * @param options The gateway's options (`playground` defaults to `true` here).
 * @param runtime How this runtime reads the environment, writes decision lines, and tells where
 *   a request came from.
 * @returns The gateway.
 * @throws {TypeError} When `playground` is not a boolean, or as {@linkcode buildGateway} does.
 */
export function selfHostedGateway(options: GatewayOptions, runtime: SelfHostedRuntime): Gateway {
  const { environment, terminal, writeLine, peerAddress } = runtime;
  const playground: unknown = options.playground ?? true;
  if (typeof playground !== "boolean") {
    throw new TypeError(`sluice gateway: "playground" must be a boolean, received "${typeof playground}"`);
  }
  const decisions = options.decisions ?? (terminal ? "text" : "json");
  const gateway = buildGateway(
    { ...options, decisions },
    { createClient, environment, peerAddress, ...(writeLine === undefined ? {} : { writeLine }) },
  );
  if (playground) gateway.app.route("/", playgroundApp());
  // A gateway that serves a page nobody asked for says so once (sluice serve's banner does itself),
  // on stderr: stdout carries the decision events, as JSON lines a log shipper reads.
  if (options.playground === undefined) {
    console.error(
      "sluice: this gateway serves the playground at GET / (pass playground: false to turn it off)",
    );
  }
  return gateway;
}

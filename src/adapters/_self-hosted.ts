/**
 * The gateway of the self-hosted entries (`@sluice/mcp/node`, `/deno`, `/bun`): the
 * legacy-capable client, and the playground at `GET /` unless turned off. Kept out of
 * `gateway.ts` so the Workers bundle carries neither.
 *
 * @module
 */
import { createClient } from "../client/legacy/legacy-client.ts";
import { playgroundApp } from "../playground/playground.ts";
import { buildGateway, type Gateway, type GatewayOptions, type GatewayParts } from "./gateway.ts";

/** What a self-hosted entry tells {@linkcode selfHostedGateway} about its runtime. */
export interface SelfHostedRuntime extends Pick<GatewayParts, "environment" | "writeLine" | "peerAddress"> {
  /** Whether stdout is a terminal: `decisions` then defaults to `"text"`, else `"json"`. */
  readonly terminal: boolean;
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
  const { terminal, ...parts } = runtime;
  const playground: unknown = options.playground ?? true;
  if (typeof playground !== "boolean") {
    throw new TypeError(`sluice gateway: "playground" must be a boolean, received "${typeof playground}"`);
  }
  const decisions = options.decisions ?? (terminal ? "text" : "json");
  const gateway = buildGateway({ ...options, decisions }, { ...parts, createClient });
  if (playground) gateway.app.route("/", playgroundApp());
  // A page nobody asked for is announced, on stderr: stdout carries the decision lines.
  if (options.playground === undefined) {
    console.error(
      "sluice: this gateway serves the playground at GET / (pass playground: false to turn it off)",
    );
  }
  return gateway;
}

// Shared fixtures of the request encoder tests: modern metadata, its wire form, and a check of
// a request against the official schema of a version.
import { encodeRequest } from "../../src/protocol/jsonrpc.ts";
import type { RequestMeta } from "../../src/protocol/meta.ts";
import type { OutgoingRequest } from "../../src/protocol/requests.ts";
import type { ProtocolVersion } from "../../src/protocol/versions.ts";
import { np } from "../_support/exact.ts";
import { schemaErrors } from "./_official-schema.ts";

export const META: RequestMeta = {
  protocolVersion: "2026-07-28",
  clientCapabilities: {
    elicitation: { form: {}, url: {} },
    extensions: np({ "io.modelcontextprotocol/tasks": {} }),
  },
  clientInfo: { name: "agent", version: "1.0.0" },
  logLevel: "info",
};
export const WIRE_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: { form: {}, url: {} },
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
  "io.modelcontextprotocol/clientInfo": { name: "agent", version: "1.0.0" },
  "io.modelcontextprotocol/logLevel": "info",
};
export const LEGACY = ["2025-06-18", "2025-11-25"] as const;

/** Wraps a request and validates it against a definition of the official schema of `version`. */
export function check(version: ProtocolVersion, definition: string, request: OutgoingRequest): string[] {
  const message = encodeRequest(1, request.method, request.params);
  const envelope = version === "2025-06-18" ? schemaErrors(version, "JSONRPCRequest", message) : [];
  return [...envelope, ...schemaErrors(version, definition, message)];
}

/**
 * The building blocks of the modern peer's handlers (`_modern-tools.ts`): the embedded input
 * requests it sends, the results it returns, and the codec that seals its `requestState`.
 *
 * @module
 */
import {
  createRequestStateCodec,
  fromJsonSchema,
  type InputRequest,
  inputRequired,
  type JsonSchemaType,
  type RequestStateCodec,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";

/** What the peer keeps in `requestState` between rounds. */
export interface PeerState {
  readonly step: string;
  readonly answers?: readonly string[];
}

/** A tool result of one text block. */
export type Text = { content: [{ type: "text"; text: string }] };

/** A tool result carrying `value` as its text. */
export function text(value: string): Text {
  return { content: [{ type: "text", text: value }] };
}

/** A tool result carrying the JSON of `value` as its text. */
export function json(value: unknown): Text {
  return text(JSON.stringify(value));
}

/** A tool input schema from plain JSON Schema (kept verbatim in `tools/list`, `x-mcp-header` included). */
export function schema(s: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>> {
  return fromJsonSchema<Record<string, unknown>>(s as JsonSchemaType);
}

/** A form of one required string field, `value`. */
export const ONE_FIELD = {
  type: "object",
  properties: { value: { type: "string", title: "Value" } },
  required: ["value"],
} as const;

/** An embedded form-mode `elicitation/create`. */
export function elicit(message: string, requestedSchema: object): InputRequest {
  return inputRequired.elicit(
    { mode: "form", message, requestedSchema } as Parameters<typeof inputRequired.elicit>[0],
  );
}

/** An embedded `sampling/createMessage` (`maxTokens` 999999 unless given; `tools` when asked). */
export function sampling(args: { maxTokens?: unknown; prompt?: unknown }, withTools: boolean): InputRequest {
  const prompt = typeof args.prompt === "string" ? args.prompt : "Say hello";
  return inputRequired.createMessage({
    messages: [{ role: "user", content: { type: "text", text: prompt } }],
    maxTokens: typeof args.maxTokens === "number" ? args.maxTokens : 999999,
    ...withTools
      ? {
        tools: [{
          name: "get_weather",
          inputSchema: { type: "object", properties: { city: { type: "string" } } },
        }],
        toolChoice: { mode: "auto" },
      }
      : {},
  });
}

/** The text of a sampling result (its text blocks, joined). */
export function samplingText(result: { content: unknown }): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  return blocks.map((b) => (b as { type?: string; text?: string }).type === "text" ? b.text : "").join("");
}

/** The codec sealing every `requestState` of one peer process (a fresh random key per process). */
export function createPeerCodec(): RequestStateCodec<PeerState> {
  const key = crypto.getRandomValues(new Uint8Array(32));
  return createRequestStateCodec<PeerState>({ key, ttlSeconds: 600, bind: (ctx) => ctx.mcpReq.method });
}

// The decision event a legacy client gives for a server request its policy refused before the
// handler ran, as the supervisor, client and gateway tests expect it.

/**
 * The input decision event of a legacy server's request refused before its job started.
 *
 * @param refusal The error the server was answered with.
 * @param request The event's fields; no `mode` key when `mode` is `undefined`.
 * @returns The event: outcome `"policy"`, no changes, `durationMs: 0`.
 */
export function refusedEvent(
  refusal: { readonly code: number; readonly message: string },
  request: {
    time: string;
    client: string;
    server: string;
    caller?: string;
    method: string;
    mode?: string | undefined;
  },
): Record<string, unknown> {
  const { mode, ...fields } = request;
  const event = { type: "input", ...fields, era: "legacy", ...(mode === undefined ? {} : { mode }) };
  return { ...event, outcome: "policy", changes: [], refusal, durationMs: 0 };
}

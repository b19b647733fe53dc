// A call's progress carrying hostile text, heard by an onProgress that throws: what the server
// sends, what the listener must hear of it, and the call made with console.error recorded.
import type { JsonObject } from "../../src/protocol/jsonrpc.ts";
import { recordingConsoleErrors } from "./console-errors.ts";
import { type SeenRequest, sse } from "./scripted-server.ts";

/** A progress `message` with a terminal escape, a bidi override and a newline. */
export const HOSTILE_PROGRESS = "50%\u001b[2J\u202Eevil\nFAKE LOG LINE";

/** {@linkcode HOSTILE_PROGRESS} as `sanitizeText` cleans it. */
export const CLEAN_PROGRESS = "50%[2JevilFAKE LOG LINE";

/**
 * A scripted server's answer to a call: on its stream, a progress for the call's token carrying
 * {@linkcode HOSTILE_PROGRESS}, then the result `{ content: [] }`.
 *
 * @param request The call as the server saw it.
 * @returns The SSE response.
 */
export function progressThenResult(request: SeenRequest): Response {
  const token = (request.body.params?._meta as { progressToken?: string }).progressToken;
  return sse([
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: token, progress: 1, message: HOSTILE_PROGRESS },
    },
    { jsonrpc: "2.0", id: request.body.id, result: { content: [] } },
  ]);
}

/**
 * Makes a call whose `onProgress` records what it hears and throws `"ui gone"`, with
 * `console.error` recorded.
 *
 * @param call Makes the call with the given `onProgress`.
 * @returns What the call resolved to, the params `onProgress` heard, and what was logged.
 */
export async function callWithThrowingProgress(
  call: (onProgress: (params: JsonObject) => void) => Promise<unknown>,
): Promise<{ readonly value: unknown; readonly heard: JsonObject[]; readonly logged: unknown[][] }> {
  const heard: JsonObject[] = [];
  const { value, logged } = await recordingConsoleErrors(() =>
    call((params) => {
      heard.push(params);
      throw new Error("ui gone");
    })
  );
  return { value, heard, logged };
}

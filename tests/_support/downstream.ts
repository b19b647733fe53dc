// What a modern caller sends with a tools/call POST to a gateway or the front: the headers the
// 2026-07-28 HTTP transport asks for. Runs on every runtime.

/**
 * The headers of a modern `tools/call` POST.
 *
 * @param name The tool's name (`Mcp-Name`).
 * @param accept What the caller accepts back (add `text/event-stream` for a streamed answer).
 * @returns The headers.
 */
export function toolCallHeaders(name: string, accept = "application/json"): Record<string, string> {
  return {
    "content-type": "application/json",
    accept,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": name,
  };
}

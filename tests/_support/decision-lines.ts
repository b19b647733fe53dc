// Decision event lines as a test compares them: what a gateway wrote (JSON or text lines) with
// the parts that change from run to run (the time, the durations) replaced by fixed placeholders.
// Also refused calls whose lines are 300 kB, to fill a reader's pipe. Runs on every runtime.
import { Buffer } from "node:buffer";
import { toolCallHeaders } from "./downstream.ts";
import { within } from "./eventually.ts";

/**
 * The lines of `text`, each JSON line parsed with its `time` (an ISO 8601 date) and its
 * `durationMs` and `handlerMs` (whole milliseconds) replaced by fixed placeholders, and each text
 * line's trailing duration (`12 ms`) by `<ms> ms`; a value of the wrong shape is left as it is,
 * so the comparison shows it.
 *
 * @param text The lines, joined by `\n`.
 * @returns One entry a line: the parsed event, or the text line.
 */
export function placeholders(text: string): unknown[] {
  return text.split("\n").map((line) => {
    if (!line.startsWith("{")) return line.replace(/ \d+ ms$/, " <ms> ms");
    const event = JSON.parse(line) as Record<string, unknown>;
    if (typeof event.time === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(event.time)) {
      event.time = "<time>";
    }
    for (const key of ["durationMs", "handlerMs"]) {
      if (Number.isInteger(event[key]) && (event[key] as number) >= 0) event[key] = "<ms>";
    }
    return event;
  });
}

/** The tool name of a refused call marked `mark`: 300 kB, so its decision line fills a pipe. */
export const bigName = (mark: string): string => mark.padEnd(300_000, "x");

/**
 * Calls the gateway's `modern` server with a tool name of 300 kB that its `Mcp-Name` header does
 * not match: the gateway refuses it (400) and writes a decision line that holds the whole name.
 *
 * @returns The HTTP status.
 */
export async function refusedBig(url: string, mark: string): Promise<number> {
  const response = await fetch(`${url}/mcp/modern`, {
    method: "POST",
    headers: toolCallHeaders("short"),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: bigName(mark),
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
      },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

/** `count` marks for {@linkcode refusedBig}, in the order their names sort: `m00`, `m01`, … */
export function marksOf(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `m${String(i).padStart(2, "0")}`);
}

/**
 * Sends {@linkcode refusedBig} calls one at a time, bounded at 20 s: a gateway that waits for
 * its stdout reader answers no call once the pipe is full, and the bound names that.
 *
 * @returns The HTTP statuses, in order.
 */
export async function refusedInTurn(url: string, marks: readonly string[]): Promise<number[]> {
  const callAll = async () => {
    const answered = [];
    for (const mark of marks) answered.push(await refusedBig(url, mark));
    return answered;
  };
  return await within(`the ${marks.length} calls' answers`, callAll(), 20_000);
}

/** The names in the JSON decision lines read, sorted, each line whole, else what was cut. */
export function lineNamesOf(chunks: readonly Uint8Array[]): string[] {
  return Buffer.concat(chunks).toString("utf8").split("\n").filter((line) => line !== "").map((line) => {
    try {
      return (JSON.parse(line) as { name: string }).name;
    } catch {
      return `a line cut short at ${line.length} characters`;
    }
  }).sort();
}

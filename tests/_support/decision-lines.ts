// Decision event lines as a test compares them: what a gateway wrote (JSON or text lines) with
// the parts that change from run to run (the time, the durations) replaced by fixed placeholders.
// Runs on every runtime.

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

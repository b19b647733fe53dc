/**
 * Finds where a JSON text stops being JSON, in the same words on every runtime (`JSON.parse`'s
 * messages differ between engines, and Bun's has no position). It runs only after `JSON.parse`
 * failed or on a small file, so it is written for clarity, not speed.
 *
 * @module
 */

/** Where a JSON text breaks, and what was found instead of what. */
export interface JsonSyntaxError {
  /** The offset of the offending character, in UTF-16 code units (the text's length at its end). */
  readonly offset: number;
  /** What was wrong, e.g. `unexpected "}", expected a property name in double quotes`. */
  readonly what: string;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9A-Fa-f]{4})/y;
const KEY = "a property name in double quotes";

/**
 * Finds the first syntax error of a JSON text (RFC 8259), and with `duplicates` a property name
 * given twice in one object, which `JSON.parse` takes silently, keeping the last.
 *
 * @param text The text.
 * @param options `duplicates: true` also reports a repeated property name.
 * @returns The error, or `undefined` when the text is JSON (without repeated names).
 */
export function findJsonSyntaxError(
  text: string,
  options: { readonly duplicates?: boolean } = {},
): JsonSyntaxError | undefined {
  // The open containers, innermost last: no recursion, so deep nesting cannot overflow the stack.
  const open: ("{" | "[")[] = [];
  const names: Set<string>[] = [];
  let at = 0;
  let expectValue = true;
  let afterComma = false;
  const skipSpace = () => {
    while (at < text.length && " \t\n\r".includes(text[at] ?? "")) at++;
  };
  const unexpected = (expected: string) => ({
    offset: at,
    what: describeUnexpected(text, at, expected, afterComma),
  });
  const readKey = (expected: string): JsonSyntaxError | undefined => {
    if (text[at] !== '"') return unexpected(expected);
    const broken = readString(text, at);
    if (typeof broken !== "number") return broken;
    if (options.duplicates === true) {
      const name = JSON.parse(text.slice(at, broken)) as string;
      const seen = names.at(-1);
      if (seen?.has(name)) {
        return {
          offset: at,
          what: `property name ${JSON.stringify(name)} given twice in one object, expected each once ` +
            "(JSON.parse keeps only the last)",
        };
      }
      seen?.add(name);
    }
    at = broken;
    skipSpace();
    if (text[at] !== ":") return unexpected('":" after the property name');
    at++;
    return undefined;
  };
  for (;;) {
    skipSpace();
    if (expectValue) {
      const char = text[at];
      if (char === "{" || char === "[") {
        at++;
        skipSpace();
        const close = char === "{" ? "}" : "]";
        if (text[at] === close) {
          at++;
          expectValue = false;
          continue;
        }
        if (char === "{") {
          names.push(new Set());
          const broken = readKey(`${KEY} or "}"`);
          if (broken !== undefined) return broken;
        }
        open.push(char);
        afterComma = false;
        continue;
      }
      const end = char === '"' ? readString(text, at) : readScalar(text, at);
      if (end === undefined) return unexpected("a value");
      if (typeof end !== "number") return end;
      at = end;
      expectValue = false;
      afterComma = false;
      continue;
    }
    const inner = open.at(-1);
    if (inner === undefined) {
      return at < text.length ? unexpected("the end of the file after the value") : undefined;
    }
    const close = inner === "{" ? "}" : "]";
    if (text[at] === close) {
      at++;
      if (open.pop() === "{") names.pop();
      continue;
    }
    if (text[at] !== ",") return unexpected(`"," or "${close}"`);
    at++;
    afterComma = true;
    skipSpace();
    if (inner === "{") {
      const broken = readKey(KEY);
      if (broken !== undefined) return broken;
      afterComma = false;
    }
    expectValue = true;
  }
}

/** The offset after a string starting at `start`, or where and why it breaks. */
function readString(text: string, start: number): number | JsonSyntaxError {
  let at = start + 1;
  while (at < text.length) {
    const char = text[at] ?? "";
    if (char === '"') return at + 1;
    if (char === "\\") {
      ESCAPE.lastIndex = at;
      if (!ESCAPE.test(text)) {
        return {
          offset: at,
          what: `invalid escape ${
            JSON.stringify(text.slice(at, at + 2))
          } in a string, expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`,
        };
      }
      at = ESCAPE.lastIndex;
      continue;
    }
    if (char === "\n" || char === "\r") {
      return { offset: at, what: "unexpected line break in a string, expected a closing double quote" };
    }
    if (char < " ") {
      const code = char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      return { offset: at, what: `unexpected control character U+${code} in a string, expected it escaped` };
    }
    at++;
  }
  return { offset: start, what: "unterminated string, expected a closing double quote" };
}

/** The offset after a number, `true`, `false` or `null` at `start`, or `undefined` for none. */
function readScalar(text: string, start: number): number | undefined {
  for (const word of ["true", "false", "null"]) {
    if (text.startsWith(word, start)) return start + word.length;
  }
  NUMBER.lastIndex = start;
  return NUMBER.test(text) ? NUMBER.lastIndex : undefined;
}

/** `unexpected "not", expected a value`, with a hint for what JSON is known not to allow. */
function describeUnexpected(text: string, at: number, expected: string, afterComma: boolean): string {
  if (at >= text.length) return `unexpected end of file, expected ${expected}`;
  const char = text[at];
  if (char === '"') {
    const end = readString(text, at);
    const whole = text.slice(at, typeof end === "number" ? end : at + 1);
    const token = whole.length > 40 ? `${whole.slice(0, 36)}..."` : whole;
    return `unexpected string ${token}, expected ${expected}`;
  }
  WORD.lastIndex = at;
  const found = WORD.test(text) ? text.slice(at, WORD.lastIndex) : char ?? "";
  const hint = afterComma && (char === "}" || char === "]")
    ? " (JSON allows no comma after the last item)"
    : char === "'"
    ? " (JSON strings and names take double quotes)"
    : char === "/"
    ? " (JSON allows no comments)"
    : "";
  return `unexpected ${JSON.stringify(found)}, expected ${expected}${hint}`;
}

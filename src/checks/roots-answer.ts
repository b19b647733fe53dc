/**
 * Roots check on the handler's answer: only `file://` URIs on the local host reach the server,
 * with `.` and `..` resolved and percent-encoding normalised; anything else is dropped. A
 * malformed answer, or one that throws when read, is refused with `-32603`.
 *
 * @module
 */
import { type Refusal, RefusalCode, refuse } from "./verdict.ts";
import { describeKind, thrownName } from "../_internal/quote.ts";

/** A root as sent to the server. */
export interface SentRoot {
  /** A normalised `file:///…` URI. */
  readonly uri: string;
  /** A display name, when the handler gave one. */
  readonly name?: string;
}

/**
 * A root the check dropped or rewrote, named by its place in the handler's answer: the URI given
 * and the URI sent, `null` when it is dropped (not a local file URI, or a repeat of a folder sent
 * before, however spelt).
 */
export interface RootChange {
  /** `roots[<index>].uri`. */
  readonly field: string;
  /** The handler's URI. */
  readonly from: string;
  /** The normalised URI sent, or `null` when the root is not sent. */
  readonly to: string | null;
}

/** What {@linkcode checkRootsAnswer} returns: the roots to send and what it changed, or a refusal. */
export type RootsVerdict =
  | {
    readonly ok: true;
    readonly value: { readonly roots: readonly SentRoot[] };
    readonly changes: readonly RootChange[];
  }
  | { readonly ok: false; readonly refusal: Refusal };

/**
 * Validates the handler's `{ roots }` and keeps only local file roots.
 *
 * @param answer The handler's answer, untrusted; never modified.
 * @returns The roots to send with the roots it dropped or rewrote, or a `-32603` refusal.
 * @example
 * ```ts
 * import { checkRootsAnswer } from "./roots-answer.ts";
 * const verdict = checkRootsAnswer({
 *   roots: [{ uri: "file:///srv/project/../project/./src" }, { uri: "https://example.com/" }],
 * });
 * if (verdict.ok) console.log(verdict.value.roots); // [{ uri: "file:///srv/project/src" }]
 * if (verdict.ok) console.log(verdict.changes.length); // 2 (the file root rewritten, the https one dropped)
 * ```
 */
export function checkRootsAnswer(answer: unknown): RootsVerdict {
  try {
    return checkRoots(answer);
  } catch (error) {
    return refused(`expected plain JSON, reading it threw ${thrownName(error)}`);
  }
}

/** {@linkcode checkRootsAnswer} without its guard: reading `answer` may throw (a getter, a proxy). */
function checkRoots(answer: unknown): RootsVerdict {
  const roots = typeof answer === "object" && answer !== null
    ? (answer as { roots?: unknown }).roots
    : undefined;
  if (!Array.isArray(roots)) {
    const received = typeof answer === "object" && answer !== null && !Array.isArray(answer)
      ? `"roots" as ${describeKind(roots)}`
      : describeKind(answer);
    return refused(`expected an object { roots: [...] }, received ${received}`);
  }
  const kept: SentRoot[] = [];
  const changes: RootChange[] = [];
  const seen = new Set<string>();
  for (const [index, root] of roots.entries()) {
    const uri = typeof root === "object" && root !== null ? (root as { uri?: unknown }).uri : undefined;
    const name = typeof root === "object" && root !== null ? (root as { name?: unknown }).name : undefined;
    if (typeof uri !== "string" || (name !== undefined && typeof name !== "string")) {
      const received = typeof root !== "object" || root === null || Array.isArray(root)
        ? describeKind(root)
        : typeof uri !== "string"
        ? `"uri" as ${describeKind(uri)}`
        : `"name" as ${describeKind(name)}`;
      return refused(
        `expected "roots[${index}]" to be an object { uri: string, name?: string }, received ${received}`,
      );
    }
    const normalised = normaliseFileUri(uri);
    const folder = normalised === undefined ? undefined : folderOf(normalised);
    const sent = folder !== undefined && !seen.has(folder) ? normalised! : null;
    if (sent !== uri) changes.push({ field: `roots[${index}].uri`, from: uri, to: sent });
    if (sent === null) continue;
    seen.add(folder!);
    kept.push(name === undefined ? { uri: sent } : { uri: sent, name });
  }
  return { ok: true, value: { roots: kept }, changes };
}

/**
 * The folder a normalised root names, to tell repeats: `file:///srv/b/` and `file:///srv//b` are
 * `file:///srv/b` (an empty segment names no folder of its own).
 */
function folderOf(uri: string): string {
  const path = uri.slice("file://".length).replace(/\/{2,}/g, "/");
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

function refused(reason: string): { readonly ok: false; readonly refusal: Refusal } {
  return refuse(RefusalCode.InternalError, `Roots answer refused: ${reason}`);
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * Whether a `file:` URI's path, its dot segments resolved (RFC 3986, 5.2.4), starts with `//`:
 * another host's (`file:////server/share` is Windows' `\\server\share`). Read from the text, as
 * the runtimes' URL parsers disagree on these paths.
 */
function isNetworkPath(uri: string): boolean {
  const segments = uri.replace(/^file:\/\/(localhost)?/i, "").split("/").slice(1);
  const kept: string[] = [];
  segments.forEach((segment, index) => {
    const dots = segment.replace(/%2e/gi, ".");
    if (dots === "..") kept.pop();
    if (dots !== "." && dots !== "..") kept.push(segment);
    // A dot segment at the end leaves the path ending in `/`: `//.` is `//`.
    else if (index === segments.length - 1) kept.push("");
  });
  return kept.length > 1 && kept[0] === "";
}

/**
 * Normalises a local `file:` URI, or returns `undefined` when it must not be sent: another
 * scheme, a remote host (or a path that starts with `//`), a query or fragment, whitespace,
 * controls, backslashes, an encoded `/`, `\` or NUL that could hide a path change, or a stray `%`.
 *
 * @param uri The handler's URI.
 * @returns `file://` followed by the resolved path, or `undefined`.
 */
export function normaliseFileUri(uri: string): string | undefined {
  if (/[\s\p{Cc}\p{Cf}\\]/u.test(uri)) return undefined;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== "file:" || url.host !== "" || url.search !== "" || url.hash !== "") return undefined;
  if (!/^file:\/\/(localhost)?\//i.test(uri)) return undefined;
  if (isNetworkPath(uri) || url.pathname.startsWith("//")) return undefined;
  if (/%(2f|5c|00)|%(?![0-9a-f]{2})/i.test(url.pathname)) return undefined;
  const path = url.pathname.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
  return `file://${path}`;
}

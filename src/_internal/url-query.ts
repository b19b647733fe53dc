/**
 * A URL as logs and terminals show it: without its query's values and its userinfo password or
 * lone user name, since these often carry a token and logs land in CI and log shippers.
 *
 * @module
 */
import { quote } from "./quote.ts";

/**
 * A URL's userinfo as WHATWG URL reads it: the scheme and `//`, then everything up to the last `@`
 * before the authority ends (`/`, `?` or `#`). Its user runs to its first `:` and may hold `@`
 * (`user@server:pw@host`, Azure's database users); one with no password is in practice a token
 * (`https://ghp_…@github.com`, GitLab's, basic auth's).
 */
const USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]+)@/s;

/**
 * A password some parsers take whole, holding `/`, `?` or `#` (libpq's `postgresql://app:pa/ss@db`):
 * a user, `:`, then everything up to the last `@` (the second group). A user does not start with `[`,
 * which opens an IPv6 host (`[::1]`). At worst a path's `@` hides more than a password.
 */
const LOOSE_PASSWORD = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/(?:…@)?[^/?#:@[]*:)(.*)@/s;
/**
 * Schemes whose every client reads a URL as WHATWG URL does: the authority ends at the first `/`,
 * so one to five digits there are a port, and an `@` after them is the path's
 * (`http://localhost:4873/@scope/pkg`). Other schemes' parsers (libpq's) may take them as a password.
 */
const WEB_SCHEME = /^(?:https?|wss?):/i;
/** A port, then the path, query or fragment, or the end. */
const PORT = /^\d{1,5}(?:[/?#]|$)/;

/**
 * Writes a URL with its userinfo password, a user name with no password, each query value and each
 * query part with no `=` replaced by `…`, each query part once, and no fragment.
 *
 * @param url The URL as written.
 * @returns The URL without its secrets.
 * @example
 * ```ts
 * import { withoutUrlSecrets } from "./url-query.ts";
 * console.log(withoutUrlSecrets("postgresql://app:pw@db/app?sslmode=require")); // postgresql://app:…@db/app?sslmode=…
 * ```
 */
export function withoutUrlSecrets(url: string): string {
  const shown = url
    .replace(
      USERINFO,
      (_, scheme: string, info: string) => `${scheme}${info.slice(0, info.indexOf(":") + 1)}…@`,
    )
    .replace(
      LOOSE_PASSWORD,
      // A password hidden already (`user:…@host/@me`) is not hidden again, with the path after it.
      (whole, head: string, rest: string) =>
        rest.startsWith("…@") || (WEB_SCHEME.test(head) && PORT.test(rest)) ? whole : `${head}…@`,
    );
  const cut = shown.search(/[?#]/);
  if (cut < 0) return shown;
  // A part with no `=` is a name alone, and such a name is as often the token itself (`?SECRET`).
  const query = shown[cut] === "?" ? shown.slice(cut + 1).replace(/#.*/s, "") : "";
  const parts = query.split("&").filter((part) => part !== "").map((part) =>
    part.replace(/^([^=]*=)?.*/s, "$1…")
  );
  return `${shown.slice(0, cut)}${parts.length === 0 ? "" : `?${[...new Set(parts)].join("&")}`}`;
}

/** A double-quoted string in a message, as `quote()` writes one: escapes `\"`, `\\`, `\uXXXX`, `\u{X}`. */
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;
/** One of `quote()`'s escapes. */
const ESCAPE = /\\(u\{[0-9A-F]+\}|u[0-9A-F]{4}|.)/g;
/** A URL's start: its scheme, then `:`. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** A URL inside quoted text (`Resource https://…?token=… not found`): up to a space or a quote. */
const EMBEDDED_URL = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>]+/g;
/** Punctuation that ends a sentence around a URL rather than the URL: kept after it. */
const TRAILING = /[).,;:!?]*$/;

/** An embedded URL without its secrets, the punctuation after it kept. */
function withoutEmbeddedSecrets(url: string): string {
  const tail = TRAILING.exec(url)?.[0] ?? "";
  return withoutUrlSecrets(url.slice(0, url.length - tail.length)) + tail;
}

/**
 * Writes free text (a thrown error's message) with each `scheme://` URL in it, up to a space or a
 * quote, without its password and query's values, as {@linkcode withoutUrlSecrets} does.
 *
 * @param text The text.
 * @returns The text, its URLs without their passwords and query's values.
 * @example
 * ```ts
 * import { withoutEmbeddedUrlSecrets } from "./url-query.ts";
 * console.log(withoutEmbeddedUrlSecrets("down at https://u:pw@db.example/x?key=abc now")); // down at https://u:…@db.example/x?key=… now
 * ```
 */
export function withoutEmbeddedUrlSecrets(text: string): string {
  return text.replace(EMBEDDED_URL, withoutEmbeddedSecrets);
}

/**
 * Writes a message with each URL it quotes (as `quote()` writes them) without its password and
 * query's values, as {@linkcode withoutUrlSecrets} does; a quoted text that does not start with a
 * URL has each `scheme://` URL in it treated the same. For decision events sent to logs.
 *
 * @param message The message.
 * @returns The message, its quoted URLs without their passwords and query's values.
 * @example
 * ```ts
 * import { withoutQuotedUrlSecrets } from "./url-query.ts";
 * console.log(withoutQuotedUrlSecrets('URL "https://a.example/cb?session=abc" refused')); // URL "https://a.example/cb?session=…" refused
 * console.log(withoutQuotedUrlSecrets('Error: "Resource https://u:pw@a.example/r not found"')); // Error: "Resource https://u:…@a.example/r not found"
 * ```
 */
export function withoutQuotedUrlSecrets(message: string): string {
  return message.replace(QUOTED, (quoted, inner: string) => {
    const text = inner.replace(
      ESCAPE,
      (_, escaped: string) =>
        escaped.startsWith("u") && escaped.length > 1
          ? String.fromCodePoint(Number.parseInt(escaped.replace(/[u{}]/g, ""), 16))
          : escaped,
    );
    const shown = SCHEME.test(text) ? withoutUrlSecrets(text) : withoutEmbeddedUrlSecrets(text);
    return shown === text ? quoted : quote(shown, shown.length);
  });
}

/**
 * A URL as logs and terminals show it: its query's values left out, as headers are shown by name
 * only, and, where a URL may carry one, its userinfo password. A query often carries a token
 * (`?key=…`, `?session=…`), and sluice check's output and decision events land in terminals, CI
 * logs and log shippers.
 *
 * @module
 */

/**
 * Writes a URL with each query value replaced by `…`; the fragment goes too. Text that does not
 * parse as a URL keeps only what comes before its first `?` or `#`.
 *
 * @param url The URL as written.
 * @returns The URL without its query's values.
 * @example
 * ```ts
 * import { withoutQueryValues } from "./url-query.ts";
 * console.log(withoutQueryValues("https://example.com/pay?token=abc&x=1")); // https://example.com/pay?token=…&x=…
 * ```
 */
export function withoutQueryValues(url: string): string {
  const cut = url.search(/[?#]/);
  if (cut < 0) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${url.slice(0, cut)}${url[cut] === "?" ? "?…" : ""}`;
  }
  const names = [...new Set(parsed.searchParams.keys())].map((name) => `${encodeURIComponent(name)}=…`);
  return `${url.slice(0, cut)}${names.length === 0 ? "" : `?${names.join("&")}`}`;
}

/**
 * The start of a URL's authority with a password in its userinfo: the scheme, `//`, the user up to
 * the first `:`, then the password up to the last `@` before the path, query or fragment.
 */
const USERINFO_PASSWORD = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#:]*:)[^/?#]*@/;

/**
 * Writes a URL with its userinfo password and each query value replaced by `…` (the fragment goes
 * too; the user name stays): for a URL that may carry a password, such as a database URL given to
 * a stdio server as an argument.
 *
 * @param url The URL as written.
 * @returns The URL without its password and its query's values.
 * @example
 * ```ts
 * import { withoutUrlSecrets } from "./url-query.ts";
 * console.log(withoutUrlSecrets("postgresql://app:pw@db/app?sslmode=require")); // postgresql://app:…@db/app?sslmode=…
 * ```
 */
export function withoutUrlSecrets(url: string): string {
  return withoutQueryValues(url.replace(USERINFO_PASSWORD, "$1…@"));
}

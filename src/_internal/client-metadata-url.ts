/**
 * The rule of a Client ID Metadata Document's URL, which is also the client id it names: a
 * policy's `transport.auth.oauth.clientMetadataUrl` and the client's `signIn.clientMetadataUrl`.
 *
 * @module
 */

/**
 * Whether text is a Client ID Metadata Document's URL: `https:`, with a path, no fragment and no
 * user name or password.
 *
 * @param text The URL.
 * @returns `true` when it fits.
 * @example
 * ```ts
 * import { isClientMetadataUrl } from "./client-metadata-url.ts";
 * console.log(isClientMetadataUrl("https://app.example.com/oauth/client.json")); // true
 * console.log(isClientMetadataUrl("https://app.example.com")); // false
 * ```
 */
export function isClientMetadataUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return url.protocol === "https:" && url.pathname !== "/" && url.hash === "" && url.username === "" &&
    url.password === "";
}

/** What {@linkcode isClientMetadataUrl} asks, for a message. */
export const CLIENT_METADATA_URL_RULE =
  "an https URL with a path, no fragment and no credentials (it is the client id)";

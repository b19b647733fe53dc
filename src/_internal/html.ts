/**
 * Escaping text for the few HTML pages sluice serves (the gateway's sign-in pages, the command
 * line's callback page).
 *
 * @module
 */

/**
 * Escapes `&`, `<`, `>`, `"` and `'` as numeric character references: safe in element content
 * and in quoted attribute values.
 *
 * @param text The text.
 * @returns The escaped text.
 * @example
 * ```ts
 * import { escapeHtml } from "./html.ts";
 * console.log(escapeHtml(`<b title="x">`)); // &#60;b title=&#34;x&#34;&#62;
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Checks on the raw text of an elicitation URL, made before the WHATWG parser sees it: the
 * parser silently strips tabs and newlines, trims spaces and control characters, and turns `\`
 * into `/`, so what the user would be shown could differ from what a browser opens.
 *
 * @module
 */
import { codePointName } from "../_internal/quote.ts";

/**
 * Whitespace, controls, format and bidi characters, lone surrogates, other default-ignorable
 * characters and the backslash: one class, no quantifier, so a linear scan whatever the input.
 */
const UNSAFE = /[\p{White_Space}\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\\]/u;
const SPACE_OR_CONTROL = /^[\p{White_Space}\p{Cc}]$/u;

/**
 * Finds the first character a URL must not contain anywhere.
 *
 * @param text The raw URL.
 * @returns Why it is refused (`expected …, found U+0009 at index 8`), or `undefined` when clean.
 */
export function findUnsafeCharacter(text: string): string | undefined {
  const index = text.search(UNSAFE);
  if (index < 0) return undefined;
  const codePoint = text.codePointAt(index) ?? 0;
  const at = `${codePointName(codePoint)} at index ${index}`;
  if (codePoint === 0x5c) return `expected no backslashes, found one at index ${index}`;
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
    return `expected well-formed Unicode, found a lone surrogate ${at}`;
  }
  if (SPACE_OR_CONTROL.test(String.fromCodePoint(codePoint))) {
    return `expected no whitespace or control characters, found ${at}`;
  }
  return `expected no invisible or bidirectional formatting characters, found ${at}`;
}

/** An RFC 3986 scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`) followed by its colon. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*(?=:)/;
/** What follows `https://` up to the path, query or fragment. */
const HTTPS_AUTHORITY = /^https:\/\/([^/?#]*)/;

/** How the text before the authority is shaped. */
export type SchemeShape =
  | { readonly kind: "https"; readonly authority: string }
  | { readonly kind: "refused"; readonly reason: string };

/**
 * Reads the scheme and authority of a raw URL without parsing it: the scheme must be exactly
 * `https` in lower case and be followed by `//` and a non-empty authority without `@`.
 *
 * @param text The raw URL, already free of unsafe characters.
 * @returns The raw authority (`host[:port]`), or why the text is refused.
 */
export function readHttpsAuthority(text: string): SchemeShape {
  if (text.startsWith("//")) {
    return refused("expected an absolute https URL, received a protocol-relative URL");
  }
  const scheme = SCHEME.exec(text)?.[0];
  if (scheme === undefined) return refused("expected an absolute https URL, received a relative URL");
  if (scheme !== "https") {
    if (scheme.toLowerCase() === "https") {
      return refused(`expected the scheme "https" in lower case, received "${scheme}"`);
    }
    return refused(`expected the scheme "https", received "${scheme}"`);
  }
  const authority = HTTPS_AUTHORITY.exec(text)?.[1];
  if (authority === undefined || authority === "" || authority.startsWith(":")) {
    return refused('expected "https://" followed by a host');
  }
  if (authority.includes("@")) return refused('expected no userinfo ("@") before the host');
  return { kind: "https", authority };
}

function refused(reason: string): SchemeShape {
  return { kind: "refused", reason };
}

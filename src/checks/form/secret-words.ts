/**
 * Spotting form fields that look like they ask for a secret. The spec forbids servers to request
 * passwords, API keys, tokens or payment credentials through form mode; a field that seems to
 * is flagged `sensitiveSuspected` so the handler can warn the user (nothing is refused).
 *
 * How text is read: a field's name, title and description are cut into words at every character
 * that is not an ASCII letter or digit and at camelCase humps (`APIKey` → `api key`; `2FA` stays
 * one word). Words are compared in lower case, whole but for trailing digits (`password2`
 * matches; `passwordless` and `spinner` do not). Non-ASCII text is first put in NFKC form
 * (full-width `ｐａｓｓｗｏｒｄ` reads `password`) and stripped of invisible characters (so
 * `pass\u200Bword` is one word) and lone surrogates.
 *
 * What matches:
 * - a word of {@linkcode SECRET_WORDS}, anywhere;
 * - a word of {@linkcode NAME_ONLY_WORDS} in the name, or as the whole title ("Map pin location"
 *   does not ask for a PIN);
 * - two or three consecutive words forming a phrase of {@linkcode SECRET_PHRASES}, anywhere.
 *
 * The form check asks this only of fields that take free input (text without a format or with
 * `uri`, numbers): a boolean, an enum or an email, date or date-time field cannot carry a secret.
 *
 * @module
 */

/** Words that suggest a secret wherever they appear (plural `tokens` deliberately absent). */
export const SECRET_WORDS: ReadonlySet<string> = new Set(
  ("password passwords passwd passphrase passcode pincode secret secrets token credential credentials " +
    "apikey apikeys accesskey privatekey secretkey clientsecret creditcard cardnumber cvv cvv2 cvc cvc2 " +
    "ssn iban otp totp hotp 2fa mfa jwt").split(" "),
);

/** Words that suggest a secret only in a field's name, or as its whole title. */
export const NAME_ONLY_WORDS: ReadonlySet<string> = new Set(["pin", "pwd", "mnemonic"]);

/** Phrases of two or three words that suggest a secret wherever they appear. */
export const SECRET_PHRASES: ReadonlySet<string> = new Set(
  ("api key, api keys, access key, access keys, private key, private keys, secret key, signing key, " +
    "encryption key, ssh key, recovery key, license key, client secret, credit card, debit card, " +
    "card number, security code, verification code, auth code, authorization code, authentication code, " +
    "pin code, pin number, one time code, one time password, one time pin, one time passcode, " +
    "social security, bank account, account number, routing number, sort code, seed phrase, " +
    "recovery phrase, recovery code, recovery codes, backup code, backup codes, two factor").split(", "),
);

/**
 * Whether a field's texts suggest it asks for a secret.
 *
 * @param name The property name.
 * @param title Its `title`, if any.
 * @param description Its `description`, if any.
 * @returns `true` when a secret word or phrase appears (see the module documentation).
 * @example
 * ```ts
 * import { suggestsSecret } from "./secret-words.ts";
 * console.log(suggestsSecret("apiKey", undefined, undefined)); // true
 * console.log(suggestsSecret("spinner", "Spinner speed", undefined)); // false
 * ```
 */
export function suggestsSecret(
  name: string,
  title: string | undefined,
  description: string | undefined,
): boolean {
  return hasSecret(name, true) ||
    (title !== undefined && (hasSecret(title, false) || NAME_ONLY_WORDS.has(title.trim().toLowerCase()))) ||
    (description !== undefined && hasSecret(description, false));
}

/**
 * Characters that render as nothing and may hide inside a word, and lone surrogates: removed in
 * one pass, so the halves around a removed character cannot pair up into a new invisible one
 * (`\uDB40\u00AD\uDC20` would become the tag character U+E0020).
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]/gu;
const NOT_ASCII = /[\x80-\uffff]/;
/**
 * The capitals that start a word at a camelCase hump: after a lower-case or non-ASCII letter, or
 * before a lower-case letter after a capital or a digit. Written capital first so engines skip to
 * the next capital rather than try a look-behind everywhere.
 */
const HUMP = /[A-Z](?<=[a-z\x80-\uffff][A-Z])|[A-Z](?=[a-z])(?<=[A-Z\d][A-Z])/g;
/** What a word is made of, once lower-cased: ASCII letters and digits, and any non-ASCII unit. */
const WORD = "a-z\\d\\x80-\\uffff";

/**
 * One test for whole words and phrases (with any trailing digits) of lower-cased text. The start
 * is matched as `^` or a character, not a look-behind, which engines try at every position.
 */
function wholeWords(words: Iterable<string>): RegExp {
  const alternatives = [...words].map((entry) => entry.split(" ").join(`[^${WORD}]+`));
  return new RegExp(`(?:^|[^${WORD}])(?:${alternatives.join("|")})\\d*(?![${WORD}])`);
}

const SECRET_ANYWHERE = wholeWords([...SECRET_WORDS, ...SECRET_PHRASES]);
const SECRET_IN_NAME = wholeWords([...SECRET_WORDS, ...NAME_ONLY_WORDS, ...SECRET_PHRASES]);

/** The words a match needs: a secret word, a name-only word, or the first word of a phrase. */
const NEEDED_WORDS = [
  ...new Set([
    ...SECRET_WORDS,
    ...NAME_ONLY_WORDS,
    ...[...SECRET_PHRASES].map((phrase) => phrase.split(" ")[0] as string),
  ]),
];
/** Those that contain no other (`password` finds whatever `passwords` would). */
const SHORTEST_NEEDED = NEEDED_WORDS.filter((word) =>
  !NEEDED_WORDS.some((other) => other !== word && word.includes(other))
);
/** Whether ASCII text may hold a needed word anywhere: one cheap pass that rules out most text. */
const MAY_HOLD_SECRET = new RegExp(SHORTEST_NEEDED.join("|"), "i");

function hasSecret(text: string, isName: boolean): boolean {
  // Text outside ASCII is always read whole: NFKC may turn it into a needed word.
  const ascii = !NOT_ASCII.test(text);
  if (ascii && !MAY_HOLD_SECRET.test(text)) return false;
  const readable = ascii ? text : text.normalize("NFKC").replace(INVISIBLE, "");
  // Lower-casing cannot make a word of a non-ASCII one: after NFKC, no letter outside ASCII
  // lower-cases to ASCII letters alone (U+0130 keeps its combining dot).
  const words = readable.replace(HUMP, " $&").toLowerCase();
  return (isName ? SECRET_IN_NAME : SECRET_ANYWHERE).test(words);
}

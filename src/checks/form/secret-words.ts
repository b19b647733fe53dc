/**
 * Spotting form fields that look like they ask for a secret. The spec forbids servers to request
 * passwords, API keys, tokens or payment credentials through form mode; a field that seems to
 * is flagged `sensitiveSuspected` so the handler can warn the user (nothing is refused).
 *
 * How text is read: a field's name, title and description are cut into words at every
 * character that is not an ASCII letter or digit (so `snake_case`, `kebab-case`, spaces and
 * punctuation separate words) and at camelCase humps (`apiKey` → `api key`, `APIKey` →
 * `api key`, `cvv2Code` → `cvv2 code`; a digit followed by capitals stays one word: `2FA`).
 * Words are compared in lower case, whole: `spinner`, `pinned`, `tokenizer` and `passport`
 * match nothing. Non-ASCII letters stay inside words. Before that, text that is not plain ASCII
 * is put in NFKC form (full-width `ｐａｓｓｗｏｒｄ` reads `password`, `ﬁ` reads `fi`) and stripped of
 * invisible characters (default-ignorable and format characters: a zero-width space, soft hyphen
 * or word joiner inside `pass\u200Bword` does not split it) and of lone surrogates.
 *
 * What matches:
 * - a word of {@linkcode SECRET_WORDS}, anywhere;
 * - a word of {@linkcode NAME_ONLY_WORDS} in the name only (`pin` as a field name is a PIN, while
 *   a description saying "do not give us your pin" is not asking for one);
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
    "ssn iban otp totp hotp 2fa mfa").split(" "),
);

/** Words that suggest a secret only as (part of) a field name. */
export const NAME_ONLY_WORDS: ReadonlySet<string> = new Set(["pin", "pwd"]);

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
  return hasSecret(name, true) || (title !== undefined && hasSecret(title, false)) ||
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
 * Between words: a run of ASCII characters other than letters and digits, or a camelCase hump (a
 * capital after a lower-case or non-ASCII letter, or a capital before a lower-case letter after
 * a capital or a digit).
 */
const WORD_BREAK = /[^a-zA-Z\d\x80-\uffff]+|(?<=[a-z\x80-\uffff])(?=[A-Z])|(?<=[A-Z\d])(?=[A-Z][a-z])/;

/** Every word of the lists: any other word cannot match, nor be part of a phrase. */
const KNOWN_WORDS: ReadonlySet<string> = new Set([
  ...SECRET_WORDS,
  ...NAME_ONLY_WORDS,
  ...[...SECRET_PHRASES].flatMap((phrase) => phrase.split(" ")),
]);

const NEEDED_WORDS = [
  ...SECRET_WORDS,
  ...NAME_ONLY_WORDS,
  ...[...SECRET_PHRASES].map((phrase) => phrase.split(" ")[0]),
];
/**
 * Whether the text holds, in any case and anywhere, a word that a match needs: a secret word, a
 * name-only word, or the first word of a phrase. Most text holds none and is not read further.
 */
const CANDIDATE = new RegExp([...new Set(NEEDED_WORDS)].join("|"), "i");

function hasSecret(text: string, isName: boolean): boolean {
  const ascii = !NOT_ASCII.test(text);
  const readable = ascii ? text : text.normalize("NFKC").replace(INVISIBLE, "");
  if (!CANDIDATE.test(readable)) return false;
  // The last two words, when both are words of the lists.
  let before = "";
  let previous = "";
  for (const word of readable.split(WORD_BREAK)) {
    // Only ASCII words can match: a word with other characters is left as it is.
    const lower = ascii || !NOT_ASCII.test(word) ? word.toLowerCase() : word;
    if (!KNOWN_WORDS.has(lower)) {
      before = previous = "";
      continue;
    }
    if (SECRET_WORDS.has(lower) || (isName && NAME_ONLY_WORDS.has(lower))) return true;
    if (SECRET_PHRASES.has(`${previous} ${lower}`) || SECRET_PHRASES.has(`${before} ${previous} ${lower}`)) {
      return true;
    }
    before = previous;
    previous = lower;
  }
  return false;
}

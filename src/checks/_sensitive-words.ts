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

interface WordInfo {
  readonly word: string;
  /** Small number naming the word inside phrases. */
  readonly id: number;
  /** 2: a secret anywhere; 1: a secret in a name; 0: only part of phrases. */
  readonly alone: number;
}

const MAX_WORD = 16;
/** Words by the hash of their lower-case letters: text is read without slicing it. */
const WORDS = new Map<number, WordInfo>();
/** Phrases as numbers: `id1 * 128 + id2`, `(id1 * 128 + id2) * 128 + id3`. */
const PHRASES = new Set<number>();
/** A one-bit filter on word hashes: most words of a text are looked up no further. */
const KNOWN_HASH = new Uint8Array(4096);

function wordInfo(word: string, alone: number): WordInfo {
  const hash = hashOf(word, 0, word.length);
  const known = WORDS.get(hash);
  if (known !== undefined && known.word !== word) throw new Error(`hash collision: ${word} ${known.word}`);
  const info = { word, id: known?.id ?? WORDS.size + 1, alone: Math.max(alone, known?.alone ?? 0) };
  if (info.id >= 128 || word.length > MAX_WORD) {
    throw new Error(`word list too large for its encoding: ${word}`);
  }
  WORDS.set(hash, info);
  KNOWN_HASH[hash & 4095] = 1;
  return info;
}
for (const word of SECRET_WORDS) wordInfo(word, 2);
for (const word of NAME_ONLY_WORDS) wordInfo(word, 1);
for (const phrase of SECRET_PHRASES) {
  let key = 0;
  for (const word of phrase.split(" ")) key = key * 128 + wordInfo(word, 0).id;
  PHRASES.add(key);
}

/**
 * Whether a field's texts suggest it asks for a secret.
 *
 * @param name The property name.
 * @param title Its `title`, if any.
 * @param description Its `description`, if any.
 * @returns `true` when a secret word or phrase appears (see the module documentation).
 */
export function suggestsSecret(
  name: string,
  title: string | undefined,
  description: string | undefined,
): boolean {
  return scan(readable(name), 1) || (title !== undefined && scan(readable(title), 2)) ||
    (description !== undefined && scan(readable(description), 2));
}

/**
 * Characters that render as nothing and may hide inside a word, and lone surrogates: removed in
 * the same pass, so the halves around a removed character cannot pair up into a new invisible
 * one (`\uDB40\u00AD\uDC20` would become the tag character U+E0020).
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]/gu;
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The text as a reader sees it: NFKC, without invisible characters and lone surrogates. ASCII
 * text (NFKC already, with neither) is returned as it is, without copying.
 */
function readable(text: string): string {
  return NOT_ASCII.test(text) ? text.normalize("NFKC").replace(INVISIBLE, "") : text;
}

/**
 * Walks the words of `text` once, hashing each in lower case as it goes and keeping the ids of
 * the two previous phrase words. `strength` is the least {@linkcode WordInfo.alone} that
 * counts alone.
 */
function scan(text: string, strength: number): boolean {
  const length = text.length;
  let before = 0;
  let previous = 0;
  let i = 0;
  while (i < length) {
    let code = text.charCodeAt(i);
    if (code < 0x80 && ASCII_KINDS[code] === SEPARATOR) {
      i++;
      continue;
    }
    const start = i;
    // ASCII letters and digits all have the 0x20 bit once lower-cased; other characters may
    // collide, which sameWord() rules out.
    let hash = code | 0x20;
    for (i++; i < length; i++) {
      code = text.charCodeAt(i);
      const kind = code < 0x80 ? ASCII_KINDS[code] : OTHER_LETTER;
      if (kind === SEPARATOR || (kind === UPPER && startsHump(text, i, start))) break;
      hash = (Math.imul(hash, 31) + (code | 0x20)) | 0;
    }
    const info = i - start <= MAX_WORD && KNOWN_HASH[hash & 4095] === 1 ? WORDS.get(hash) : undefined;
    if (info === undefined || !sameWord(text, start, i, info.word)) {
      before = 0;
      previous = 0;
      continue;
    }
    if (info.alone >= strength) return true;
    if (previous !== 0 && PHRASES.has(previous * 128 + info.id)) return true;
    if (before !== 0 && PHRASES.has((before * 128 + previous) * 128 + info.id)) return true;
    before = previous;
    previous = info.id;
  }
  return false;
}

function hashOf(word: string, start: number, end: number): number {
  let hash = 0;
  for (let i = start; i < end; i++) hash = (Math.imul(hash, 31) + word.charCodeAt(i)) | 0;
  return hash;
}

/** Whether `text[start, end)` is `word` (lower case), ignoring ASCII case. */
function sameWord(text: string, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 0x41 && code <= 0x5a ? code + 0x20 : code) !== word.charCodeAt(i - start)) return false;
  }
  return true;
}
const SEPARATOR = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const OTHER_LETTER = 4;

/** The kind of every ASCII character; every other code unit is an {@linkcode OTHER_LETTER}. */
const ASCII_KINDS = new Uint8Array(128).map((_, code) =>
  code >= 0x61 && code <= 0x7a
    ? LOWER
    : code >= 0x41 && code <= 0x5a
    ? UPPER
    : code >= 0x30 && code <= 0x39
    ? DIGIT
    : SEPARATOR
);

function charKind(code: number): number {
  return code < 0x80 ? ASCII_KINDS[code] ?? SEPARATOR : OTHER_LETTER;
}

/**
 * Whether the capital at `i` starts a new camelCase word inside the word begun at `start`:
 * after a lower-case letter (`apiKey`), or before a lower-case letter after capitals or digits
 * (`APIKey`, `cvv2Code`).
 */
function startsHump(text: string, i: number, start: number): boolean {
  if (i === start) return false;
  const before = charKind(text.charCodeAt(i - 1));
  if (before === LOWER || before === OTHER_LETTER) return true;
  return charKind(text.charCodeAt(i + 1)) === LOWER;
}

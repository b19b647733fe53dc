// What logs and terminals are shown of a URL: its query's values left out, alone, with its
// password, or quoted inside a message. Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  withoutQueryValues,
  withoutQuotedUrlSecrets,
  withoutUrlSecrets,
} from "../../src/_internal/url-query.ts";
import { quote } from "../../src/_internal/quote.ts";

describe("url-query", () => {
  test("withoutQueryValues() keeps each query name once, drops the fragment, and cuts text that is no URL at its ?", () => {
    assert.deepEqual(
      [
        "https://a.example/p?token=abc&x=1&token=def#top",
        "https://a.example/p#frag",
        "https://a.example/p",
        "not a url?secret",
      ].map(withoutQueryValues),
      ["https://a.example/p?token=…&x=…", "https://a.example/p", "https://a.example/p", "not a url?…"],
    );
  });

  test("withoutUrlSecrets() hides the userinfo password (up to the last @, / ? # included) and the query's values, and keeps the user", () => {
    assert.deepEqual(
      [
        "postgresql://app:p@ss@db.internal/app?sslmode=require",
        "postgresql://app:pa/ss@db/app",
        "postgresql://app:pa?ss#x@db/app",
        "https://ghp_user@github.com/org/repo.git",
        "https://a.example:8443/p?x=1",
      ].map(withoutUrlSecrets),
      [
        "postgresql://app:…@db.internal/app?sslmode=…",
        "postgresql://app:…@db/app",
        "postgresql://app:…@db/app",
        "https://ghp_user@github.com/org/repo.git",
        "https://a.example:8443/p?x=…",
      ],
    );
  });

  test("withoutQuotedUrlSecrets() rewrites each URL a message quotes, escapes and a cut included, and nothing else", () => {
    const escaped = quote('https://a.example/\u202e\u{E0001}?token=\u{E0001}"x');
    const cut = quote(`https://a.example/${"a".repeat(80)}?session=SECRET`);
    const message = `URL ${escaped} and ${cut} refused for "user?id=1" at "C:\\\\tmp?x" "ftp://f.example/x"`;
    assert.deepEqual(
      [escaped, cut, withoutQuotedUrlSecrets(message)],
      [
        '"https://a.example/\\u202E\\u{E0001}?token=\\u{E0001}\\"x"',
        `"https://a.example/${"a".repeat(78)}…"`,
        `URL "https://a.example/\\u202E\\u{E0001}?token=…" and ${cut} refused for "user?id=1" at "C:\\\\tmp?x=…" "ftp://f.example/x"`,
      ],
    );
  });
});

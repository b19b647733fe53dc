// What logs and terminals are shown of a URL: without its query's values and userinfo secrets,
// alone or quoted inside a message. Runs on every runtime.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { withoutQuotedUrlSecrets, withoutUrlSecrets } from "../../src/_internal/url-query.ts";
import { quote } from "../../src/_internal/quote.ts";

describe("url-query", () => {
  test("withoutUrlSecrets() keeps each query name once and drops the fragment, in text that is no URL too", () => {
    assert.deepEqual(
      [
        "https://a.example/p?token=abc&x=1&token=def#top",
        "https://a.example/p#frag",
        "https://a.example/p",
        "not a url?secret",
      ].map(withoutUrlSecrets),
      ["https://a.example/p?token=…&x=…", "https://a.example/p", "https://a.example/p", "not a url?…"],
    );
  });

  test("withoutUrlSecrets() shows a query part with no = as … alone, its name being as likely the secret, and a name with = by its name", () => {
    assert.deepEqual(
      [
        "https://api.example/v1?SECRETTOKEN123",
        "https://api.example/v1?abc&key=1",
        "https://api.example/v1?key=1&TOKEN1&TOKEN2&=x&&key",
        "https://api.example/v1?a+b=1&%74oken#x?y=1",
        "not a url?key=1&SECRET",
        "https://api.example/v1?",
      ].map(withoutUrlSecrets),
      [
        "https://api.example/v1?…",
        "https://api.example/v1?…&key=…",
        "https://api.example/v1?key=…&…&=…",
        "https://api.example/v1?a+b=…&…",
        "not a url?key=…&…",
        "https://api.example/v1",
      ],
    );
  });

  test("withoutUrlSecrets() hides the userinfo password (up to the last @, / ? # included) and the query's values, and keeps the user", () => {
    assert.deepEqual(
      [
        "postgresql://app:p@ss@db.internal/app?sslmode=require",
        "postgresql://app:pa/ss@db/app",
        "postgresql://app:pa?ss#x@db/app",
        "https://x-access-token:ghp_abc@github.com/x",
        "https://a.example:8443/p?x=1",
      ].map(withoutUrlSecrets),
      [
        "postgresql://app:…@db.internal/app?sslmode=…",
        "postgresql://app:…@db/app",
        "postgresql://app:…@db/app",
        "https://x-access-token:…@github.com/x",
        "https://a.example:8443/p?x=…",
      ],
    );
  });

  test("withoutUrlSecrets() hides the password of a user name that holds @ (user@server:pw@host), and a libpq password holding / after a lone user", () => {
    assert.deepEqual(
      [
        "postgresql://myadmin@mydemoserver:S3cretPw@mydemoserver.postgres.database.azure.com:5432/postgres",
        "https://user@example.com:hunter2@git.example.com/repo.git",
        "postgresql://a@b:pa/ss@db/app",
        "https://user:pass@host/x",
      ].map(withoutUrlSecrets),
      [
        "postgresql://myadmin@mydemoserver:…@mydemoserver.postgres.database.azure.com:5432/postgres",
        "https://user@example.com:…@git.example.com/repo.git",
        "postgresql://…@b:…@db/app",
        "https://user:…@host/x",
      ],
    );
  });

  test("withoutUrlSecrets() hides a user name with no password (a token, as GitHub and GitLab take one) up to the authority's last @, and an @ after it hides nothing", () => {
    assert.deepEqual(
      [
        "https://ghp_abc123@github.com/x",
        "https://glpat-abc@gitlab.example:8443/x",
        "https://to@ken@github.com/x",
        "https://@github.com/x",
        "https://github.com/x@y?to=a@b#c@d",
        "mailto:ghp_abc@github.com",
      ].map(withoutUrlSecrets),
      [
        "https://…@github.com/x",
        "https://…@gitlab.example:8443/x",
        "https://…@github.com/x",
        "https://@github.com/x",
        "https://github.com/x@y?to=…",
        "mailto:ghp_abc@github.com",
      ],
    );
  });

  test("withoutUrlSecrets() takes digits after a web URL's host as its port, so an @ in its path hides nothing; an IPv6 host is no user; libpq's digits before / stay a password; a password hidden already hides no path", () => {
    assert.deepEqual(
      [
        "https://[::1]:8080/users/@me",
        "http://localhost:4873/@scope/pkg",
        "wss://mcp.example:8443/@team/mcp?key=abc",
        "https://mcp.example:8443",
        "https://app:12ab/ss@host/x",
        "postgresql://app:12/ss@db/app",
        "postgresql://[::1]:5432/app",
        "https://user:pw@host:8080/@me",
        "postgresql://user:pw@db/@x",
      ].map(withoutUrlSecrets),
      [
        "https://[::1]:8080/users/@me",
        "http://localhost:4873/@scope/pkg",
        "wss://mcp.example:8443/@team/mcp?key=…",
        "https://mcp.example:8443",
        "https://app:…@host/x",
        "postgresql://app:…@db/app",
        "postgresql://[::1]:5432/app",
        "https://user:…@host:8080/@me",
        "postgresql://user:…@db/@x",
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
        `URL "https://a.example/\\u202E\\u{E0001}?token=…" and ${cut} refused for "user?id=1" at "C:\\\\tmp?…" "ftp://f.example/x"`,
      ],
    );
  });

  test("withoutQuotedUrlSecrets() rewrites each scheme:// URL inside quoted text that is no URL itself, a server's message quoted in an error", () => {
    const message = 'Server "ev" answered resources/read with error -32602: ' +
      '"Resource https://user:pw@x.example/r?token=SECRET not found (demo://nope?key=S2) for user?id=1"';
    assert.equal(
      withoutQuotedUrlSecrets(message),
      'Server "ev" answered resources/read with error -32602: ' +
        '"Resource https://user:…@x.example/r?token=… not found (demo://nope?key=…) for user?id=1"',
    );
  });
});

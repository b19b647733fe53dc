// `sluice call` through main() with a scripted terminal, against the real modern peer
// (@modelcontextprotocol/server 2.4.0 in its own process): forms and URL elicitations.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { modernCallFixture } from "./_scripted-io.ts";

const { call, peerUrl } = modernCallFixture();

const FORM_INTRO = [
  'Server "modern" asks you to fill in a form:',
  "  Tell us about you",
  "Answer field by field; Enter accepts the [default] or skips an optional field. " +
  "Type :decline or :cancel at any prompt.",
  "Name (required)",
  "  text, at least 2 characters",
];

describe("sluice call: elicitation forms, field by field", () => {
  test("call asks each field, re-asks with the answer check's message, and Enter accepts the default", async () => {
    const result = await call(["modern", "ask_form"], ["A", "Ada", "200", "36", "", "2"]);
    assert.deepEqual(result, {
      code: 0,
      stdout: [
        ...FORM_INTRO,
        "> A",
        '  invalid: "Name" expected at least 2 characters',
        "> Ada",
        "Age (optional)",
        "  an integer from 0 to 150",
        "> 200",
        '  invalid: "Age" expected at most 150',
        "> 36",
        "Subscribe (optional)",
        "  y or n [n]",
        "> ",
        "Colour (optional)",
        "  1. red",
        "  2. green",
        "  3. blue",
        "  choose one: type its number",
        "> 2",
        '{"name":"Ada","age":36,"subscribe":false,"color":"green"}',
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  test("call asks on stderr when stdout goes to a file or a pipe and stderr is a terminal: stdout holds the result alone", async () => {
    const answers = ["Ada", "", "", ""];
    const result = await call(["modern", "ask_form"], answers, { stderrIsTTY: true, env: { NO_COLOR: "1" } });
    assert.deepEqual([result.code, result.stdout, result.stderr.split("\n").slice(0, 7)], [
      0,
      '{"name":"Ada","subscribe":false}\n',
      [...FORM_INTRO, "> Ada", "Age (optional)"],
    ]);
    // The questions are in colour when stderr is a terminal.
    const coloured = await call(["modern", "ask_form"], answers, { stderrIsTTY: true });
    assert.ok(coloured.stderr.startsWith('\x1b[1mServer "modern" asks you to fill in a form:\x1b[0m\n'));
  });

  test("call re-asks a number field given text, then leaves out optional fields skipped with Enter", async () => {
    const result = await call(["modern", "ask_form"], ["Grace", "old", "", "y", ""]);
    assert.equal(result.code, 0);
    assert.ok(
      result.stdout.includes('> old\n  invalid: "Age": an integer from 0 to 150; received "old"\n> \n'),
    );
    assert.ok(result.stdout.endsWith('{"name":"Grace","subscribe":true}\n'), result.stdout);
  });

  test("call re-asks a number whose digits a number cannot hold, where it sent other digits, and sends one it holds", async () => {
    const schema = {
      type: "object",
      properties: { id: { type: "integer", title: "Account" } },
      required: ["id"],
    };
    const result = await call(
      ["modern", "ask_schema", JSON.stringify({ requestedSchema: schema })],
      ["12345678901234567890", "9007199254740991"],
    );
    assert.equal(result.code, 0);
    assert.ok(
      result.stdout.includes(
        '> 12345678901234567890\n  invalid: "Account": an integer; received "12345678901234567890", which a number cannot hold as written\n> 9007199254740991\n',
      ),
      result.stdout,
    );
    assert.ok(result.stdout.endsWith('{"id":9007199254740991}\n'), result.stdout);
  });

  test("call answers :decline and :cancel at any prompt with that action, prints the answer and exits 5", async () => {
    const declined = await call(["modern", "ask_form"], ["Ada", ":decline"]);
    assert.deepEqual(declined, {
      code: 5,
      stdout: [
        ...FORM_INTRO,
        "> Ada",
        "Age (optional)",
        "  an integer from 0 to 150",
        "> :decline",
        '{"action":"decline"}',
        "",
      ].join("\n"),
      stderr: 'sluice call: you answered "decline" to the form of server "modern"\n',
    });
    const cancelled = await call(["modern", "ask_form"], [":cancel"]);
    assert.deepEqual([cancelled.code, cancelled.stdout.split("\n").slice(-3), cancelled.stderr], [5, [
      "> :cancel",
      '{"action":"cancel"}',
      "",
    ], 'sluice call: you answered "cancel" to the form of server "modern"\n']);
  });

  test("call fails a form when stdin is closed, naming the field by its title, and exits 6", async () => {
    const result = await call(["modern", "ask_form"], []);
    assert.deepEqual(result, {
      code: 6,
      stdout: [...FORM_INTRO, "> ", ""].join("\n"),
      stderr: 'sluice call: cannot answer the form of server "modern", field "Name": stdin is closed, ' +
        "expected an answer typed at a terminal or piped to stdin\n",
    });
  });

  test("call answers three rounds of one multi round-trip call, labelling rounds 2 and 3", async () => {
    const result = await call(["modern", "ask_three_rounds"], ["one", "two", "three"]);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    assert.deepEqual(result.stdout.split("\n").filter((line) => line.startsWith("Server")), [
      'Server "modern" asks you to fill in a form:',
      'Server "modern" asks you to fill in a form (round 2):',
      'Server "modern" asks you to fill in a form (round 3):',
    ]);
    assert.deepEqual(result.stdout.split("\n").filter((line) => line.startsWith("  Round")), [
      "  Round 1: first word?",
      '  Round 2: after "one"?',
      '  Round 3: after "two"?',
    ]);
    assert.ok(result.stdout.endsWith('["one","two","three"]\n'));
  });

  test("call answers a task's input request (the tasks extension is on)", async () => {
    const result = await call(["modern", "slow_task"], ["y"]);
    assert.deepEqual([result.code, result.stdout.split("\n").slice(-5)], [0, [
      "confirm (required)",
      "  y or n",
      "> y",
      '{"confirm":true}',
      "",
    ]]);
  });
});

describe("sluice call: URL elicitation", () => {
  const urlIntro = (url: string, host: string, origin: string) => [
    'Server "modern" asks you to open a web page:',
    "  Please open this page",
    `  URL:  ${url}`,
    `  host: ${host}`,
    `  warning: the page is not on the server's own origin (${origin})`,
    "sluice does not open links for you. Will you open this page in your browser? " +
    "y = yes (accept), n = no (decline), c = cancel",
  ];

  test("call shows the full URL, warns of another origin, asks consent, prints the URL again and accepts once Enter says the person is done there", async () => {
    const url = "https://example.com/consent?step=1";
    const result = await call(["modern", "ask_url", JSON.stringify({ url })], ["maybe", "y", "done?", ""]);
    assert.deepEqual(result, {
      code: 0,
      stdout: [
        ...urlIntro(url, "example.com", new URL(peerUrl()).origin),
        "> maybe",
        "  invalid: answer y, n or c",
        "> y",
        `Open this URL yourself: ${url}`,
        "Press Enter when you are done there, within 5m (n = decline, c = cancel after all).",
        "> done?",
        "  invalid: press Enter, or answer n or c",
        "> ",
        "accept",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  test("call declines or cancels a URL the person consented to and then answers n or c; stdin closed instead of Enter accepts", async () => {
    const url = "https://example.com/consent";
    const after = async (answer: string) => {
      const run = await call(["modern", "ask_url", JSON.stringify({ url })], ["y", answer]);
      return [run.code, run.stdout.split("\n").slice(-5), run.stderr];
    };
    const closed = await call(["modern", "ask_url", JSON.stringify({ url })], ["y"]);
    const ended = (answer: string, action: string) => [5, [
      `Open this URL yourself: ${url}`,
      "Press Enter when you are done there, within 5m (n = decline, c = cancel after all).",
      `> ${answer}`,
      action,
      "",
    ], `sluice call: you answered "${action}" to the web page of server "modern"\n`];
    assert.deepEqual(
      [await after("n"), await after(":decline"), await after("c")],
      [ended("n", "decline"), ended(":decline", "decline"), ended("c", "cancel")],
    );
    assert.deepEqual([closed.code, closed.stdout.split("\n").slice(-3), closed.stderr], [0, [
      "> ",
      "accept",
      "",
    ], ""]);
  });

  test("call answers n with decline and c with cancel, and exits 5", async () => {
    const url = "https://example.com/consent";
    const declined = await call(["modern", "ask_url", JSON.stringify({ url })], ["n"]);
    const cancelled = await call(["modern", "ask_url", JSON.stringify({ url })], ["c"]);
    assert.deepEqual([declined.code, declined.stdout.split("\n").slice(-3), declined.stderr], [5, [
      "> n",
      "decline",
      "",
    ], 'sluice call: you answered "decline" to the web page of server "modern"\n']);
    assert.deepEqual([cancelled.code, cancelled.stdout.split("\n").slice(-3), cancelled.stderr], [5, [
      "> c",
      "cancel",
      "",
    ], 'sluice call: you answered "cancel" to the web page of server "modern"\n']);
  });

  test("call fails a URL consent when stdin is closed, and exits 6", async () => {
    const url = "https://example.com/consent";
    const result = await call(["modern", "ask_url", JSON.stringify({ url })], []);
    assert.deepEqual(result, {
      code: 6,
      stdout: [...urlIntro(url, "example.com", new URL(peerUrl()).origin), "> ", ""].join("\n"),
      stderr: 'sluice call: cannot answer the web page of server "modern": stdin is closed, ' +
        "expected an answer typed at a terminal or piped to stdin\n",
    });
  });

  test("call warns of an IDN host, naming its Unicode form, and says what the server sent before normalising", async () => {
    const result = await call(["modern", "ask_url", '{"url":"https://Bücher.example.com/pay"}'], ["n"]);
    assert.deepEqual(result.stdout.split("\n").slice(2, 7), [
      "  URL:  https://xn--bcher-kva.example.com/pay",
      "  host: xn--bcher-kva.example.com",
      "  sent: https://Bücher.example.com/pay (normalised above)",
      '  warning: the host is an internationalized domain name (xn--), displayed elsewhere as "bücher.example.com": ' +
      "it may imitate another site's name",
      `  warning: the page is not on the server's own origin (${new URL(peerUrl()).origin})`,
    ]);
  });

  test("call highlights the host in bold yellow on a terminal, and not with NO_COLOR set", async () => {
    const url = JSON.stringify({ url: "https://example.com/consent" });
    const colour = await call(["modern", "ask_url", url], ["y"], { isTTY: true, stdinIsTTY: true });
    assert.equal(colour.code, 0);
    assert.ok(
      colour.stdout.includes("  URL:  https://\x1b[1;33mexample.com\x1b[0m/consent\n"),
      colour.stdout,
    );
    assert.ok(colour.stdout.includes("  \x1b[1;31mwarning:\x1b[0m the page is not on"));
    const plain = await call(["modern", "ask_url", url], ["y"], {
      isTTY: true,
      stdinIsTTY: true,
      env: { NO_COLOR: "1" },
    });
    assert.equal(plain.code, 0);
    assert.equal(plain.stdout.includes("\x1b"), false);
    assert.ok(
      plain.stdout.endsWith(
        "> Open this URL yourself: https://example.com/consent\nPress Enter when you are done there, within 5m (n = decline, c = cancel after all).\n> \naccept\n",
      ),
      plain.stdout,
    );
  });
});

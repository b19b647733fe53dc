// The playground in a real browser: Debian's chromium driven by playwright-core (nothing
// downloads a browser), the page served by the Node entry's serve() in front of the modern peer,
// whose elicitation and sampling the policy passes down to the page. Screenshots go to
// test-results/playground/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { accessSync, constants, mkdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { createGateway, type RunningGateway, serve } from "../../src/adapters/node.ts";
import { type ModernPeer, REPO_ROOT, startModernPeer } from "../_support/modern-peer.ts";

/** The longest any single step may wait. */
const WAIT = 10_000;
const KEY = "playground-browser-state-key-0123456789";
const ARTIFACTS = join(REPO_ROOT, "test-results", "playground");
const MISSING = "chromium not found; install it with apt-get install chromium";

/** The chromium binary: the first `chromium` on PATH, else Debian's `/usr/bin/chromium`. */
function chromiumPath(): string | undefined {
  const candidates = [...(process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "chromium"))];
  candidates.push("/usr/bin/chromium");
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

const executablePath = chromiumPath();

if (executablePath === undefined) {
  if (process.env.CI === "true") {
    test("chromium is installed (required when CI=true)", () => {
      throw new Error(`${MISSING} (CI=true requires the playground's browser tests to run)`);
    });
  } else {
    console.error(`\n*** PLAYGROUND BROWSER TESTS SKIPPED: ${MISSING} ***\n`);
    test.skip(`PLAYGROUND BROWSER TESTS SKIPPED: ${MISSING}`, () => {});
  }
} else {
  describeBrowserFlows(executablePath);
}

test("createGateway() from the Node entry serves the playground by default, and not with playground: false", async () => {
  const policies = [{
    server: "modern",
    transport: { url: "https://mcp.example.com/mcp" },
    era: "modern" as const,
  }];
  const statuses: number[] = [];
  for (const options of [{}, { playground: false }]) {
    const gateway = createGateway({ stateKey: KEY, policies, ...options });
    try {
      const page = await gateway.app.request("/");
      statuses.push(page.status);
      await page.body?.cancel();
    } finally {
      await gateway.client.close();
    }
  }
  assert.deepEqual(statuses, [200, 404]);
});

function describeBrowserFlows(executablePath: string): void {
  describe("the playground in chromium", { timeout: 120_000 }, () => {
    let peer: ModernPeer | undefined;
    let gateway: RunningGateway | undefined;
    let browser: Browser | undefined;
    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      peer = await startModernPeer();
      gateway = await serve({
        port: 0,
        stateKey: KEY,
        policies: [{
          server: "modern",
          transport: { url: peer.url },
          era: "modern",
          passDown: ["elicitation", "sampling"],
        }, {
          server: "roots",
          transport: { url: peer.url },
          era: "modern",
          passDown: ["roots"],
        }],
      });
      browser = await chromium.launch({
        executablePath,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        timeout: WAIT,
      });
    });
    after(async () => {
      try {
        await browser?.close();
      } finally {
        try {
          await gateway?.close();
        } finally {
          await peer?.stop();
        }
      }
    });

    /**
     * Opens the playground in a fresh context, picks `server` and `tool`, and runs `body`; the
     * page must log no script error and no console error but the `expected` ones.
     */
    async function withTool(
      tool: string,
      body: (page: Page) => Promise<void>,
      server = "modern",
      expected: readonly string[] = [],
    ): Promise<void> {
      const context = await (browser as Browser).newContext({ viewport: { width: 1000, height: 900 } });
      const problems: string[] = [];
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(WAIT);
        page.setDefaultNavigationTimeout(WAIT);
        page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
        page.on("console", (message) => {
          if (message.type() === "error") problems.push(`console: ${message.text()}`);
        });
        await page.goto(`${(gateway as RunningGateway).url}/`);
        await page.getByLabel("Server", { exact: true }).selectOption(server);
        await page.getByLabel("Tool", { exact: true }).selectOption({ label: tool });
        await body(page);
        assert.deepEqual(context.pages().length, 1, "the page opened no other window");
      } finally {
        await context.close();
      }
      assert.deepEqual(problems, expected, "no script error and no CSP violation");
    }

    const card = (page: Page): Locator => page.locator("#input-requests article.request");
    const callTool = (page: Page) => page.getByRole("button", { name: "Call the tool" }).click();

    async function resultText(page: Page): Promise<string> {
      const block = page.locator("#outcome-body .text-block");
      await block.waitFor({ state: "visible" });
      return (await block.textContent()) ?? "";
    }

    test("a form elicitation: the page refuses an invalid answer with the answer check's words, then sends the fixed one", async () => {
      await withTool("ask_form", async (page) => {
        await callTool(page);
        const form = card(page);
        await form.locator(".message", { hasText: "Tell us about you" }).waitFor();
        await form.getByLabel("Name", { exact: true }).fill("G");
        await form.getByLabel("Age", { exact: true }).fill("85");
        await form.getByLabel("Colour", { exact: true }).selectOption({ label: "green" });
        assert.equal(await form.getByLabel("Subscribe", { exact: true }).isChecked(), false);
        await form.getByRole("button", { name: "Accept" }).click();
        const error = form.locator(".field-error:visible");
        await error.waitFor();
        assert.deepEqual(await error.allTextContents(), ['field "name" expected at least 2 characters']);
        assert.equal(await form.getByLabel("Name", { exact: true }).getAttribute("aria-invalid"), "true");
        await page.screenshot({ path: join(ARTIFACTS, "ask-form-invalid.png"), fullPage: true });
        await form.getByLabel("Name", { exact: true }).fill("Grace");
        await page.screenshot({ path: join(ARTIFACTS, "ask-form-answered.png"), fullPage: true });
        await form.getByRole("button", { name: "Accept" }).click();
        // The peer echoes the content the front checked and sent upstream (keys in canonical order).
        assert.equal(await resultText(page), '{"age":85,"color":"green","name":"Grace","subscribe":false}');
        await page.screenshot({ path: join(ARTIFACTS, "ask-form-result.png"), fullPage: true });
      });
    });

    /** What the page shows once a form is answered: the fields' problems, else the call's result. */
    async function formVerdict(page: Page): Promise<string[]> {
      const shown = page.locator("#input-requests .field-error:visible, #outcome-body .text-block");
      await shown.first().waitFor();
      return await shown.allTextContents();
    }

    /** Calls the peer's `ask_schema`, which asks for a form of `requestedSchema`. */
    async function askSchema(page: Page, requestedSchema: object): Promise<Locator> {
      await page.getByLabel("Arguments (JSON object)").fill(JSON.stringify({ requestedSchema }));
      await callTool(page);
      const form = card(page);
      await form.locator(".message", { hasText: "Fill in the form" }).waitFor();
      return form;
    }

    test("a form elicitation: the page takes what was typed as the command line does: an email with spaces around as typed, a date typed in part, 1e400, digits no number holds", async () => {
      await withTool("ask_schema", async (page) => {
        const form = await askSchema(page, {
          type: "object",
          properties: {
            e: { type: "string", title: "E", format: "email" },
            d: { type: "string", title: "D", format: "date" },
            x: { type: "number", title: "X" },
            n: { type: "integer", title: "N" },
          },
        });
        await form.getByLabel("E", { exact: true }).fill("  ada@example.com  ");
        await form.getByLabel("D", { exact: true }).focus();
        await page.keyboard.type("05");
        await form.getByLabel("X", { exact: true }).fill("1e400");
        await form.getByLabel("N", { exact: true }).fill("12345678901234567890");
        await form.getByRole("button", { name: "Accept" }).click();
        assert.deepEqual(await formVerdict(page), [
          'field "e" expected an email address',
          'field "d" expected a calendar date (YYYY-MM-DD)',
          'field "x" expected a finite number',
          'field "n" received "12345678901234567890", which a number cannot hold as written',
        ]);
      });
    });

    test("a form elicitation: a choice left at (choose) is not an answer, so a required one is refused in the page and an optional one is left out (its default filled in)", async () => {
      const choices = {
        type: "object",
        properties: {
          colour: { type: "string", title: "Colour", enum: ["red", "green", "blue"] },
          shape: { type: "string", title: "Shape", enum: ["round", "square"] },
          size: { type: "string", title: "Size", enum: ["small", "large"], default: "large" },
        },
        required: ["colour"],
      };
      await withTool("ask_schema", async (page) => {
        const form = await askSchema(page, choices);
        assert.deepEqual(
          [
            await form.getByLabel("Colour", { exact: true }).inputValue(),
            await form.getByLabel("Shape", { exact: true }).inputValue(),
            await form.getByLabel("Size", { exact: true }).inputValue(),
          ],
          ["", "", "1"],
        );
        await form.getByLabel("Size", { exact: true }).selectOption({ label: "(choose)" });
        await form.getByRole("button", { name: "Accept" }).click();
        assert.deepEqual(await formVerdict(page), ['field "colour" is required, received nothing']);
        await form.getByLabel("Colour", { exact: true }).selectOption({ label: "green" });
        await form.getByRole("button", { name: "Accept" }).click();
        assert.deepEqual(await formVerdict(page), ['{"colour":"green","size":"large"}']);
      });
    });

    /** A form whose optional fields have no default, and a required yes/no. */
    const optionals = {
      type: "object",
      properties: {
        name: { type: "string", title: "Name" },
        agree: { type: "boolean", title: "Agree" },
        tags: { type: "array", title: "Tags", minItems: 1, items: { type: "string", enum: ["a", "b"] } },
        terms: { type: "boolean", title: "Terms" },
      },
      required: ["name", "terms"],
    };

    test("a form elicitation: optional fields left unset are left out (a multi-select with minItems and nothing ticked, a yes/no at (not set)), and a required yes/no keeps its checkbox", async () => {
      await withTool("ask_schema", async (page) => {
        const form = await askSchema(page, optionals);
        const agree = form.getByLabel("Agree", { exact: true });
        assert.deepEqual(
          [
            await agree.locator("option").allTextContents(),
            await agree.inputValue(),
            await form.getByLabel("Terms", { exact: true }).getAttribute("type"),
          ],
          [["(not set)", "true", "false"], "", "checkbox"],
        );
        await form.getByLabel("Name", { exact: true }).fill("Ada");
        await form.getByRole("button", { name: "Accept" }).click();
        assert.deepEqual(await formVerdict(page), ['{"name":"Ada","terms":false}']);
      });
    });

    test("a form elicitation: an optional multi-select with a default, every box unticked, answers [] (not the default)", async () => {
      await withTool("ask_schema", async (page) => {
        const form = await askSchema(page, {
          type: "object",
          properties: {
            tags: {
              type: "array",
              title: "Tags",
              items: { type: "string", enum: ["a", "b"] },
              default: ["a"],
            },
          },
        });
        const box = form.getByLabel("a", { exact: true });
        assert.equal(await box.isChecked(), true);
        await box.uncheck();
        await form.getByRole("button", { name: "Accept" }).click();
        // The person unticked the only ticked box: the answer is "none", as the CLI's " " gives.
        assert.deepEqual(await formVerdict(page), ['{"tags":[]}']);
      });
    });

    test("a form elicitation: an optional yes/no without a default answers the value chosen, and a multi-select what is ticked", async () => {
      await withTool("ask_schema", async (page) => {
        const form = await askSchema(page, optionals);
        await form.getByLabel("Name", { exact: true }).fill("Ada");
        await form.getByLabel("Agree", { exact: true }).selectOption("false");
        await form.getByLabel("b", { exact: true }).check();
        await form.getByLabel("Terms", { exact: true }).check();
        await form.getByRole("button", { name: "Accept" }).click();
        assert.deepEqual(await formVerdict(page), ['{"agree":false,"name":"Ada","tags":["b"],"terms":true}']);
      });
    });

    test("a URL elicitation: the page shows the whole URL as normalised (and what was sent) with its host marked and both warnings, and consent never navigates", async () => {
      const url = "https://xn--bcher-kva.example.com/consent?step=1";
      // Sent un-normalised: the policy passes it down as a browser would open it, and says so.
      const sent = "https://XN--BCHER-KVA.Example.com/a/../consent?step=1";
      await withTool("ask_url", async (page) => {
        const start = page.url();
        await page.getByLabel("url", { exact: true }).fill(sent);
        await callTool(page);
        const request = card(page);
        await request.locator(".message", { hasText: "Please open this page" }).waitFor();
        assert.deepEqual(
          [
            await request.locator("code.url-text").textContent(),
            await request.locator("mark.host").textContent(),
            await request.locator(".idn-warning").isVisible(),
            await request.locator(".origin-warning").textContent(),
            await request.locator("a").count(),
            await request.locator(".url-normalised").textContent(),
          ],
          [
            url,
            "xn--bcher-kva.example.com",
            true,
            `The address's origin https://xn--bcher-kva.example.com is not the server's (${
              new URL(peer?.url ?? "").origin
            }): make sure you trust this site.`,
            0,
            `The server sent ${sent}; this is what a browser would open.`,
          ],
        );
        await page.screenshot({ path: join(ARTIFACTS, "ask-url-consent.png"), fullPage: true });
        await request.getByRole("button", { name: "Accept (I opened it myself)" }).click();
        assert.equal(await resultText(page), "accept");
        assert.equal(page.url(), start);
      });
    });

    test("a sampling request: the page shows maxTokens as the policy clamped it and what the server asked, and the operator's reply reaches the server", async () => {
      await withTool("ask_sampling", async (page) => {
        await callTool(page);
        const request = card(page);
        await request.locator(".sampling-text", { hasText: "Say hello" }).waitFor();
        const facts = await request.locator("dl.facts").evaluate((list) =>
          Array.from(
            list.querySelectorAll("dt"),
            (term) => [term.textContent, term.nextElementSibling?.textContent],
          )
        );
        assert.deepEqual(facts, [["Max tokens", "4096 (the server asked 999999)"]]);
        await request.getByLabel("Your reply, sent as the assistant").fill("Hello from the operator");
        await page.screenshot({ path: join(ARTIFACTS, "ask-sampling-reply.png"), fullPage: true });
        await request.getByRole("button", { name: "Send the reply" }).click();
        assert.equal(await resultText(page), "Hello from the operator");
      });
    });

    test("three rounds in a row: each round's form is answered and the call goes on with the new requestState", async () => {
      await withTool("ask_three_rounds", async (page) => {
        await callTool(page);
        const rounds: Array<readonly [string, string]> = [
          ["Round 1: first word?", "one"],
          ['Round 2: after "one"?', "two"],
          ['Round 3: after "two"?', "three"],
        ];
        for (const [index, [message, word]] of rounds.entries()) {
          const request = card(page).filter({ has: page.locator(".message", { hasText: message }) });
          await request.waitFor();
          assert.match(
            (await page.locator("#round").textContent()) ?? "",
            new RegExp(`^Round ${index + 1}: `),
          );
          await request.getByLabel("Value", { exact: true }).fill(word);
          await request.getByRole("button", { name: "Accept" }).click();
        }
        assert.equal(await resultText(page), '["one","two","three"]');
        await page.screenshot({ path: join(ARTIFACTS, "ask-three-rounds-result.png"), fullPage: true });
      });
    });

    test("a roots request: the operator's list goes up as the front's roots check leaves it", async () => {
      await withTool("ask_roots", async (page) => {
        await callTool(page);
        const request = card(page);
        await request.getByLabel("Root URI").fill("file:///srv/project/../project/./src");
        await request.getByLabel("Name (optional)").fill("project");
        await request.getByRole("button", { name: "Add a root" }).click();
        await request.getByLabel("Root URI").nth(1).fill("https://example.com/");
        await request.getByRole("button", { name: "Send the roots" }).click();
        assert.equal(await resultText(page), '["file:///srv/project/src"]');
      }, "roots");
    });

    test("an answer the front refuses (its post-check) shows the error, and Start over returns to the pickers", async () => {
      await withTool("ask_form", async (page) => {
        // Stands for a page whose own check is looser than the front's: the retry's answer is
        // rewritten on its way out, so only the front's post-check can refuse it.
        await page.route("**/mcp/modern", async (route) => {
          const body = JSON.parse(route.request().postData() ?? "{}");
          const answer = body.params?.inputResponses?.profile;
          if (answer === undefined) return await route.continue();
          answer.content.name = "G";
          await route.continue({ postData: JSON.stringify(body) });
        });
        await callTool(page);
        const form = card(page);
        await form.getByLabel("Name", { exact: true }).fill("Grace");
        await form.getByRole("button", { name: "Accept" }).click();
        const error = page.locator("#outcome-body .rpc-error");
        await error.waitFor();
        assert.equal(
          await error.textContent(),
          'JSON-RPC error -32602: Answer to input request "profile" refused: Elicitation answer refused: field "name" expected at least 2 characters',
        );
        await page.getByRole("button", { name: "Start over" }).click();
        assert.deepEqual(
          [
            await page.locator("#outcome").isHidden(),
            await page.locator("#inputs").isHidden(),
            await page.locator("#tool option:checked").textContent(),
            await page.evaluate(() => document.activeElement?.id),
          ],
          [true, true, "ask_form", "tool"],
        );
      });
    });

    test("a tool's number argument whose digits a number cannot hold is not sent: the page says why; one it holds is", async () => {
      await withTool("add", async (page) => {
        await page.getByLabel("a", { exact: true }).fill("12345678901234567890");
        await callTool(page);
        await page.waitForFunction(() => document.querySelector("#status")?.textContent !== "");
        assert.equal(
          await page.locator("#status").textContent(),
          'Argument "a" received "12345678901234567890", which a number cannot hold as written',
        );
        await page.getByLabel("a", { exact: true }).fill("9007199254740991");
        await page.getByLabel("b", { exact: true }).fill("0");
        await callTool(page);
        assert.equal(await resultText(page), "9007199254740991");
      });
      // Arguments written as JSON (a schema that is not flat) are held to the same rule.
      await withTool("ask_schema", async (page) => {
        await page.getByLabel("Arguments (JSON object)").fill(
          '{"requestedSchema": {}, "n": 1.0000000000000001}',
        );
        await callTool(page);
        await page.waitForFunction(() => document.querySelector("#status")?.textContent !== "");
        assert.equal(
          await page.locator("#status").textContent(),
          "The arguments hold the number 1.0000000000000001, which a number cannot hold as written",
        );
      });
    });

    test("an access token typed in reloads the servers and keeps the server and tool picked when the list still has them: the call then goes", async () => {
      await withTool("echo", async (page) => {
        await page.getByLabel("Access token").fill("typed-token");
        await page.getByLabel("Access token").press("Tab");
        await page.waitForFunction(() => document.querySelector("#status")?.textContent !== "");
        assert.deepEqual(
          [
            await page.locator("#server").inputValue(),
            await page.locator("#tool option:checked").textContent(),
          ],
          ["modern", "echo"],
        );
        await page.getByLabel("message").fill("hello");
        await callTool(page);
        assert.equal(await resultText(page), JSON.stringify({ message: "hello" }));
      });
    });

    test("a JSON-RPC error is shown with its code and message, and Start over returns to the pickers", async () => {
      // -32021 is HTTP 400 (2026-07-28), which the browser reports as a failed load.
      const failedLoad =
        "console: Failed to load resource: the server responded with a status of 400 (Bad Request)";
      await withTool(
        "undeclared",
        async (page) => {
          await callTool(page);
          const error = page.locator("#outcome-body .rpc-error");
          await error.waitFor();
          assert.equal(
            await error.textContent(),
            'JSON-RPC error -32021: Server "modern" needs roots for this call, and this gateway does not offer it: ' +
              'the policy of "modern" neither handles it nor passes it down to callers ("passDown")',
          );
          await page.getByRole("button", { name: "Start over" }).click();
          assert.deepEqual(
            [
              await page.locator("#outcome").isHidden(),
              await page.locator("#inputs").isHidden(),
              await page.locator("#tool option:checked").textContent(),
              await page.getByRole("button", { name: "Call the tool" }).isEnabled(),
            ],
            [true, true, "undeclared", true],
          );
          assert.equal(await page.evaluate(() => document.activeElement?.id), "tool");
        },
        "modern",
        [failedLoad],
      );
    });
  });
}

/**
 * `sluice login <server>`: signs a person in to a server whose policy has `transport.auth.oauth`,
 * with the authorization code grant, and keeps the tokens in the token file for `sluice call`. The
 * browser comes back to a loopback listener (RFC 8252) on the server's own port (`callbackPort`).
 *
 * @module
 */
import { createClient } from "../client/legacy/legacy-client.ts";
import type { Client } from "../client/client-types.ts";
import { escapeHtml } from "../_internal/html.ts";
import { shownAuthorizationUrl } from "../client/sign-ins.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import { sanitizeText } from "../notify/sanitize-text.ts";
import { CALL_EXIT, describeFailure, exitCodeOf } from "./_call-output.ts";
import { type ArrivedCallback, type CallbackListener, listenForCallback } from "./_callback-listener.ts";
import { openInBrowser } from "./_open-in-browser.ts";
import { untilAborted } from "./_prompt-input.ts";
import { printUrl } from "./_prompt-url.ts";
import { readServerTarget } from "./_server-target.ts";
import { Screen } from "./_terminal.ts";
import { openTokenFile, type TokenFile } from "./_token-file.ts";
import type { CliIo } from "./cli-io.ts";

/** The text of `sluice login --help`. */
export const LOGIN_HELP: string = `Usage: sluice login <server> [--open] [--policies dir]

Signs you in to a server whose policy has transport.auth.oauth, so that "sluice call" can call
it. It prints the authorization server's URL with its host; open it in your browser (or pass
--open), sign in there, and the browser comes back to sluice on http://127.0.0.1:<port>/callback.
The tokens are saved in the token file, readable by you only. Waits at most 10 minutes.

Arguments:
  <server>            the server id of a policy in the policies folder

Flags:
  --open              open the URL with the system's opener (xdg-open, open, rundll32)
                      (default: print it only)
  --policies <dir>    the folder of policy files (default ./policies)
  -h, --help          show this help

Environment:
  SLUICE_TOKEN_FILE   the token file (default $XDG_CONFIG_HOME/sluice/tokens.json, else
                      ~/.config/sluice/tokens.json)

Exit codes:
  0     signed in, tokens saved
  1     cannot listen on 127.0.0.1 for the browser
  2     usage error: bad arguments or flags, an unknown server, a policy without
        transport.auth.oauth, policies that do not load
  3     refused: the authorization URL breaks the policy's elicitation URL rules
  4     failed: discovery, registration or the token request failed, the server or the person
        refused the sign-in, the callback did not match, the token file cannot be used, or no
        browser came back in 10 minutes
  130   interrupted (Ctrl-C)

Examples:
  sluice login files
  sluice login files --open --policies ./policies
`;

/** A sign-in started: the authorization URL and when it expires (ms since the epoch). */
type Started = { readonly url: string; readonly expiresAt: number };

/** The exit code when the loopback listener cannot start (as `serve`'s "cannot listen"). */
const CANNOT_LISTEN = 1;

/** What one login works with. */
interface Login {
  readonly io: CliIo;
  readonly screen: Screen;
  readonly policy: CompiledPolicy;
  readonly client: Client;
  readonly listener: CallbackListener;
  readonly file: TokenFile;
  readonly open: boolean;
}

/**
 * Runs `sluice login`.
 *
 * @param argv The arguments after `login`.
 * @param io The command's io.
 * @returns The exit code (see {@linkcode LOGIN_HELP}).
 */
export async function runLogin(argv: readonly string[], io: CliIo): Promise<number> {
  const target = await readServerTarget(argv, io, {
    name: "login",
    help: LOGIN_HELP,
    flags: { open: "boolean" },
    signIn: true,
  });
  if (typeof target === "number") return target;
  const screen = new Screen(io);
  let listener: CallbackListener;
  try {
    listener = await listenForCallback(callbackPort(target.policy));
  } catch (error) {
    screen.error(
      `sluice login: cannot listen on 127.0.0.1 for the browser to come back (${
        describeFailure(error)
      }), expected a free port on loopback`,
    );
    return CANNOT_LISTEN;
  }
  const file = openTokenFile(io);
  const { policy } = target;
  const client = createClient({
    name: "sluice",
    policies: [policy],
    signIn: { tokens: file.tokens, redirectUri: listener.redirectUri },
  });
  try {
    const login: Login = { io, screen, policy, client, listener, file, open: target.args.flags.has("open") };
    const started = await start(login);
    const code = typeof started === "number" ? started : await finish(login, started);
    if (code === CALL_EXIT.interrupted) screen.error("sluice login: interrupted, not signed in");
    return code;
  } finally {
    await listener.close();
    await client.close();
  }
}

/**
 * The port a server's logins ask for first: one of 20000–32767 (below ephemeral ports) fixed by its id
 * and URL, so each login has the same redirect URI and signs in as the client registered under it.
 * A kept registration is never tried on another port: RFC 8252 §7.3 has authorization servers
 * allow any loopback port, but one that does not would show an error page sluice never sees.
 *
 * @param policy The server's policy.
 * @returns The port.
 */
function callbackPort(policy: CompiledPolicy): number {
  let hash = 0;
  const { server, transport } = policy;
  for (const char of `${server}|${transport.kind === "http" ? transport.url : ""}`) {
    hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
  }
  return 20000 + (hash % 12768);
}

/**
 * Starts the sign-in and shows its URL (opening it with `--open`).
 *
 * @returns The authorization URL and when it expires (ms since the epoch), or the exit code when
 *   it did not start.
 */
async function start(login: Login): Promise<Started | number> {
  const { screen, policy, io } = login;
  let started: Started;
  try {
    const begun = await untilAborted(login.client.beginAuthorization(policy.server), io.signal);
    if (begun === undefined) return CALL_EXIT.interrupted;
    started = begun;
  } catch (error) {
    if (io.signal?.aborted === true) return CALL_EXIT.interrupted;
    screen.error(`sluice login: ${describeFailure(error)}`);
    return exitCodeOf(error, false);
  }
  const shown = shownAuthorizationUrl(policy, started.url);
  if (typeof shown === "string") {
    screen.error(`sluice login: ${shown}`);
    return CALL_EXIT.refused;
  }
  screen.line(screen.style.bold(`Sign in to "${policy.server}" in your browser:`));
  printUrl(screen, shown);
  const minutes = Math.max(1, Math.round((started.expiresAt - Date.now()) / 60_000));
  const waiting =
    `waiting for the browser at ${login.listener.redirectUri} for ${minutes} minutes (Ctrl-C cancels)`;
  if (!login.open) {
    screen.line(`Open the URL yourself (or run with --open); ${waiting}`);
    return started;
  }
  const opening = openInBrowser(shown.url);
  screen.line(`Opening it with ${opening.opener}; ${waiting}`);
  void opening.failed.then((reason) => {
    if (reason !== undefined) {
      screen.error(`sluice login: ${opening.opener} did not start (${reason}): open the URL yourself`);
    }
  });
  return started;
}

/**
 * Waits for the browser, finishes the sign-in, answers the browser and says how it went.
 *
 * @returns The exit code.
 */
async function finish(login: Login, started: Started): Promise<number> {
  const { screen, policy, io } = login;
  const state = new URL(started.url).searchParams.get("state") ?? "";
  const callback = await waitForBrowser(login.listener.arrival(state), started.expiresAt, io.signal);
  if (callback === "interrupted") return CALL_EXIT.interrupted;
  if (callback === "expired") {
    screen.error(
      `sluice login: no browser came back to ${login.listener.redirectUri} in time, ` +
        `expected one within 10 minutes; run "sluice login ${policy.server}" again`,
    );
    return CALL_EXIT.failed;
  }
  const server = escapeHtml(policy.server);
  try {
    // Ctrl-C stops the code exchange: an authorization server slow to answer holds no one.
    await login.client.completeAuthorization(
      policy.server,
      callback.url,
      io.signal === undefined ? {} : { signal: io.signal },
    );
  } catch (error) {
    const reason = error instanceof Error ? sanitizeText(error.message, 2000) : "it failed";
    await callback.answer(
      400,
      page(
        "sluice: sign-in failed",
        `The sign-in to <b>${server}</b> failed: ${escapeHtml(reason)}. ` +
          `Run <code>sluice login ${server}</code> again.`,
      ),
    );
    if (io.signal?.aborted === true) return CALL_EXIT.interrupted;
    screen.error(`sluice login: ${describeFailure(error)}`);
    return exitCodeOf(error, false);
  }
  await callback.answer(
    200,
    page("sluice: signed in", `Signed in to <b>${server}</b>. You can close this tab.`),
  );
  screen.line(`Signed in to "${policy.server}"; tokens saved in ${JSON.stringify(login.file.path)}`);
  return CALL_EXIT.ok;
}

/** The first of: the browser's arrival, the sign-in's expiry, the command's interruption. */
async function waitForBrowser(
  arrived: Promise<ArrivedCallback>,
  expiresAt: number,
  signal: AbortSignal | undefined,
): Promise<ArrivedCallback | "expired" | "interrupted"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), Math.max(0, expiresAt - Date.now()));
  });
  try {
    return await untilAborted(Promise.race([arrived, expired]), signal) ?? "interrupted";
  } finally {
    clearTimeout(timer);
  }
}

/** The page the browser is answered with. */
function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><meta charset="utf-8"><title>${title}</title>\n` +
    `<body>\n<p>${body}</p>\n</body></html>\n`;
}

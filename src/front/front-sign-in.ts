/**
 * Upstream sign-in through the gateway, per caller. An upstream whose policy has
 * `transport.auth.oauth` is reached with its caller's own tokens (kept under the caller's principal,
 * so alice's are never sent for bob). When the caller has none, the call ends with a URL elicitation
 * to the gateway's start page, `/oauth/start/<state>`; the person confirms whose sign-in it is and
 * signs in at the authorization server, which sends the browser to `/oauth/callback`; the gateway
 * exchanges the code and stores the tokens; the caller's retry goes through.
 *
 * A flow lives in the client's token store under its `state`, single-use, so any instance sharing
 * the store can take the callback. The start page binds the flow to the browser that confirmed it
 * (an HttpOnly cookie, checked at the callback). Who that browser's user is the gateway cannot tell
 * by itself; with {@linkcode SignInUser} (the front's `signInUser`) the pages and the callback refuse
 * anyone but the flow's caller (the spec's URL-elicitation phishing rule: the user who completes the
 * sign-in must be the one who started it). The gateway serves its Client ID Metadata Document at
 * `/oauth/client-metadata.json`, used as its client id where an authorization server supports them
 * (https deployments).
 *
 * @module
 */
import type { Hono } from "hono";
import { getCookie } from "hono/cookie";
import type { ClientInternals } from "../client/client-internals.ts";
import type { Fetcher } from "../transport/fetch-with-redirects.ts";
import { flowKey, type PendingFlow, takeFlow } from "../auth/authorization-code.ts";
import { SignInRequiredError, UpstreamAuthError } from "../upstream-auth-error.ts";
import type { Principal } from "../handler/handler.ts";
import { principalKey } from "./principal.ts";
import { codecs } from "../_internal/encoding.ts";
import { sha256 } from "../_internal/sha256.ts";
import { escapeHtml } from "../_internal/html.ts";

/**
 * Tells who the person in a browser is: the subject the gateway's `auth` gives that same person as
 * a caller (`principal.subject`), or `undefined` when the browser's user is not known. The gateway
 * cannot see a browser's caller credential (it stays in the MCP client), so only the operator can
 * say this: from a header an SSO reverse proxy or Cloudflare Access sets (and the gateway is
 * reachable only through it), or a session cookie of the operator's own site. Throwing answers
 * the request `500`.
 *
 * @param request The browser's request to the sign-in page or the callback.
 * @returns The browser user's subject, or `undefined`.
 */
export type SignInUser = (request: Request) => string | undefined | Promise<string | undefined>;

/** The gateway's sign-in pages and the fetch of each caller. */
export interface FrontSignIn {
  /**
   * The fetch a caller's requests to a server go through, when the server signs in per person
   * (`transport.auth.oauth`); `undefined` otherwise (the client's own fetch serves every caller).
   *
   * @param serverId The server.
   * @param principal The caller.
   * @param origin The origin the caller reached the gateway at (the public URL wins).
   */
  fetchFor(serverId: string, principal: Principal | undefined, origin: string): Fetcher | undefined;
  /** Serves `/oauth/start/:state`, `/oauth/callback` and `/oauth/client-metadata.json`. */
  mount(app: Hono): void;
}

const START = "/oauth/start/";
const CALLBACK = "/oauth/callback";
const METADATA = "/oauth/client-metadata.json";

/**
 * Creates the gateway's sign-in.
 *
 * @param internals The client's internals (its sign-ins and token store).
 * @param options The client's name, the gateway's public base, and who a browser's user is, when
 *   set.
 * @returns The sign-in.
 */
export function createFrontSignIn(
  internals: ClientInternals,
  options: {
    readonly clientName: string;
    readonly publicBase: string | undefined;
    readonly signInUser: SignInUser | undefined;
  },
): FrontSignIn {
  const baseOf = (origin: string) => options.publicBase ?? origin;
  const { tokens } = internals;
  const { signInUser } = options;

  // Without signInUser nothing is known of the browser: the first to confirm binds the flow.
  const notTheCaller = async (request: Request, flow: PendingFlow): Promise<Response | undefined> => {
    if (signInUser === undefined) return undefined;
    const user: unknown = await signInUser(request);
    if (user === flow.principal) return undefined;
    return wrongUser(typeof user === "string" ? user : undefined, flow.principal);
  };

  const fetchFor = (serverId: string, principal: Principal | undefined, origin: string) => {
    const signIn = internals.signIn(serverId);
    if (signIn === undefined || signIn.kind !== "authorization_code") return undefined;
    const base = baseOf(origin);
    return signIn.fetcher(principalKey(principal), {
      redirectUri: `${base}${CALLBACK}`,
      // Only an authorization server that can fetch the document may take it as a client id.
      clientMetadataUrl: base.startsWith("https://") ? `${base}${METADATA}` : undefined,
      // The call ends here; the person signs in on the gateway's page (the flow is stored).
      authorize: (request) => {
        throw new SignInRequiredError({ ...request, url: `${base}${START}${request.state}` });
      },
    });
  };

  const mount = (app: Hono) => {
    app.get(METADATA, (c) => {
      const base = baseOf(new URL(c.req.url).origin);
      return c.json(
        {
          client_id: `${base}${METADATA}`,
          client_name: options.clientName,
          client_uri: base,
          redirect_uris: [`${base}${CALLBACK}`],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
          application_type: "web",
        },
        200,
        { "cache-control": "public, max-age=3600" },
      );
    });

    app.get(`${START}:state`, async (c) => {
      const flow = await flowOf(c.req.param("state"));
      if (flow === undefined) return page(404, "Sign-in link expired", EXPIRED);
      const refusal = await notTheCaller(c.req.raw, flow);
      if (refusal !== undefined) return refusal;
      const who = flow.principal === "" ? "" : ` as gateway caller <b>${escapeHtml(flow.principal)}</b>`;
      const host = new URL(flow.authorizationUrl).host;
      return page(
        200,
        `Sign in to ${flow.server}`,
        `<p>Sign in to the MCP server <b>${escapeHtml(flow.server)}</b>${who}.</p>
<p>You will be sent to <b>${
          escapeHtml(host)
        }</b>. Continue only if you asked for this sign-in: whoever it was started for uses what you sign in to.</p>
<form method="post"><button type="submit">Continue to ${escapeHtml(host)}</button></form>`,
      );
    });

    app.post(`${START}:state`, async (c) => {
      const state = c.req.param("state");
      const flow = await flowOf(state);
      if (flow === undefined) return page(404, "Sign-in link expired", EXPIRED);
      // Before the claim: the flow stays open for the caller's own browser.
      const refusal = await notTheCaller(c.req.raw, flow);
      if (refusal !== undefined) return refusal;
      const ttlMs = flow.expiresAt - internals.clock.now();
      if (!(await tokens.claim(`start|${state}`, Math.max(1, ttlMs)))) {
        return page(
          409,
          "Sign-in already started",
          "<p>This sign-in was already started in a browser. Retry the call in your client for a new link.</p>",
        );
      }
      const secret = codecs.toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
      await tokens.set(browserKey(state), await digest(secret), Math.max(1, ttlMs));
      const secure = baseOf(new URL(c.req.url).origin).startsWith("https://");
      return new Response(null, {
        status: 303,
        headers: {
          location: flow.authorizationUrl,
          "set-cookie": `${await cookieOf(state)}=${secret}; Path=${CALLBACK}; Max-Age=${
            Math.ceil(ttlMs / 1000)
          }; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
        },
      });
    });

    app.get(CALLBACK, async (c) => {
      const received = new URL(c.req.url);
      // Behind a proxy the request's own URL may differ from the registered redirect URI.
      const callback = new URL(`${received.pathname}${received.search}`, baseOf(received.origin));
      const state = callback.searchParams.get("state") ?? "";
      const flow = signInUser === undefined || state === "" ? undefined : await flowOf(state);
      const refusal = flow === undefined ? undefined : await notTheCaller(c.req.raw, flow);
      if (refusal !== undefined) return refusal;
      const bound = state === "" ? undefined : await tokens.get(browserKey(state));
      const cookieName = await cookieOf(state);
      const cookie = getCookie(c, cookieName);
      if (bound === undefined || cookie === undefined || bound !== await digest(cookie)) {
        return page(
          400,
          "Sign-in not completed",
          "<p>This sign-in was not started in this browser (or it expired). Retry the call in your client for a new link, and open it in this browser.</p>",
        );
      }
      const clear = { "set-cookie": `${cookieName}=; Path=${CALLBACK}; Max-Age=0; HttpOnly; SameSite=Lax` };
      try {
        const flow = await takeFlow(tokens, callback);
        await tokens.delete(browserKey(state));
        const signIn = internals.signIn(flow.server);
        if (signIn === undefined) {
          throw new UpstreamAuthError(`the server "${flow.server}" no longer signs in`);
        }
        // A browser that leaves stops the code exchange (an authorization server that never
        // answers is given up by the sign-in's own deadline).
        await signIn.complete(flow, callback, { signal: c.req.raw.signal });
        return page(
          200,
          `Signed in to ${flow.server}`,
          `<p>You are signed in to <b>${
            escapeHtml(flow.server)
          }</b>. Close this tab and retry in your client.</p>`,
          clear,
        );
      } catch (error) {
        const message = error instanceof UpstreamAuthError
          ? error.message
          : "the sign-in could not be completed";
        return page(
          400,
          "Sign-in failed",
          `<p>${escapeHtml(message)}.</p><p>Retry the call in your client for a new link.</p>`,
          clear,
        );
      }
    });
  };

  const flowOf = async (state: string): Promise<PendingFlow | undefined> => {
    const text = await tokens.get(flowKey(state));
    if (text === undefined) return undefined;
    const flow = JSON.parse(text) as PendingFlow;
    return internals.clock.now() < flow.expiresAt ? flow : undefined;
  };

  return { fetchFor, mount };
}

const EXPIRED =
  "<p>This sign-in link is unknown or has expired (links last 10 minutes). Retry the call in your client for a new one.</p>";

/**
 * The page for a browser whose user is not the caller a sign-in was started for: `403`.
 *
 * @param user The browser's user, as `signInUser` told, if known.
 * @param principal The caller the sign-in is for.
 * @returns The page.
 */
function wrongUser(user: string | undefined, principal: string): Response {
  const caller = escapeHtml(JSON.stringify(principal));
  const seen = user === undefined
    ? "This browser's user is not known to the gateway"
    : `This browser is signed in as ${escapeHtml(JSON.stringify(user))}`;
  return page(
    403,
    "Not your sign-in",
    `<p>${seen}: expected gateway caller ${caller}, whose sign-in this is.</p>
<p>Only ${caller} can complete it, in their own browser; the link still works for them. If someone sent you this link, do not sign in for them.</p>`,
  );
}

function browserKey(state: string): string {
  return `browser|${state}`;
}

/**
 * The cookie that binds one flow to its browser: named after the flow, so a browser with several
 * sign-ins pending (one per server) completes each, in any order.
 */
async function cookieOf(state: string): Promise<string> {
  return `sluice_sign_in_${(await digest(state)).slice(0, 32)}`;
}

function page(status: number, title: string, body: string, headers: Record<string, string> = {}): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${
      escapeHtml(title)
    }</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    {
      status,
      headers: {
        ...headers,
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
      },
    },
  );
}

async function digest(text: string): Promise<string> {
  return codecs.toHex(await sha256(text));
}

/**
 * DPoP (RFC 9449): sender-constrained tokens, for servers that ask for them. Each grant has its own
 * ES256 key pair, kept with its tokens; token requests carry oauth4webapi's proofs, and each request
 * to the MCP server a fresh proof signed here with jose, since oauth4webapi makes those only inside
 * its own request function, which would take the transport's redirects and streaming away.
 *
 * @module
 */
import { SignJWT } from "jose";
import * as oauth from "oauth4webapi";
import { codecs } from "../_internal/encoding.ts";
import { sha256 } from "../_internal/sha256.ts";

/** A grant's DPoP key pair, as kept in the token store. */
export interface DpopKey {
  readonly publicJwk: JsonWebKey;
  readonly privateJwk: JsonWebKey;
}

/** The one algorithm sluice signs proofs with. */
const DPOP_ALGORITHM = "ES256";
/** ES256's key algorithm. */
const P256 = { name: "ECDSA", namedCurve: "P-256" };

/**
 * Makes a key pair for a new grant.
 *
 * @returns Its JWKs (the private one stays in the token store).
 */
export async function newDpopKey(): Promise<DpopKey> {
  const pair = await crypto.subtle.generateKey(P256, true, ["sign", "verify"]);
  const { kty = "EC", crv = "P-256", x = "", y = "" } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { publicJwk: { kty, crv, x, y }, privateJwk: await crypto.subtle.exportKey("jwk", pair.privateKey) };
}

/**
 * Whether an authorization server can bind tokens with sluice's algorithm.
 *
 * @param as Its metadata.
 * @returns Whether it lists ES256 in `dpop_signing_alg_values_supported`.
 */
export function supportsDpop(as: oauth.AuthorizationServer): boolean {
  return as.dpop_signing_alg_values_supported?.includes(DPOP_ALGORITHM) === true;
}

/**
 * Runs a grant's token request with its DPoP option, once more when the authorization server asks for
 * a DPoP nonce (the handle learnt it from the first answer).
 *
 * @param client The client.
 * @param key The grant's key pair, if its tokens are bound.
 * @param request Sends the request with the option (`{ DPoP }` or `{}`) and processes its response.
 * @returns What it returned.
 */
export async function withDpop<T>(
  client: oauth.Client,
  key: DpopKey | undefined,
  request: (dpop: { DPoP?: oauth.DPoPHandle }) => Promise<T>,
): Promise<T> {
  let dpop: { DPoP?: oauth.DPoPHandle } = {};
  if (key !== undefined) {
    const publicKey = await crypto.subtle.importKey("jwk", key.publicJwk, P256, true, ["verify"]);
    dpop = { DPoP: oauth.DPoP(client, { privateKey: await signingKey(key), publicKey }) };
  }
  try {
    return await request(dpop);
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return await request(dpop);
  }
}

/** Imported signing keys, per grant key object (a grant kept in memory signs without importing again). */
const SIGNING_KEYS = new WeakMap<DpopKey, CryptoKey>();

async function signingKey(key: DpopKey): Promise<CryptoKey> {
  let signing = SIGNING_KEYS.get(key);
  if (signing === undefined) {
    signing = await crypto.subtle.importKey("jwk", key.privateJwk, P256, false, ["sign"]);
    SIGNING_KEYS.set(key, signing);
  }
  return signing;
}

/**
 * A proof for one request to the MCP server.
 *
 * @param key The grant's key pair.
 * @param method The HTTP method.
 * @param url The request's URL (its query and fragment are left out of `htu`).
 * @param accessToken The token the request carries (`ath`).
 * @param nonce The server's last `DPoP-Nonce`, if any.
 * @returns The proof JWT.
 */
export async function resourceProof(
  key: DpopKey,
  method: string,
  url: string,
  accessToken: string,
  nonce: string | undefined,
): Promise<string> {
  const target = new URL(url);
  const hash = await sha256(accessToken);
  return await new SignJWT({
    htm: method,
    htu: `${target.origin}${target.pathname}`,
    ath: codecs.toBase64Url(hash),
    ...(nonce === undefined ? {} : { nonce }),
  })
    .setProtectedHeader({
      alg: DPOP_ALGORITHM,
      typ: "dpop+jwt",
      jwk: key.publicJwk as Record<string, string>,
    })
    .setIssuedAt()
    .setJti(codecs.toBase64Url(crypto.getRandomValues(new Uint8Array(16))))
    .sign(await signingKey(key));
}

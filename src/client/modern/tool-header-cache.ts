/**
 * What the client knows of one server's tools for the `Mcp-Param-*` headers: each tool's compiled
 * `x-mcp-header` rules, learned from `tools/list` (every page) before the first call to a tool not known yet,
 * also from the pages the caller lists, and refreshed when the server answers `-32020`. A tool whose
 * annotations are invalid cannot be called: the spec requires clients to exclude such tools.
 *
 * The first listing is shared by the calls waiting for it, so it runs under its own signal and stops when the
 * last waiting call stops, or on {@linkcode ToolHeaderCache.close}. Listings may run at once and be answered
 * in any order, so each is numbered as it starts, and a tool's rules are what the listing started last said.
 *
 * @module
 */
import { ClientError } from "../../errors.ts";
import { abortError, invalidResult } from "./failure-errors.ts";
import { awaitShared, joinable, sharedWork } from "../../_internal/signals.ts";
import type { Fetcher } from "../../transport/fetch-with-redirects.ts";
import type { JsonObject } from "../../protocol/jsonrpc.ts";
import { readToolsPage, type Tool } from "../../protocol/tools.ts";
import {
  type CompiledToolHeaders,
  compileToolHeaders,
  type ToolHeader,
  toolParamHeaders,
} from "./tool-headers.ts";

/** Lists one page of tools (the session's `tools/list` request). */
export type ListPage = (
  params: JsonObject,
  signal: AbortSignal,
  fetch: Fetcher | undefined,
) => Promise<JsonObject>;

/** The most pages read to learn a server's tools. */
const MAX_PAGES = 100;

/** One tool's compiled rules, and the number of the listing that said so. */
interface Known {
  readonly compiled: CompiledToolHeaders;
  readonly listing: number;
}

/** One server's tool header rules. */
export class ToolHeaderCache {
  readonly #serverId: string;
  readonly #list: ListPage;
  #known = new Map<string, Known>();
  /** How many listings have started. */
  #listings = 0;
  /** The number of the full listing `#known` holds, 0 for none (a caller's pages teach only their tools). */
  #whole = 0;
  #loading: Promise<void> | undefined;
  /** The listing's signal: shared by the calls waiting for it, so owned by none of them. */
  readonly #lifetime = new AbortController();

  /**
   * @param serverId The server, for messages.
   * @param list Sends `tools/list` for one page.
   */
  constructor(serverId: string, list: ListPage) {
    this.#serverId = serverId;
    this.#list = list;
  }

  /**
   * Starts a listing of one page the caller makes (its own `listTools`): its tools are recorded, not over
   * what a later listing said, and not taken for the whole list.
   *
   * @returns Records the page's tools once it is answered.
   */
  startListing(): (tools: readonly Tool[]) => void {
    const listing = ++this.#listings;
    return (tools) => {
      if (listing < this.#whole) return;
      for (const tool of tools) {
        if (listing > (this.#known.get(tool.name)?.listing ?? 0)) {
          this.#known.set(tool.name, { compiled: compileToolHeaders(tool), listing });
        }
      }
    };
  }

  /**
   * The `Mcp-Param-*` headers of one `tools/call`, listing every page of tools first when the
   * tool is not known and the whole list was not read yet.
   *
   * @param params The call's params (`name`, `arguments`).
   * @param signal Ends this call's wait for the listing, when one is needed.
   * @param fetch Lists with another fetch than the session's (the front's caller's sign-in).
   * @returns Header name and value pairs (often none).
   * @throws {ClientError} `"config"` with code `-32602` when the tool's annotations are invalid,
   *   or an argument does not fit its annotated type.
   */
  async paramHeadersFor(
    params: JsonObject,
    signal: AbortSignal,
    fetch?: Fetcher,
  ): Promise<Array<readonly [string, string]>> {
    if (typeof params.name !== "string") return [];
    if (!this.#settles(params.name)) await this.#load(signal, fetch);
    return this.#headersOf(params);
  }

  /**
   * {@linkcode ToolHeaderCache.paramHeadersFor} without a promise, when the tool is known already.
   *
   * @param params The call's params (`name`, `arguments`).
   * @returns Header name and value pairs, or `undefined` when the tools must be listed first.
   * @throws {ClientError} As {@linkcode ToolHeaderCache.paramHeadersFor}.
   */
  knownParamHeaders(params: JsonObject): Array<readonly [string, string]> | undefined {
    if (typeof params.name !== "string") return [];
    return this.#settles(params.name) ? this.#headersOf(params) : undefined;
  }

  /**
   * One tool's `x-mcp-header` rules, to check the headers of a call a front's caller sent; lists the tools
   * first as {@linkcode ToolHeaderCache.paramHeadersFor} does.
   *
   * @param name The tool.
   * @param signal Ends this call's wait for the listing, when one is needed.
   * @param fetch Lists with another fetch than the session's (the front's caller's sign-in).
   * @returns Its rules; none for a tool the server did not list, or whose annotations are
   *   invalid (a call to it fails on its own, see {@linkcode ToolHeaderCache.paramHeadersFor}).
   */
  async rulesFor(name: string, signal: AbortSignal, fetch?: Fetcher): Promise<readonly ToolHeader[]> {
    if (!this.#settles(name)) await this.#load(signal, fetch);
    return rulesIn(this.#known, name);
  }

  /**
   * {@linkcode ToolHeaderCache.rulesFor} without a promise, when the tool is known already.
   *
   * @param name The tool.
   * @returns Its rules, or `undefined` when the tools must be listed first.
   */
  knownRules(name: string): readonly ToolHeader[] | undefined {
    return this.#settles(name) ? rulesIn(this.#known, name) : undefined;
  }

  /**
   * Whether what is known decides a tool's rules: it is known, or the whole list was read
   * (a tool the server did not list has no headers; if it was added since, its `-32020` lists again).
   */
  #settles(name: string): boolean {
    return this.#whole > 0 || this.#known.has(name);
  }

  #headersOf(params: JsonObject): Array<readonly [string, string]> {
    const name = params.name as string;
    const compiled = this.#known.get(name)?.compiled;
    if (compiled === undefined) return [];
    if (!compiled.ok) {
      throw new ClientError(
        "config",
        `Tool "${name.slice(0, 128)}" of server "${this.#serverId}" cannot be called: ${compiled.reason}`,
        { code: -32602, serverId: this.#serverId },
      );
    }
    const headers = toolParamHeaders(compiled.headers, params.arguments ?? {});
    if ("error" in headers) {
      throw new ClientError(
        "config",
        `Tool "${name.slice(0, 128)}" of server "${this.#serverId}": ${headers.error}`,
        { code: -32602, serverId: this.#serverId },
      );
    }
    return headers;
  }

  /**
   * Forgets what is known and lists every page of tools again.
   *
   * @param signal Ends this call's wait for the listing.
   * @param fetch Lists with another fetch than the session's.
   */
  async refresh(signal: AbortSignal, fetch?: Fetcher): Promise<void> {
    this.#known = new Map();
    this.#whole = 0;
    this.#loading = undefined;
    await this.#load(signal, fetch);
  }

  /**
   * Stops a listing in progress (the session is closed); the calls waiting for it fail.
   *
   * @param reason Why.
   */
  close(reason?: unknown): void {
    this.#lifetime.abort(reason);
  }

  /** Waits under the caller's `signal` for a full listing, starting one unless the caller gave up already. */
  #load(signal: AbortSignal, fetch: Fetcher | undefined): Promise<void> {
    // A caller that gives up is told of its own tools/call, not of the listing it shares.
    const cancelled = (reason: unknown) => abortError(this.#serverId, "tools/call", reason);
    let loading = joinable(this.#loading);
    if (loading === undefined) {
      if (signal.aborted) return Promise.reject(cancelled(signal.reason));
      // The first caller's fetch lists for all of them (the front's caller's sign-in).
      const work = sharedWork(this.#lifetime.signal);
      const listing = ++this.#listings;
      const started = work.share(
        this.#listAll(work.signal, fetch, listing).then(
          (known) => {
            // A full listing started later was kept already; a page listed since keeps its tools.
            if (listing < this.#whole) return;
            for (const [name, entry] of this.#known) if (entry.listing > listing) known.set(name, entry);
            this.#known = known;
            this.#whole = listing;
          },
          (error: unknown) => {
            if (this.#loading === started) this.#loading = undefined;
            throw error;
          },
        ),
      );
      loading = this.#loading = started;
    }
    return awaitShared(loading, { signal, cancelled });
  }

  async #listAll(
    signal: AbortSignal,
    fetch: Fetcher | undefined,
    listing: number,
  ): Promise<Map<string, Known>> {
    const known = new Map<string, Known>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = readToolsPage(await this.#list(cursor === undefined ? {} : { cursor }, signal, fetch));
      if (!result.ok) throw invalidResult(this.#serverId, "tools/list", result.message);
      for (const tool of result.value.page.tools) {
        known.set(tool.name, { compiled: compileToolHeaders(tool), listing });
      }
      // Listed, but not as a tool can be: called, it is refused, not sent without its headers.
      for (const { name, reason } of result.value.invalid) {
        known.set(name, {
          compiled: { ok: false, reason: `its tools/list entry is not valid (${reason})` },
          listing,
        });
      }
      cursor = result.value.page.nextCursor;
      if (cursor === undefined) break;
    }
    return known;
  }
}

function rulesIn(known: ReadonlyMap<string, Known>, name: string): readonly ToolHeader[] {
  const compiled = known.get(name)?.compiled;
  return compiled?.ok === true ? compiled.headers : [];
}

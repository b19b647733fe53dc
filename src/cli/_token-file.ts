/// <reference types="node" />
/**
 * The command line's token file: where `sluice login` saves a server's tokens and `sluice call`
 * and `sluice logout` find them (`$SLUICE_TOKEN_FILE`, else `$XDG_CONFIG_HOME/sluice/tokens.json`,
 * else `~/.config/sluice/tokens.json`), readable by its owner only.
 *
 * @module
 */
import { resolve } from "node:path";
import { createFileTokenStore, defaultTokenFile } from "../auth/file-token-store.ts";
import type { TokenStore } from "../auth/token-store.ts";
import type { CliIo } from "./cli-io.ts";

/** The command line's token store and the file it lives in. */
export interface TokenFile {
  /** The file's absolute path. */
  readonly path: string;
  /** The store in it; the file is created on the first write. */
  readonly tokens: TokenStore;
}

/**
 * Opens the token file of the command's environment. A relative `$SLUICE_TOKEN_FILE` is taken
 * from the command's working directory.
 *
 * @param io The command's io (its `env` and `cwd`).
 * @returns The file's path and the store.
 */
export function openTokenFile(io: CliIo): TokenFile {
  const named = io.env["SLUICE_TOKEN_FILE"];
  const path = named !== undefined && named !== "" ? resolve(io.cwd ?? ".", named) : defaultTokenFile(io.env);
  return { path, tokens: createFileTokenStore({ path }) };
}

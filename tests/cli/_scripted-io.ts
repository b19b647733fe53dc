// A scripted CliIo for driving `main()` in tests: stdin yields the given lines (each its own
// chunk, as bytes) and then ends; stdout and stderr are collected as text.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { type CliIo, main } from "../../src/cli/mod.ts";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";

/** A scripted io and what the command wrote. */
export interface Scripted {
  readonly io: CliIo;
  stdout(): string;
  stderr(): string;
}

/** Options of {@linkcode scriptedIo}. */
export interface ScriptOptions {
  readonly env?: Record<string, string | undefined>;
  readonly isTTY?: boolean;
  readonly stdinIsTTY?: boolean;
  readonly stderrIsTTY?: boolean;
  readonly cwd?: string;
  readonly signal?: AbortSignal;
}

/**
 * Builds an io whose stdin answers `lines` in order, then ends.
 *
 * @param lines The answers, one per prompt.
 * @param options Environment, terminal flags, working directory and signal.
 * @returns The io and the collected output.
 */
export function scriptedIo(lines: readonly string[] = [], options: ScriptOptions = {}): Scripted {
  let out = "";
  let err = "";
  const encoder = new TextEncoder();
  async function* stdin(): AsyncGenerator<Uint8Array> {
    for (const line of lines) yield encoder.encode(`${line}\n`);
  }
  const io: CliIo = {
    stdin: stdin(),
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: options.env ?? {},
    isTTY: options.isTTY ?? false,
    ...(options.stdinIsTTY === undefined ? {} : { stdinIsTTY: options.stdinIsTTY }),
    ...(options.stderrIsTTY === undefined ? {} : { stderrIsTTY: options.stderrIsTTY }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  return { io, stdout: () => out, stderr: () => err };
}

/** A temporary folder holding the given files; `remove()` deletes it. */
export interface TempDir {
  readonly path: string;
  remove(): void;
}

/**
 * Writes files into a fresh temporary folder.
 *
 * @param files File names and contents.
 * @returns The folder (its real path, symlinks resolved).
 */
export function tempDir(files: Readonly<Record<string, string>> = {}): TempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), "sluice-cli-")));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * A policy file (JSON) for a server at `url`.
 *
 * @param server The server id.
 * @param url The MCP endpoint.
 * @param extra More options.
 * @returns The file's text.
 */
export function policyJson(server: string, url: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ server, transport: { url }, era: "modern", ...extra });
}

/** The result of one `sluice call` run through main(). */
export interface CallRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Registers `before`/`after` hooks that start the real modern peer and a policy folder with three
 * servers on it (`modern`; `nosampling` without sampling; `strict` with `maxTokens: 100` and
 * `evil.example.com` denied), and returns a function that runs `sluice call` against them.
 *
 * @returns `call(argv, lines, options)`, which runs `main(["call", ...argv, "--policies", folder])`
 *   with a scripted terminal; `folder()`, the policy folder's path; `peerUrl()`, the peer's endpoint.
 */
export function modernCallFixture(): {
  call(argv: string[], lines?: string[], options?: ScriptOptions): Promise<CallRun>;
  folder(): string;
  peerUrl(): string;
} {
  let peer: ModernPeer;
  let dir: TempDir;
  before(async () => {
    peer = await startModernPeer();
    dir = tempDir({
      "modern.policy.json": policyJson("modern", peer.url),
      "nosampling.policy.json": policyJson("nosampling", peer.url, { sampling: false }),
      "strict.policy.json": policyJson("strict", peer.url, {
        sampling: { maxTokens: 100 },
        elicitation: { denyHosts: ["evil.example.com"] },
      }),
    });
  });
  after(async () => {
    await peer?.stop();
    dir?.remove();
  });
  return {
    async call(argv, lines = [], options = {}) {
      const scripted = scriptedIo(lines, options);
      const code = await main(["call", ...argv, "--policies", dir.path], scripted.io);
      return { code, stdout: scripted.stdout(), stderr: scripted.stderr() };
    },
    folder: () => dir.path,
    peerUrl: () => peer.url,
  };
}

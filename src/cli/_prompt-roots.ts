/// <reference types="node" />
/**
 * A roots request at the terminal: offers the working directory as a `file://` root after a y/n
 * question; n answers with no roots, and so does a folder the roots check would drop, saying so.
 * Stdin closing fails the request.
 *
 * @module
 */
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import type { HandlerError, InputContext } from "../handler/handler.ts";
import type { ListRootsResult } from "../protocol/roots.ts";
import type { Prompter } from "./_prompt-input.ts";
import { normaliseFileUri } from "../checks/roots-answer.ts";

/**
 * Asks whether to share the working directory.
 *
 * @param prompter The terminal.
 * @param request The context, the folder to offer, and the call's round of input.
 * @returns The folder as the one root, or no roots; an error when stdin closed.
 */
export async function promptRoots(
  prompter: Prompter,
  request: { ctx: InputContext; cwd: string; round: number },
): Promise<ListRootsResult | HandlerError> {
  const { screen } = prompter;
  const given = pathToFileURL(request.cwd).href;
  // As the roots check will send it; a folder it would drop is not offered.
  const uri = normaliseFileUri(given);
  const round = request.round > 1 ? ` (round ${request.round})` : "";
  screen.line(
    screen.style.bold(
      `Server "${request.ctx.serverId}" asks for its roots (the folders it may use)${round}.`,
    ),
  );
  if (uri === undefined) {
    screen.line(
      `Sharing no roots: the current folder ${given} cannot be sent as a root (its path holds a ` +
        "backslash, which a server may read as a folder separator).",
    );
    return { roots: [] };
  }
  screen.line(`Share the current folder ${uri}? y or n`);
  for (;;) {
    const answer = await prompter.ask(request.ctx.signal);
    if (answer.kind === "end") {
      return prompter.noteStdinClosed(`the roots request of server "${request.ctx.serverId}"`, request.ctx);
    }
    if (answer.kind === "aborted") return { roots: [] };
    const text = answer.text.trim().toLowerCase();
    if (text === "y" || text === "yes") return { roots: [{ uri, name: basename(request.cwd) }] };
    if (text === "n" || text === "no" || text === ":decline" || text === ":cancel") {
      screen.line("Sharing no roots.");
      return { roots: [] };
    }
    screen.line("  invalid: answer y or n");
  }
}

/**
 * The command's screen: lines, prompts, a progress line redrawn in place on a terminal, ANSI styles,
 * and server text made safe to show (no control, escape or bidi characters).
 *
 * @module
 */
import { sanitizeText } from "../notify/sanitize-text.ts";
import type { CliIo, CliWriter } from "./cli-io.ts";

/** ANSI styles, or plain text when colours are off. */
export interface Style {
  /** A heading. */
  bold(text: string): string;
  /** The host of a URL: bold yellow. */
  host(text: string): string;
  /** A warning label: bold red. */
  warn(text: string): string;
}

/**
 * Server text as lines safe for a terminal: split at line breaks, each cleaned by `sanitizeText`
 * and clamped.
 *
 * @param text Any value; non-strings are rendered as JSON.
 * @param max The most characters kept per line.
 * @returns The lines.
 */
export function safeLines(text: unknown, max = 4096): string[] {
  const value = typeof text === "string" ? text : sanitizeText(text, max);
  return value.split(/\r\n|\r|\n/).map((line) => sanitizeText(line, max));
}

/**
 * One line of server text, safe for a terminal.
 *
 * @param text Any value.
 * @param max The most characters kept.
 * @returns The cleaned text.
 */
export function safeLine(text: unknown, max = 300): string {
  return sanitizeText(text, max);
}

/** Writes to stdout and stderr, closing an open progress line first. */
export class Screen {
  /** The command's io. */
  readonly io: CliIo;
  /** Its styles: colours only when its output is a terminal and `NO_COLOR` is unset or empty. */
  readonly style: Style;
  /** Whether its output (stdout, or stderr) is a terminal. */
  readonly tty: boolean;
  readonly #out: CliWriter;
  #progressOpen = false;
  /** Whether a prompt waits for its answer, and the latest progress held back meanwhile. */
  #prompting = false;
  #heldProgress: string | undefined;

  /**
   * Creates the screen.
   *
   * @param io The command's io.
   * @param options `stdout: false` sends lines, prompts and progress to stderr, leaving stdout to
   *   what the command writes to `io.stdout` itself (`sluice call --json`'s result).
   */
  constructor(io: CliIo, options: { readonly stdout?: boolean } = {}) {
    this.io = io;
    this.#out = options.stdout === false ? io.stderr : io.stdout;
    this.tty = options.stdout === false ? io.stderrIsTTY ?? io.isTTY : io.isTTY;
    const on = this.tty && (io.env["NO_COLOR"] ?? "") === "";
    const wrap = (code: string) => (text: string) => on ? `\x1b[${code}m${text}\x1b[0m` : text;
    this.style = { bold: wrap("1"), host: wrap("1;33"), warn: wrap("1;31") };
  }

  /**
   * Writes one line (a newline is added).
   *
   * @param text The line.
   */
  line(text = ""): void {
    this.write(`${text}\n`);
  }

  /**
   * Writes text as it is (a prompt, before an answer).
   *
   * @param text The text.
   */
  write(text: string): void {
    this.end();
    this.#out.write(text);
  }

  /**
   * Writes one line to stderr.
   *
   * @param text The line.
   */
  error(text: string): void {
    this.end();
    this.io.stderr.write(`${text}\n`);
  }

  /**
   * Writes a prompt (`> `). Progress until {@linkcode answered} is held back, the latest kept: drawn
   * in place it would overwrite what is typed, and as a line split the answer from its prompt.
   *
   * @param text The prompt.
   */
  prompt(text: string): void {
    this.write(text);
    this.#prompting = true;
  }

  /** Ends the prompt's wait, and shows the progress held back meanwhile, if any. */
  answered(): void {
    this.#prompting = false;
    const held = this.#heldProgress;
    this.#heldProgress = undefined;
    if (held !== undefined) this.progress(held);
  }

  /**
   * Shows progress: redrawn in place on a terminal, one line each otherwise; held back while a
   * prompt waits (see {@linkcode prompt}).
   *
   * @param text The progress line.
   */
  progress(text: string): void {
    if (this.#prompting) {
      this.#heldProgress = text;
      return;
    }
    if (!this.tty) return this.line(text);
    this.#out.write(`\r${text}\x1b[K`);
    this.#progressOpen = true;
  }

  /** Ends an open progress line. */
  end(): void {
    if (!this.#progressOpen) return;
    this.#progressOpen = false;
    this.#out.write("\n");
  }
}

/**
 * Reading answers at the terminal: a line reader over any byte or text stream, a prompt that gives
 * up when its request's signal fires without losing the line being typed, and a lock so that input
 * requests answered in parallel ask one at a time.
 *
 * @module
 */
import type { HandlerError, InputContext } from "../handler/handler.ts";
import type { Screen } from "./_terminal.ts";
import { quote } from "../_internal/quote.ts";

/** What a prompt got: a line, the end of input, or its request's signal firing first. */
export type PromptAnswer =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "end" }
  | { readonly kind: "aborted" };

type Chunk = Uint8Array | string;

/** Reads lines from a stream, one per call; a read abandoned on abort leaves its line for the next. */
export class LineReader {
  readonly #source: AsyncIterable<Chunk>;
  readonly #decoder = new TextDecoder();
  #iterator: AsyncIterator<Chunk> | undefined;
  #pending: Promise<IteratorResult<Chunk>> | undefined;
  #buffer = "";
  #ended = false;

  /**
   * Wraps a stream; nothing is read before the first {@linkcode read}.
   *
   * @param source The stream (`process.stdin`, or a test's lines).
   */
  constructor(source: AsyncIterable<Chunk>) {
    this.#source = source;
  }

  /**
   * Reads the next line, without its line break.
   *
   * @param signal Gives up waiting when it fires.
   * @returns The line, the end of input, or `aborted`.
   */
  async read(signal?: AbortSignal): Promise<PromptAnswer> {
    for (;;) {
      const newline = this.#buffer.indexOf("\n");
      if (newline >= 0) {
        const text = this.#buffer.slice(0, newline).replace(/\r$/, "");
        this.#buffer = this.#buffer.slice(newline + 1);
        return { kind: "line", text };
      }
      if (this.#ended) {
        if (this.#buffer === "") return { kind: "end" };
        const text = this.#buffer;
        this.#buffer = "";
        return { kind: "line", text };
      }
      if (signal?.aborted === true) return { kind: "aborted" };
      this.#iterator ??= this.#source[Symbol.asyncIterator]();
      this.#pending ??= this.#iterator.next();
      const next = await untilAborted(this.#pending, signal);
      if (next === undefined) return { kind: "aborted" };
      this.#pending = undefined;
      if (next.done === true) {
        this.#ended = true;
        this.#buffer += this.#decoder.decode();
      } else {
        const chunk = next.value;
        this.#buffer += typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
      }
    }
  }

  /** Stops reading the stream. */
  close(): void {
    const iterator = this.#iterator;
    this.#iterator = undefined;
    void iterator?.return?.()?.catch(() => {});
  }
}

/** Asks questions on the screen and reads the answers. */
export class Prompter {
  /** Where questions are written. */
  readonly screen: Screen;
  readonly #reader: LineReader;
  readonly #echo: boolean;
  #queue: Promise<unknown> = Promise.resolve();
  #round = 0;
  #waiting = 0;
  #declined: string | undefined;
  #unanswered: string | undefined;
  #unansweredAside: string | undefined;

  /**
   * Creates the prompter.
   *
   * @param screen The screen.
   * @param reader The line reader of stdin.
   */
  constructor(screen: Screen, reader: LineReader) {
    this.screen = screen;
    this.#reader = reader;
    this.#echo = !(screen.io.stdinIsTTY ?? screen.io.isTTY);
  }

  /**
   * Writes `> ` and reads one answer, echoed when stdin is not a terminal (a transcript). A fired
   * signal prints a note and gives up.
   *
   * @param signal The request's signal.
   * @returns The answer.
   */
  async ask(signal: AbortSignal): Promise<PromptAnswer> {
    this.screen.prompt("> ");
    const answer = await this.#reader.read(signal);
    if (answer.kind === "line" && this.#echo) this.screen.write(`${answer.text}\n`);
    if (answer.kind === "end") this.screen.write("\n");
    if (answer.kind === "aborted") {
      this.screen.line();
      this.screen.line("(no longer needed: the request timed out or was cancelled)");
    }
    this.screen.answered();
    return answer;
  }

  /** What the person first declined, cancelled or refused (see `noteDeclined`), if anything. */
  get declined(): string | undefined {
    return this.#declined;
  }

  /** The first prompt of the call that found stdin closed (see `noteStdinClosed`), if any. */
  get unanswered(): string | undefined {
    return this.#unanswered;
  }

  /** As `unanswered`, for a request outside the call (a legacy server's own). */
  get unansweredAside(): string | undefined {
    return this.#unansweredAside;
  }

  /**
   * Notes that the person declined, cancelled or refused an input request; the call then exits 5.
   *
   * @param what What they did, e.g. `answered "decline" to the form of server "demo"`.
   */
  noteDeclined(what: string): void {
    this.#declined ??= what;
  }

  /**
   * Notes that stdin closed while a prompt waited, and fails the input request: nobody is left to
   * answer it, and a silent cancel would read as the person's choice. The call then exits 6 when
   * the request was part of it; else the call's own outcome decides.
   *
   * @param what The prompt, e.g. `the form of server "demo", field "Name"`.
   * @param ctx The request's context, which tells whether it is part of the call.
   * @param code The JSON-RPC code of the failure (what a legacy server receives). @default -32603
   * @returns The handler's error.
   */
  noteStdinClosed(what: string, ctx: CallTie, code = -32603): HandlerError {
    if (partOfCall(ctx)) this.#unanswered ??= what;
    else this.#unansweredAside ??= what;
    return { error: { code, message: "The operator cannot answer: stdin is closed" } };
  }

  /**
   * Waits until no question is asked or waits its turn: those queued meanwhile too.
   *
   * @returns When the last question is answered or skipped.
   */
  async settled(): Promise<void> {
    for (let queue = this.#queue;; queue = this.#queue) {
      await queue;
      if (queue === this.#queue) return;
    }
  }

  /**
   * Runs one input request's questions after the previous ones are done, telling them the call's
   * round of input; skipped when its signal has fired by then. A round's requests arrive together,
   * the next round's only once all are answered, so a request arriving while none waits opens a
   * round (the handler is not told rounds: the legacy era has none). One outside the call is round 0.
   *
   * @param ctx The request's context: its server, its signal, and whether it is part of the call.
   * @param what The request, for the note when it is skipped (`the roots request`).
   * @param questions Asks and answers.
   * @param skipped The answer when skipped.
   * @returns What `questions` returned.
   */
  exclusive<T>(ctx: CallTie, what: string, questions: (round: number) => Promise<T>, skipped: T): Promise<T> {
    const counted = partOfCall(ctx);
    if (counted && this.#waiting === 0) this.#round++;
    if (counted) this.#waiting++;
    const round = counted ? this.#round : 0;
    const turn = this.#queue.then(() => {
      if (!ctx.signal.aborted) return questions(round);
      // Never shown: the person is told, or the server's own complaint would be all they see.
      this.screen.error(
        `(${what} of server ${
          quote(ctx.serverId, 64)
        } was not asked: it timed out or was cancelled while another prompt was open)`,
      );
      return skipped;
    }).finally(() => counted && this.#waiting--);
    this.#queue = turn.catch(() => {});
    return turn;
  }
}

/** What tells whether an input request is part of the call: its era and related request. */
export type CallTie = Pick<InputContext, "serverId" | "signal" | "era" | "relatedRequestId">;

/**
 * Whether an input request is part of the call: every modern one is (it comes in the call's
 * answer); a legacy one when the server tied it to the call's request.
 */
function partOfCall(ctx: CallTie): boolean {
  return ctx.era === "modern" || ctx.relatedRequestId !== null;
}

/**
 * Waits for `work` until `signal` fires; `work` is then left to settle (a read keeps its line).
 *
 * @param work What to wait for.
 * @param signal Ends the wait.
 * @returns What `work` resolved to, or `undefined` once `signal` has fired.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * The first line of a prompt: which server asks what, with the round when it is not the first.
 *
 * @param server The server's id.
 * @param what What it asks, e.g. `asks you to fill in a form`.
 * @param round The round of input of the call (1 for the first).
 * @returns The line, ending with a colon.
 */
export function askingLine(server: string, what: string, round: number): string {
  return `Server "${server}" ${what}${round > 1 ? ` (round ${round})` : ""}:`;
}

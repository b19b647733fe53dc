/**
 * The tools both hostile legacy servers share (`hostile-stdio-server.ts` and
 * `hostile-legacy-http-server.ts`): floods of server requests and notifications, cancellations
 * for ids that were never sent, responses to requests never made. Each server supplies the wire
 * (stdio lines, or the SSE stream of the call) and hands the client's answers to {@linkcode AnswerBook}.
 *
 * @module
 */
import process from "node:process";

/** A JSON-RPC message as these servers see it (no validation: they are test peers). */
export interface Message {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

/** Where a tool writes: the stdio pipe, or the SSE stream of the call being answered. */
export interface ToolWire {
  /** Writes messages, in order, in as few writes as the transport allows. */
  send(...messages: object[]): void;
}

/** A tool: the call's arguments and wire; resolves with the data of its result. */
export type LegacyTool = (args: Record<string, unknown>, wire: ToolWire) => Promise<object>;

/** A small valid `elicitation/create` form. */
export const FORM_PARAMS = {
  message: "Confirm?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
};

/** The server requests in flight and what the client answered. */
export class AnswerBook {
  readonly #waiting = new Map<string, (answer: Message) => void>();
  #next = 0;
  /** Every response the client sent, in arrival order (late and unknown ones included). */
  readonly responses: Message[] = [];
  /** Every notification the client sent, in arrival order. */
  readonly notifications: Message[] = [];

  /** Sends requests through `wire` (one write); each promise settles with the client's answer. */
  ask(wire: ToolWire, method: string, params: object, count = 1): Promise<Message>[] {
    const messages: object[] = [];
    const answers: Promise<Message>[] = [];
    for (let i = 0; i < count; i++) {
      const id = `r${this.#next++}`;
      answers.push(new Promise((resolve) => this.#waiting.set(id, resolve)));
      messages.push({ jsonrpc: "2.0", id, method, params });
    }
    wire.send(...messages);
    return answers;
  }

  /** Takes a message the client sent that is not a request. */
  receive(message: Message): void {
    if (typeof message.method === "string") {
      this.notifications.push(message);
      return;
    }
    this.responses.push(message);
    const key = String(message.id);
    this.#waiting.get(key)?.(message);
    this.#waiting.delete(key);
  }
}

/**
 * Counts answers by outcome: `result:<action>` (or `result`), else `<code> <message>` with the
 * wait of a budget refusal written as `N`.
 */
export function tally(answers: readonly Message[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.error === undefined
      ? `result${typeof answer.result?.action === "string" ? `:${answer.result.action}` : ""}`
      : `${answer.error.code} ${String(answer.error.message).replace(/retry in \d+ ms/, "retry in N ms")}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const num = (value: unknown, fallback: number): number => typeof value === "number" ? value : fallback;
const log = (n: number) => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "warning", logger: "hostile", data: `noise ${n}` },
});

/** The shared tools, over one answer book. */
export function legacyTools(book: AnswerBook): Record<string, LegacyTool> {
  return {
    echo: (args) => Promise.resolve(args),
    pid: () => Promise.resolve({ pid: process.pid }),
    /**
     * `{count, hold, method, params, sequential}`: `count` requests of `params` (by default the form,
     * or none) in one write (with `sequential`, one at a time, each once the previous is answered);
     * once all but `hold` are answered, the notification `notifications/hostile/flood_refused
     * {answered}`; then, once all are, the tally.
     */
    async flood(args, wire) {
      const count = num(args.count, 1);
      const method = typeof args.method === "string" ? args.method : "elicitation/create";
      const params = typeof args.params === "object" && args.params !== null
        ? args.params
        : method === "elicitation/create"
        ? FORM_PARAMS
        : {};
      const answers = args.sequential === true ? [] : book.ask(wire, method, params, count);
      for (let i = answers.length; i < count; i++) {
        answers.push(Promise.resolve(await book.ask(wire, method, params)[0]!));
      }
      const hold = num(args.hold, 0);
      let answered = 0;
      await new Promise<void>((resolve) => {
        if (count - hold <= 0) resolve();
        for (const answer of answers) void answer.then(() => ++answered === count - hold && resolve());
      });
      wire.send({ jsonrpc: "2.0", method: "notifications/hostile/flood_refused", params: { answered } });
      return { tally: tally(await Promise.all(answers)) };
    },
    /** `{count}`: `count` log entries and `count` other notifications, interleaved. */
    noise(args, wire) {
      const messages: object[] = [];
      for (let n = 1; n <= num(args.count, 1); n++) {
        messages.push(log(n), { jsonrpc: "2.0", method: "notifications/hostile/noise", params: { n } });
      }
      wire.send(...messages);
      return Promise.resolve({ sent: messages.length });
    },
    /** Asks A, cancels ids never sent (and malformed ones), asks B; answers both answers. */
    async unknown_cancel(_args, wire) {
      const [a] = book.ask(wire, "elicitation/create", FORM_PARAMS);
      const cancel = (params?: object) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params });
      const bogus = [999999, "nope", null, {}, [1], 1.5, -1, "r999999"].map((requestId) =>
        cancel({ requestId })
      );
      wire.send(...bogus, cancel(), cancel({ reason: "no id" }));
      const [b] = book.ask(wire, "roots/list", {});
      return { answers: await Promise.all([a, b]) };
    },
    /** Responses to requests this server never sent, then the result. */
    stray_responses(_args, wire) {
      wire.send(
        { jsonrpc: "2.0", id: 424242, result: { action: "accept" } },
        { jsonrpc: "2.0", id: "ghost", error: { code: -32603, message: "ghost" } },
        { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      );
      return Promise.resolve({ strays: 3 });
    },
    /** What the client sent besides requests: how many answers, the last `tail` answers' ids, notification methods. */
    received: (args) =>
      Promise.resolve({
        responses: book.responses.length,
        tail: book.responses.slice(-num(args.tail, 4)).map((message) => message.id),
        notifications: book.notifications.map((message) => message.method),
      }),
  };
}

/**
 * The stdio wire of the scripted legacy server (`legacy-stdio-server.ts`), hand-written: reads
 * newline-delimited JSON-RPC from stdin, writes it to stdout, sends requests of its own and
 * waits for the client's answers, and keeps a log of what the client sent besides requests.
 *
 * @module
 */
import process from "node:process";

/** A JSON-RPC message as this server sees it (no validation: it is a test peer). */
export interface Message {
  readonly jsonrpc?: unknown;
  readonly id?: string | number | null;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** The client's answer to a server request: the whole response message. */
export type Answer = Message;

/** What the client sent that was not a request: notifications and answers, in arrival order. */
export interface ReceivedLog {
  readonly notifications: Message[];
  readonly responses: Message[];
}

/** The server's side of the wire. */
export interface Wire {
  /** Writes one message as one line. */
  send(message: object): void;
  /** Writes `text` (or bytes) to stdout as it is (no newline added); resolves once flushed. */
  writeRaw(text: string | Uint8Array): Promise<void>;
  /** Sends a server request with a fresh integer id (from 0); `answer` settles on the reply. */
  ask(method: string, params: object | undefined): { readonly id: number; readonly answer: Promise<Answer> };
  /** Stops reading stdin for good (the client's writes then pile up in the pipe); stays alive. */
  stopReading(): void;
  /** Everything non-request the client sent. */
  readonly received: ReceivedLog;
}

/**
 * Starts reading stdin.
 *
 * @param onRequest Called for each client request (the server answers with `send`).
 * @param onNotification Called for each client notification, after it is logged.
 * @param onEnd Called when stdin ends.
 * @returns The wire.
 */
export function openWire(
  onRequest: (message: Message) => void,
  onNotification: (message: Message) => void,
  onEnd: () => void,
): Wire {
  const received: ReceivedLog = { notifications: [], responses: [] };
  const waiting = new Map<string | number, (answer: Answer) => void>();
  let nextId = 0;
  let buffer = "";
  const send = (message: object): void => {
    process.stdout.write(JSON.stringify(message) + "\n");
  };
  const onLine = (line: string): void => {
    if (line.trim() === "") return;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      return;
    }
    if (typeof message.method === "string") {
      if (message.id === undefined) {
        received.notifications.push(message);
        onNotification(message);
      } else onRequest(message);
      return;
    }
    received.responses.push(message);
    const resolve = message.id === undefined || message.id === null ? undefined : waiting.get(message.id);
    if (resolve !== undefined) {
      waiting.delete(message.id as string | number);
      resolve(message);
    }
  };
  const onData = (chunk: string): void => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
      onLine(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
    }
  };
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", onData);
  process.stdin.on("end", onEnd);
  // The client may kill us mid-write; a broken stdout means it is gone.
  process.stdout.on("error", () => process.exit(0));
  return {
    send,
    writeRaw: (text) => new Promise((resolve) => process.stdout.write(text, () => resolve())),
    ask(method, params) {
      const id = nextId++;
      const answer = new Promise<Answer>((resolve) => waiting.set(id, resolve));
      send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
      return { id, answer };
    },
    stopReading() {
      process.stdin.off("data", onData);
      process.stdin.pause();
      // A paused stdin no longer keeps the process alive; this does, until a signal ends it.
      setInterval(() => {}, 1 << 30);
    },
    received,
  };
}

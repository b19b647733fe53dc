/**
 * The fixtures of the conformance suite's `tasks-*` server scenarios: the
 * `io.modelcontextprotocol/tasks` extension (SEP-2663, protocol-digest §8.2), by hand like
 * `_modern-tasks.ts`, since `@modelcontextprotocol/server` 2.4.0 has no runtime for it. The modern
 * peer serves them with `--conformance-fixtures` (`modern-server.ts`), next to the fixtures of
 * `_conformance-tools.ts`. Two halves:
 * - `registerTaskFixtures(server)`, on the package's server: advertises the extension under
 *   `capabilities.extensions` of `server/discover` and lists every fixture in `tools/list`. A
 *   2026-07-28 tool has no `execution.taskSupport` (the package neither takes it in
 *   `registerTool` nor sends it), so each description states the task support. The package runs
 *   `greet`, and `slow_compute` for a client that did not declare the extension.
 * - `createConformanceTaskLayer()`, before the package: answers `tools/call` of a task fixture
 *   (but `slow_compute` without the extension), and `tasks/get`, `tasks/update`, `tasks/cancel`.
 *   A request whose headers disagree with its body or whose `_meta` lacks the 2026-07-28 envelope
 *   goes on to the package, which refuses it (`-32020`, `-32022`, `-32602`); so do `tasks/result`
 *   and `tasks/list`, which the package does not know (`-32601`).
 *
 * The fixtures ("required": a client that did not declare the extension gets `-32021` with
 * `requiredCapabilities`; so does one that did not declare `elicitation`, for a fixture that asks):
 * - `greet {name}`: sync only, `Hello, {name}!`;
 * - `slow_compute {seconds, label?}`: optional; a task that completes after `seconds` seconds
 *   with one text block, or settles `cancelled` when cancelled first; without the extension, the
 *   same wait and result synchronously;
 * - `failing_job`: required; completes after 100 ms with a tool error (`isError: true`): the
 *   scenario's "~1 s" is not timed by any check;
 * - `protocol_error_job`: required; `failed` after 100 ms with the JSON-RPC error `-32603`;
 * - `confirm_delete {filename}`: required; `input_required` with one form elicitation `confirm`;
 *   once answered it completes (`Deleted {filename}` if accepted with `confirm: true`, else
 *   `Kept {filename}`);
 * - `multi_input`: required; `input_required` with two form elicitations at once, `name` and
 *   `confirm`, each asking one form of a `name` and a `confirm`; an answered key leaves `inputRequests`, and the task completes (the JSON of both
 *   answers) once both are answered;
 * - `test_tool_with_task`: required; first an MRTR round on the `tools/call` itself (an
 *   `input_required` result asking `user_name`, no `requestState`); the retry that carries an
 *   accepted `user_name` creates a task, which completes with `Hello, {name}!`.
 *
 * Every task keeps `ttlMs` 600000 (it is kept for the life of the process, never expired) and
 * `pollIntervalMs` 100. `tasks/update` takes the answers to keys still outstanding and ignores
 * any other key; `tasks/cancel` stops a `working` or `input_required` task (`cancelled`) and
 * leaves a terminal one as it is, both acked with `{resultType: "complete"}`; an unknown `taskId`
 * gets `-32602`. Arguments that do not match a fixture's input schema get a tool error, as the
 * package answers the calls it runs.
 *
 * @module
 */
import {
  type InputRequest,
  inputRequired,
  type McpServer,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import { elicit, schema, type Text, text } from "./_modern-requests.ts";
import { error, ok, type TaskReply, TASKS_EXTENSION } from "./_modern-tasks.ts";

const VERSION = "2026-07-28";
const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const TTL_MS = 600_000;
const POLL_INTERVAL_MS = 100;
/** How long a task fixture works once it has every answer (but `slow_compute`). */
const STEP_MS = 100;

type Args = Record<string, unknown>;
type Answers = ReadonlyMap<string, unknown>;
type Outcome =
  | { readonly result: Text & { isError?: boolean } }
  | { readonly error: { readonly code: number; readonly message: string } };

interface Fixture {
  readonly description: string;
  /** Listed in `tools/list`, and checked here for the calls the package does not see. */
  readonly inputSchema: StandardSchemaWithJSON<Args>;
  /** Runs synchronously, in the package, for a client that did not declare the extension. */
  readonly optional?: boolean;
  /** Asked on the `tools/call` itself (an MRTR round) before the task is created. */
  readonly asksFirst?: { readonly key: string; readonly request: InputRequest };
  /** Asked all at once by the task as soon as it starts. */
  readonly asks?: Readonly<Record<string, InputRequest>>;
  /** How long the task works once it has every answer, in ms. */
  workMs(args: Args): number;
  /** How the task ends. */
  end(args: Args, answers: Answers): Outcome;
}

interface RpcRequest {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: Record<string, unknown>;
}

interface TaskRecord {
  readonly taskId: string;
  readonly createdAt: string;
  readonly fixture: Fixture;
  readonly args: Args;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  lastUpdatedAt: string;
  /** The input requests still outstanding, by key. */
  readonly pending: Map<string, InputRequest>;
  readonly answers: Map<string, unknown>;
  outcome?: Outcome;
  timer?: ReturnType<typeof setTimeout>;
}

const NO_ARGUMENTS = schema({ type: "object", properties: {} });
const form = (field: string, type: string) => ({
  type: "object",
  properties: { [field]: { type } },
  required: [field],
});
const NAME_AND_CONFIRM = {
  type: "object",
  properties: { name: { type: "string" }, confirm: { type: "boolean" } },
  required: ["name", "confirm"],
};
/** The content of an accepted elicitation answer; `undefined` for anything else. */
function accepted(answer: unknown): Record<string, unknown> | undefined {
  const { action, content } = (answer ?? {}) as { action?: unknown; content?: unknown };
  return action === "accept" && typeof content === "object" && content !== null
    ? content as Record<string, unknown>
    : undefined;
}

const FIXTURES = new Map<string, Fixture>([
  ["slow_compute", {
    description: "Task support optional: works `seconds` seconds, then returns one text block",
    inputSchema: schema({
      type: "object",
      properties: { seconds: { type: "number", minimum: 0 }, label: { type: "string" } },
      required: ["seconds"],
    }),
    optional: true,
    workMs: (args) => Number(args.seconds) * 1000,
    end: (args) => ({ result: text(`Computed "${String(args.label ?? "")}" in ${String(args.seconds)} s`) }),
  }],
  ["failing_job", {
    description: "Task support required: completes with a tool error",
    inputSchema: NO_ARGUMENTS,
    workMs: () => STEP_MS,
    end: () => ({ result: { ...text("failing_job failed, as it always does"), isError: true } }),
  }],
  ["protocol_error_job", {
    description: "Task support required: fails with a JSON-RPC internal error",
    inputSchema: NO_ARGUMENTS,
    workMs: () => STEP_MS,
    end: () => ({ error: { code: -32603, message: "Internal error: protocol_error_job panicked" } }),
  }],
  ["confirm_delete", {
    description: "Task support required: asks to confirm, then deletes the file (or keeps it)",
    inputSchema: schema({
      type: "object",
      properties: { filename: { type: "string" } },
      required: ["filename"],
    }),
    asks: { confirm: elicit("Delete the file?", form("confirm", "boolean")) },
    workMs: () => STEP_MS,
    end: (args, answers) =>
      accepted(answers.get("confirm"))?.confirm === true
        ? { result: text(`Deleted ${String(args.filename)}`) }
        : { result: text(`Kept ${String(args.filename)}`) },
  }],
  ["multi_input", {
    description: "Task support required: asks for a name and a confirmation at once",
    inputSchema: NO_ARGUMENTS,
    // One form for both: the scenario answers each key with a name and a confirmation.
    asks: {
      name: elicit("What is your name?", NAME_AND_CONFIRM),
      confirm: elicit("Confirm?", NAME_AND_CONFIRM),
    },
    workMs: () => STEP_MS,
    end: (_args, answers) => ({ result: text(JSON.stringify(Object.fromEntries(answers))) }),
  }],
  ["test_tool_with_task", {
    description: "Task support required: asks the user's name in an MRTR round, then greets in a task",
    inputSchema: NO_ARGUMENTS,
    asksFirst: { key: "user_name", request: elicit("What is your name?", form("name", "string")) },
    workMs: () => STEP_MS,
    end: (_args, answers) => ({
      result: text(`Hello, ${String(accepted(answers.get("user_name"))?.name)}!`),
    }),
  }],
]);

/**
 * Advertises the tasks extension in `server/discover` and lists the fixtures in `tools/list`.
 *
 * @param server The per-request server of `_conformance-tools.ts`, not yet connected.
 */
export function registerTaskFixtures(server: McpServer): void {
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  server.registerTool("greet", {
    description: "Sync only: greets by name",
    inputSchema: schema({ type: "object", properties: { name: { type: "string" } }, required: ["name"] }),
  }, (args) => text(`Hello, ${String(args.name)}!`));
  for (const [name, fixture] of FIXTURES) {
    server.registerTool(name, {
      description: fixture.description,
      inputSchema: fixture.inputSchema,
    }, async (args) => {
      // Only the optional fixtures get here: the tasks layer answers every other call first.
      if (fixture.optional !== true) return { ...text(`${name} runs only as a task`), isError: true };
      await new Promise((resolve) => setTimeout(resolve, fixture.workMs(args)));
      const outcome = fixture.end(args, new Map());
      return "result" in outcome ? outcome.result : { ...text(outcome.error.message), isError: true };
    });
  }
}

const invalidParams = (id: unknown, message: string): TaskReply => error(id, 200, -32602, message);
const missingCapabilities = (id: unknown, requiredCapabilities: Record<string, unknown>): TaskReply =>
  error(id, 400, -32021, "Missing required client capability", { requiredCapabilities });

/** Whether the request's client capabilities declare the tasks extension. */
function declaresTasks(capabilities: Record<string, unknown>): boolean {
  const extensions = capabilities.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/** The capabilities a call of `fixture` needs and the caller did not declare; `undefined` if none. */
function missingFor(
  fixture: Fixture,
  capabilities: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const missing: Record<string, unknown> = {};
  if (!declaresTasks(capabilities)) missing.extensions = { [TASKS_EXTENSION]: {} };
  const asks = fixture.asks !== undefined || fixture.asksFirst !== undefined;
  if (asks && capabilities.elicitation === undefined) missing.elicitation = {};
  return Object.keys(missing).length > 0 ? missing : undefined;
}

/** What is wrong with `args` for `fixture`, as the package words it; `undefined` if nothing. */
function argumentsError(name: string, fixture: Fixture, args: Args): string | undefined {
  const checked = fixture.inputSchema["~standard"].validate(args);
  if (!(checked instanceof Promise) && checked.issues === undefined) return undefined;
  const issues = checked instanceof Promise
    ? ["not checked synchronously"]
    : checked.issues.map((i) => i.message);
  return `Input validation error: Invalid arguments for tool ${name}: ${issues.join("; ")}`;
}

/** Whether the headers agree with the body and `_meta` carries the 2026-07-28 envelope. */
function agrees(req: RpcRequest, headers: Headers, name: unknown): boolean {
  const meta = (req.params?._meta ?? {}) as Record<string, unknown>;
  const capabilities = meta[CLIENT_CAPABILITIES_KEY];
  return headers.get("mcp-protocol-version") === VERSION && meta[PROTOCOL_VERSION_KEY] === VERSION &&
    headers.get("mcp-method") === req.method &&
    (headers.get("mcp-name") ?? undefined) === (typeof name === "string" ? name : undefined) &&
    typeof capabilities === "object" && capabilities !== null;
}

/** The tasks layer of one peer process: keeps its tasks in memory. */
export function createConformanceTaskLayer(): {
  handle(req: RpcRequest, headers: Headers): TaskReply | undefined;
} {
  const tasks = new Map<string, TaskRecord>();
  const touch = (task: TaskRecord, status: TaskRecord["status"]) => {
    task.status = status;
    task.lastUpdatedAt = new Date().toISOString();
  };

  function work(task: TaskRecord): void {
    touch(task, "working");
    task.timer = setTimeout(() => {
      if (task.status !== "working") return;
      task.outcome = task.fixture.end(task.args, task.answers);
      touch(task, "result" in task.outcome ? "completed" : "failed");
    }, task.fixture.workMs(task.args));
  }

  function detailed(task: TaskRecord): Record<string, unknown> {
    const { taskId, status, createdAt, lastUpdatedAt } = task;
    const base = {
      taskId,
      status,
      createdAt,
      lastUpdatedAt,
      ttlMs: TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
    if (status === "input_required") return { ...base, inputRequests: Object.fromEntries(task.pending) };
    if (status === "completed" || status === "failed") return { ...base, ...task.outcome };
    return base;
  }

  function start(fixture: Fixture, args: Args, answers: Map<string, unknown>): Record<string, unknown> {
    const now = new Date().toISOString();
    const task: TaskRecord = {
      taskId: crypto.randomUUID(),
      createdAt: now,
      lastUpdatedAt: now,
      status: "working",
      fixture,
      args,
      pending: new Map(Object.entries(fixture.asks ?? {})),
      answers,
    };
    tasks.set(task.taskId, task);
    const created = { resultType: "task", ...detailed(task) };
    if (task.pending.size > 0) touch(task, "input_required");
    else work(task);
    return created;
  }

  function call(
    req: RpcRequest,
    fixture: Fixture,
    capabilities: Record<string, unknown>,
  ): TaskReply | undefined {
    const params = req.params ?? {};
    if (!declaresTasks(capabilities) && fixture.optional === true) return undefined;
    const required = missingFor(fixture, capabilities);
    if (required !== undefined) return missingCapabilities(req.id, required);
    const args = (params.arguments ?? {}) as Args;
    const invalid = argumentsError(String(params.name), fixture, args);
    // A tool error, as the package answers the calls it validates.
    if (invalid !== undefined) return ok(req.id, { resultType: "complete", ...text(invalid), isError: true });
    const answers = new Map<string, unknown>();
    if (fixture.asksFirst !== undefined) {
      const { key, request } = fixture.asksFirst;
      const answer = ((params.inputResponses ?? {}) as Record<string, unknown>)[key];
      if (accepted(answer) === undefined) {
        return ok(req.id, inputRequired({ inputRequests: { [key]: request } }));
      }
      answers.set(key, answer);
    }
    return ok(req.id, start(fixture, args, answers));
  }

  function update(task: TaskRecord, responses: Record<string, unknown>): void {
    if (task.status !== "input_required") return;
    for (const [key, answer] of Object.entries(responses)) {
      if (task.pending.delete(key)) task.answers.set(key, answer);
    }
    if (task.pending.size === 0) work(task);
  }

  function cancel(task: TaskRecord): void {
    if (task.status !== "working" && task.status !== "input_required") return;
    clearTimeout(task.timer);
    task.pending.clear();
    touch(task, "cancelled");
  }

  function handle(req: RpcRequest, headers: Headers): TaskReply | undefined {
    const params = req.params ?? {};
    const fixture = req.method === "tools/call" ? FIXTURES.get(String(params.name)) : undefined;
    const isTaskMethod = req.method === "tasks/get" || req.method === "tasks/update" ||
      req.method === "tasks/cancel";
    if (fixture === undefined && !isTaskMethod) return undefined;
    if (!agrees(req, headers, fixture === undefined ? params.taskId : params.name)) return undefined;
    const meta = params._meta as Record<string, unknown>;
    const capabilities = meta[CLIENT_CAPABILITIES_KEY] as Record<string, unknown>;
    if (fixture !== undefined) return call(req, fixture, capabilities);
    if (!declaresTasks(capabilities)) {
      return missingCapabilities(req.id, { extensions: { [TASKS_EXTENSION]: {} } });
    }
    const task = typeof params.taskId === "string" ? tasks.get(params.taskId) : undefined;
    if (task === undefined) return invalidParams(req.id, `Unknown taskId "${String(params.taskId)}"`);
    if (req.method === "tasks/get") return ok(req.id, { resultType: "complete", ...detailed(task) });
    if (req.method === "tasks/update") {
      const responses = params.inputResponses;
      if (typeof responses !== "object" || responses === null) {
        return invalidParams(req.id, `"inputResponses" must be an object, received "${String(responses)}"`);
      }
      update(task, responses as Record<string, unknown>);
    } else {
      cancel(task);
    }
    return ok(req.id, { resultType: "complete" });
  }
  return { handle };
}

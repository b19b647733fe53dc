/**
 * `long_report` as a task of the `io.modelcontextprotocol/tasks` extension. The official server
 * package (2.4.0) has no runtime for that extension, so this small layer answers the task's
 * requests itself, in front of the package's handler: `tools/call` of `long_report` from a client
 * that declared the extension, then `tasks/get`, `tasks/update` and `tasks/cancel`.
 *
 * A report task works for a second, asks one question (status `input_required`), and once the
 * answer arrives with `tasks/update` works another second and completes. Its status is worked out
 * from the clock on each `tasks/get`, so no timer runs in the background.
 *
 * @module
 */
import { type InputRequest, inputRequired } from "@modelcontextprotocol/server";

/** The extension's identifier, as clients and servers declare it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How long a report takes: half before the question, half after it (in a task). */
export const REPORT_MS = 2000;

/** The one question a report asks: whether to add an appendix. */
export const APPENDIX_QUESTION: InputRequest = inputRequired.elicit({
  mode: "form",
  message: "Include an appendix with the raw figures?",
  requestedSchema: {
    type: "object",
    properties: { appendix: { type: "boolean", title: "Include the appendix", default: true } },
    required: ["appendix"],
  },
});

/**
 * The text of a finished report.
 *
 * @param topic What the report is about.
 * @param answer The answer to {@linkcode APPENDIX_QUESTION}: an elicitation result, or anything.
 * @returns The result text.
 */
export function reportText(topic: string, answer: unknown): string {
  const { action, content } = (answer ?? {}) as { action?: unknown; content?: { appendix?: unknown } };
  const appendix = action === "accept" && content?.appendix === true;
  const why = action === "decline" || action === "cancel" ? ` (you answered "${action}")` : "";
  return `Report on "${topic}" is ready: 3 sections, ${appendix ? "with" : "no"} appendix${why}.`;
}

/** A JSON-RPC reply the HTTP layer sends as is. */
export interface TaskReply {
  /** The HTTP status. */
  readonly status: number;
  /** The JSON-RPC response. */
  readonly body: unknown;
}

interface ReportTask {
  readonly taskId: string;
  readonly topic: string;
  readonly createdAt: number;
  answeredAt?: number;
  answer?: unknown;
  cancelledAt?: number;
}

const TTL_MS = 600_000;
const MAX_TASKS = 100;

/**
 * Creates the task layer of one demo server: its tasks live in memory.
 *
 * @param now The clock (milliseconds).
 * @returns `handle(message, headers)`: the reply for a request this layer serves, or `undefined`
 *   for every other request (the package's handler serves those).
 */
export function createReportTasks(now: () => number = Date.now): {
  handle(message: unknown, headers: Headers): TaskReply | undefined;
} {
  const tasks = new Map<string, ReportTask>();

  function detailed(task: ReportTask): Record<string, unknown> {
    const t = now();
    const base = { taskId: task.taskId, createdAt: iso(task.createdAt), ttlMs: TTL_MS, pollIntervalMs: 250 };
    const half = REPORT_MS / 2;
    if (task.cancelledAt !== undefined) {
      return { ...base, status: "cancelled", lastUpdatedAt: iso(task.cancelledAt) };
    }
    if (task.answeredAt === undefined) {
      if (t - task.createdAt < half) return { ...base, status: "working", lastUpdatedAt: base.createdAt };
      const asked = iso(task.createdAt + half);
      return {
        ...base,
        status: "input_required",
        lastUpdatedAt: asked,
        inputRequests: { appendix: APPENDIX_QUESTION },
      };
    }
    if (t - task.answeredAt < half) {
      return { ...base, status: "working", lastUpdatedAt: iso(task.answeredAt) };
    }
    const result = { content: [{ type: "text", text: reportText(task.topic, task.answer) }] };
    return { ...base, status: "completed", lastUpdatedAt: iso(task.answeredAt + half), result };
  }

  function start(id: unknown, args: { topic?: unknown }): TaskReply {
    for (const [taskId, task] of tasks) {
      if (tasks.size < MAX_TASKS && now() - task.createdAt < TTL_MS) break;
      tasks.delete(taskId); // oldest first: expired ones, and the oldest when full
    }
    const topic = typeof args.topic === "string" ? args.topic : "the demo quarter";
    const task: ReportTask = { taskId: crypto.randomUUID(), topic, createdAt: now() };
    tasks.set(task.taskId, task);
    return ok(id, { resultType: "task", ...detailed(task) });
  }

  function onTask(id: unknown, method: string, params: Record<string, unknown>): TaskReply {
    const task = typeof params.taskId === "string" ? tasks.get(params.taskId) : undefined;
    if (task === undefined) {
      return failure(id, 400, -32602, `Unknown taskId ${JSON.stringify(params.taskId)}`);
    }
    const status = detailed(task).status;
    if (method === "tasks/get") return ok(id, { resultType: "complete", ...detailed(task) });
    if (method === "tasks/update") {
      const answer = (params.inputResponses as Record<string, unknown> | undefined)?.appendix;
      if (status === "input_required" && answer !== undefined) {
        Object.assign(task, { answer, answeredAt: now() });
      }
      return ok(id, { resultType: "complete" });
    }
    if (status === "working" || status === "input_required") task.cancelledAt = now();
    return ok(id, { resultType: "complete" });
  }

  function handle(message: unknown, headers: Headers): TaskReply | undefined {
    if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
    const { id, method, params = {} } = message as {
      id?: unknown;
      method?: unknown;
      params?: Record<string, unknown>;
    };
    const meta = (params._meta ?? {}) as Record<string, { extensions?: object } | undefined>;
    const declared = TASKS_EXTENSION in
      (meta["io.modelcontextprotocol/clientCapabilities"]?.extensions ?? {});
    const isReport = method === "tools/call" && params.name === "long_report";
    const isTaskMethod = method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel";
    // Without the extension, long_report answers in place (see the tool) and tasks/* do not exist.
    if (!(isReport && declared) && !isTaskMethod) return undefined;
    const name = isReport ? params.name : params.taskId;
    if (
      headers.get("mcp-protocol-version") !== "2026-07-28" || headers.get("mcp-method") !== method ||
      headers.get("mcp-name") !== String(name)
    ) {
      return failure(id, 400, -32020, "Header mismatch: MCP-Protocol-Version, Mcp-Method and Mcp-Name");
    }
    if (!declared) {
      const data = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };
      return failure(id, 400, -32021, "Missing required client capability", data);
    }
    if (isReport) return start(id, (params.arguments ?? {}) as { topic?: unknown });
    return onTask(id, String(method), params);
  }

  return { handle };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function ok(id: unknown, result: unknown): TaskReply {
  return { status: 200, body: { jsonrpc: "2.0", id, result } };
}

function failure(id: unknown, status: number, code: number, message: string, data?: unknown): TaskReply {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { status, body: { jsonrpc: "2.0", id: id ?? null, error } };
}

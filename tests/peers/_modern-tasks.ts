/**
 * The `io.modelcontextprotocol/tasks` extension (SEP-2663, protocol-digest §8.2) for the modern
 * peer's `slow_task` tool, by hand: `@modelcontextprotocol/server` 2.4.0 has no runtime for it
 * (it keeps only the 2025-11-25 task wire types). Handles `tools/call` of `slow_task` and
 * `tasks/get`, `tasks/update`, `tasks/cancel` (and answers `tasks/result` with `-32601`); every
 * other request goes on to the package's handler.
 *
 * `slow_task` lifecycle: `tools/call` → `CreateTaskResult` (`resultType: "task"`, `working`); the
 * first `tasks/get` reports `input_required` with one form elicitation under key `confirm`;
 * `tasks/update` with `inputResponses.confirm` → `working`, then `completed` after `workMs`
 * (argument, default 0) with a `CallToolResult` whose text is the JSON of the answer.
 *
 * @module
 */

/** The extension's identifier, as declared in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const VERSION = "2026-07-28";

/** A JSON-RPC answer the HTTP adapter sends as is. */
export interface TaskReply {
  readonly status: number;
  readonly body: unknown;
}

interface RpcRequest {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: Record<string, unknown>;
}

interface TaskRecord {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  createdAt: string;
  lastUpdatedAt: string;
  workMs: number;
  inputRequests?: Record<string, unknown>;
  result?: unknown;
}

const CONFIRM = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Continue the slow task?",
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
  },
};

/** A JSON-RPC error answer with its HTTP status. */
export const error = (
  id: unknown,
  status: number,
  code: number,
  message: string,
  data?: unknown,
): TaskReply => ({
  status,
  body: { jsonrpc: "2.0", id: id ?? null, error: { code, message, ...data === undefined ? {} : { data } } },
});
/** A JSON-RPC result answer (HTTP 200). */
export const ok = (id: unknown, result: unknown): TaskReply => ({
  status: 200,
  body: { jsonrpc: "2.0", id, result },
});

/** The tasks layer of one peer process: keeps its tasks in memory. */
export function createTaskLayer(): { handle(req: RpcRequest, headers: Headers): TaskReply | undefined } {
  const tasks = new Map<string, TaskRecord>();
  const touch = (task: TaskRecord, status: TaskRecord["status"]) => {
    task.status = status;
    task.lastUpdatedAt = new Date().toISOString();
  };

  function detailed(task: TaskRecord): Record<string, unknown> {
    const { taskId, status, createdAt, lastUpdatedAt } = task;
    const base = { taskId, status, createdAt, lastUpdatedAt, ttlMs: 600_000, pollIntervalMs: 10 };
    if (status === "input_required") return { ...base, inputRequests: task.inputRequests };
    if (status === "completed") return { ...base, result: task.result };
    return base;
  }

  function update(task: TaskRecord, responses: Record<string, unknown>): void {
    const answer = responses.confirm as { action?: unknown; content?: unknown } | undefined;
    if (task.status !== "input_required" || answer === undefined || typeof answer !== "object") return;
    delete task.inputRequests;
    touch(task, "working");
    const accepted = answer.action === "accept";
    const outcome = accepted ? answer.content ?? {} : { action: answer.action };
    setTimeout(() => {
      if (task.status !== "working") return;
      task.result = { content: [{ type: "text", text: JSON.stringify(outcome) }], isError: !accepted };
      touch(task, "completed");
    }, task.workMs);
  }

  function handle(req: RpcRequest, headers: Headers): TaskReply | undefined {
    const params = req.params ?? {};
    const isSlowTask = req.method === "tools/call" && params.name === "slow_task";
    const isTaskMethod = typeof req.method === "string" && req.method.startsWith("tasks/");
    if (!isSlowTask && !isTaskMethod) return undefined;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    const version = meta["io.modelcontextprotocol/protocolVersion"];
    const name = isSlowTask ? params.name : params.taskId;
    if (
      headers.get("mcp-protocol-version") !== VERSION || version !== VERSION ||
      headers.get("mcp-method") !== req.method || headers.get("mcp-name") !== String(name)
    ) {
      return error(req.id, 400, -32020, "Header mismatch: MCP-Protocol-Version, Mcp-Method and Mcp-Name");
    }
    const caps = meta["io.modelcontextprotocol/clientCapabilities"] as { extensions?: object } | undefined;
    if (caps?.extensions === undefined || !(TASKS_EXTENSION in caps.extensions)) {
      const requiredCapabilities = { extensions: { [TASKS_EXTENSION]: {} } };
      return error(req.id, 400, -32021, "Missing required client capability", { requiredCapabilities });
    }
    if (isSlowTask) {
      const args = (params.arguments ?? {}) as { workMs?: unknown };
      const now = new Date().toISOString();
      const task: TaskRecord = {
        taskId: crypto.randomUUID(),
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        workMs: typeof args.workMs === "number" && args.workMs >= 0 ? args.workMs : 0,
      };
      tasks.set(task.taskId, task);
      const created = { resultType: "task", ...detailed(task) };
      task.status = "input_required";
      task.inputRequests = { confirm: CONFIRM };
      return ok(req.id, created);
    }
    if (req.method === "tasks/result") return error(req.id, 404, -32601, "Method not found: tasks/result");
    const task = typeof params.taskId === "string" ? tasks.get(params.taskId) : undefined;
    if (task === undefined) return error(req.id, 400, -32602, `Unknown taskId "${String(params.taskId)}"`);
    switch (req.method) {
      case "tasks/get":
        return ok(req.id, { resultType: "complete", ...detailed(task) });
      case "tasks/update":
        update(task, (params.inputResponses ?? {}) as Record<string, unknown>);
        return ok(req.id, { resultType: "complete" });
      case "tasks/cancel":
        if (task.status === "working" || task.status === "input_required") {
          delete task.inputRequests;
          touch(task, "cancelled");
        }
        return ok(req.id, { resultType: "complete" });
      default:
        return error(req.id, 404, -32601, `Method not found: ${String(req.method)}`);
    }
  }
  return { handle };
}

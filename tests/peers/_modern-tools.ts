/**
 * The tools, resource and prompt of the modern peer (`modern-server.ts`), built on
 * `@modelcontextprotocol/server` 2.4.0. Every input-asking handler returns the package's
 * `inputRequired(...)` and carries its state in an HMAC-sealed `requestState`
 * (`createRequestStateCodec`, see `_modern-requests.ts`), so a tampered or foreign state is
 * refused with `-32602`; undeclared input kinds are refused by the package with `-32021`.
 *
 * @module
 */
import {
  acceptedContent,
  type InputRequest,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  McpServer,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { PROFILE_SCHEMA } from "../_support/profile-form.ts";
import { TASKS_EXTENSION } from "./_modern-tasks.ts";
import {
  elicit,
  json,
  ONE_FIELD,
  type PeerState,
  sampling,
  samplingText,
  schema,
  text,
} from "./_modern-requests.ts";

/** Builds the per-request server; `codec` is shared so every round verifies against one key. */
export function createModernServer(codec: RequestStateCodec<PeerState>): McpServer {
  const server = new McpServer({ name: "sluice-modern-peer", version: "1.0.0" }, {
    capabilities: { tools: {}, resources: {}, prompts: {}, extensions: { [TASKS_EXTENSION]: {} } },
    requestState: { verify: codec.verify },
  });
  const ask = async (ctx: ServerContext, step: string, inputRequests: Record<string, InputRequest>) =>
    inputRequired({ inputRequests, requestState: await codec.mint({ step }, ctx) });
  const state = (ctx: ServerContext) => ctx.mcpReq.requestState<PeerState>();

  server.registerTool("ask_form", { description: "One form elicitation" }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "profile");
    if (state(ctx)?.step !== "ask_form" || answer.kind !== "elicit") {
      return await ask(ctx, "ask_form", { profile: elicit("Tell us about you", PROFILE_SCHEMA) });
    }
    return answer.action === "accept" ? json(answer.content ?? {}) : json({ action: answer.action });
  });

  server.registerTool("ask_schema", {
    description: "One form elicitation of the given requestedSchema",
    inputSchema: schema({
      type: "object",
      properties: { requestedSchema: { type: "object" } },
      required: ["requestedSchema"],
    }),
  }, async (args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "form");
    if (state(ctx)?.step !== "ask_schema" || answer.kind !== "elicit") {
      const form = elicit("Fill in the form", args.requestedSchema as object);
      return await ask(ctx, "ask_schema", { form });
    }
    return answer.action === "accept" ? json(answer.content ?? {}) : json({ action: answer.action });
  });

  server.registerTool("ask_url", {
    description: "One URL elicitation of the given url",
    inputSchema: schema({ type: "object", properties: { url: { type: "string" } }, required: ["url"] }),
  }, async (args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "visit");
    if (state(ctx)?.step !== "ask_url" || answer.kind !== "elicit") {
      const visit = inputRequired.elicitUrl({ message: "Please open this page", url: String(args.url) });
      return await ask(ctx, "ask_url", { visit });
    }
    return text(answer.action);
  });

  server.registerTool("ask_sampling", {
    description: "One sampling request (maxTokens 999999 unless overridden)",
    inputSchema: schema({
      type: "object",
      properties: { maxTokens: { type: "integer" }, prompt: { type: "string" } },
    }),
  }, async (args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "llm");
    if (state(ctx)?.step !== "ask_sampling" || answer.kind !== "sampling") {
      return await ask(ctx, "ask_sampling", { llm: sampling(args, false) });
    }
    return text(samplingText(answer.result));
  });

  server.registerTool("ask_roots", { description: "One roots request" }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "roots");
    if (state(ctx)?.step !== "ask_roots" || answer.kind !== "roots") {
      return await ask(ctx, "ask_roots", { roots: inputRequired.listRoots() });
    }
    return json(answer.roots.map((root) => root.uri));
  });

  server.registerTool(
    "ask_two",
    { description: "An elicitation and a sampling in one round" },
    async (ctx) => {
      const form = inputResponse(ctx.mcpReq.inputResponses, "confirm");
      const llm = inputResponse(ctx.mcpReq.inputResponses, "llm");
      if (state(ctx)?.step !== "ask_two" || form.kind !== "elicit" || llm.kind !== "sampling") {
        const confirm = elicit("Confirm?", { type: "object", properties: { ok: { type: "boolean" } } });
        return await ask(ctx, "ask_two", { confirm, llm: sampling({}, false) });
      }
      return json({ action: form.action, content: form.content ?? null, text: samplingText(llm.result) });
    },
  );

  server.registerTool(
    "ask_three_rounds",
    { description: "Three elicitation rounds in a row" },
    async (ctx) => {
      const previous = state(ctx);
      const answers = previous?.step === "ask_three_rounds" ? [...previous.answers ?? []] : [];
      const value = acceptedContent(ctx.mcpReq.inputResponses, `round${answers.length + 1}`)?.value;
      if (previous?.step === "ask_three_rounds" && typeof value === "string") answers.push(value);
      if (answers.length === 3) return json(answers);
      const round = answers.length + 1;
      const message = round === 1 ? "Round 1: first word?" : `Round ${round}: after "${answers.at(-1)}"?`;
      return inputRequired({
        inputRequests: { [`round${round}`]: elicit(message, ONE_FIELD) },
        requestState: await codec.mint({ step: "ask_three_rounds", answers }, ctx),
      });
    },
  );

  server.registerTool("state_only", { description: "One round with only requestState" }, async (ctx) => {
    if (state(ctx)?.step === "state_only") return text("state_only complete");
    return inputRequired({ requestState: await codec.mint({ step: "state_only" }, ctx) });
  });

  server.registerTool("needs_sampling_tools", { description: "Sampling with tools" }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "llm");
    if (state(ctx)?.step !== "needs_sampling_tools" || answer.kind !== "sampling") {
      return await ask(ctx, "needs_sampling_tools", { llm: sampling({ maxTokens: 100 }, true) });
    }
    return text(samplingText(answer.result));
  });

  server.registerTool("undeclared", {
    description: "Asks for one input kind (default roots); for clients that did not declare it: -32021",
    inputSchema: schema({
      type: "object",
      properties: { kind: { type: "string", enum: ["roots", "sampling", "elicitation", "url"] } },
    }),
  }, async (args, ctx): Promise<InputRequiredResult> => {
    const kind = typeof args.kind === "string" ? args.kind : "roots";
    const requests: Record<string, () => InputRequest> = {
      roots: () => inputRequired.listRoots(),
      sampling: () => sampling({ maxTokens: 10 }, false),
      elicitation: () => elicit("Anything?", ONE_FIELD),
      url: () => inputRequired.elicitUrl({ message: "Open", url: "https://example.com/consent" }),
    };
    return await ask(ctx, "undeclared", { need: (requests[kind] ?? requests.roots!)() });
  });

  server.registerTool("echo", {
    description: "Returns its arguments",
    inputSchema: schema({
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" }, message: { type: "string" } },
      required: ["message"],
    }),
  }, (args) => json(args));

  server.registerTool("progress_twice", {
    description: "Sends two notifications/progress for the call's progressToken (if any), then answers",
  }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      for (const progress of [1, 2]) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken, progress, total: 2 },
        });
      }
    }
    return text(progressToken === undefined ? "no progress token" : "progressed twice");
  });

  server.registerTool("add", {
    description: "Adds a and b (both default 0); never asks for input",
    inputSchema: schema({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } }),
  }, (args) => text(String(Number(args.a ?? 0) + Number(args.b ?? 0))));

  server.registerTool("slow_task", {
    description: "Task-only (io.modelcontextprotocol/tasks): one elicitation via tasks/get + tasks/update",
    inputSchema: schema({ type: "object", properties: { workMs: { type: "integer", minimum: 0 } } }),
  }, () => text("slow_task is served by the tasks layer in front of this server"));

  server.registerResource("greeting", "demo://greeting", { mimeType: "text/plain" }, async (uri, ctx) => {
    const name = acceptedContent(ctx.mcpReq.inputResponses, "who")?.value;
    if (state(ctx)?.step !== "greeting" || typeof name !== "string") {
      return await ask(ctx, "greeting", { who: elicit("Whom to greet?", ONE_FIELD) });
    }
    return { contents: [{ uri: uri.href, mimeType: "text/plain", text: `Hello, ${name}!` }] };
  });

  server.registerPrompt("greet", { description: "Greets someone it asks about" }, async (ctx) => {
    const name = acceptedContent(ctx.mcpReq.inputResponses, "who")?.value;
    if (state(ctx)?.step !== "greet" || typeof name !== "string") {
      return await ask(ctx, "greet", { who: elicit("Whom to greet?", ONE_FIELD) });
    }
    return { messages: [{ role: "user", content: { type: "text", text: `Please greet ${name}.` } }] };
  });
  return server;
}

/**
 * The demo server's tools, built with the official `@modelcontextprotocol/server` 2.4.0. Each tool
 * that needs something from the client returns `inputRequired(...)`: the client answers the
 * embedded requests and calls the tool again with `inputResponses` and the `requestState` it got,
 * which this server sealed (HMAC) so a client cannot forge it.
 *
 * @module
 */
import {
  fromJsonSchema,
  type InputRequest,
  inputRequired,
  type InputRequiredResult,
  inputResponse,
  type JsonSchemaType,
  McpServer,
  type RequestStateCodec,
  type ServerContext,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import { APPENDIX_QUESTION, REPORT_MS, reportText, TASKS_EXTENSION } from "./_report-task.ts";
import { describeTrip, findOccasion, type Form, ROUND_ONE, TRIP_FORM } from "./_demo-forms.ts";

/** What the demo keeps in `requestState` between rounds: which tool asked, and what it learnt. */
export interface DemoState {
  /** The tool that minted the state. */
  readonly tool: string;
  /** `plan_party`: the occasion answered in round 1. */
  readonly occasion?: string;
}

type TextResult = { content: [{ type: "text"; text: string }] };

const text = (value: string): TextResult => ({ content: [{ type: "text", text: value }] });

/** A tool's input schema, from plain JSON Schema (shown as is in `tools/list`). */
const args = (properties: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>> =>
  fromJsonSchema<Record<string, unknown>>({ type: "object", properties } as JsonSchemaType);

/** An embedded form elicitation. */
const elicit = (form: Form): InputRequest => inputRequired.elicit({ mode: "form", ...form });

/** Waits `ms`, or less when the client goes away. */
const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

const str = (value: unknown, fallback: string): string => typeof value === "string" ? value : fallback;

/** What `summarize` summarizes when given no `text`. */
const SUMMARY_TEXT = "sluice answers what MCP servers ask of the client.";

/** URLs `connect_account` can send: one the demo policy allows, two it refuses. */
const CONNECT_URLS: Readonly<Record<string, (service: string) => string>> = {
  allowed: (service) => `https://auth.example.com/connect?service=${encodeURIComponent(service)}`,
  plain_http: (service) => `http://auth.example.com/connect?service=${encodeURIComponent(service)}`,
  other_host: (service) => `https://auth.example.net/connect?service=${encodeURIComponent(service)}`,
};

/**
 * Builds the demo's MCP server (one per HTTP request, as `createMcpHandler` wants).
 *
 * @param codec Seals and opens `requestState`; shared by every request, so every round verifies.
 * @returns The server.
 */
export function createDemoTools(codec: RequestStateCodec<DemoState>): McpServer {
  const server = new McpServer({ name: "sluice-demo", version: "1.0.0" }, {
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
    requestState: { verify: codec.verify },
  });
  /** Asks the client for input; the state tells the next round which tool asked, and what it knows. */
  const ask = async (ctx: ServerContext, state: DemoState, requests: Record<string, InputRequest>) =>
    inputRequired({ inputRequests: requests, requestState: await codec.mint(state, ctx) });
  const stateOf = (ctx: ServerContext, tool: string): DemoState | undefined => {
    const state = ctx.mcpReq.requestState<DemoState>();
    return state?.tool === tool ? state : undefined;
  };

  server.registerTool("add", {
    title: "Add two numbers",
    description: "Adds a and b. Asks the client for nothing: a baseline.",
    inputSchema: args({ a: { type: "number", default: 2 }, b: { type: "number", default: 3 } }),
  }, (input) => {
    const a = Number(input.a ?? 2);
    const b = Number(input.b ?? 3);
    return text(`${a} + ${b} = ${a + b}`);
  });

  server.registerTool("book_trip", {
    title: "Book a trip",
    description: "Asks the user to fill in a booking form (text, email, date, numbers, a checkbox, " +
      "a single choice and a multiple choice), then sums up the answer.",
    inputSchema: args({ destination: { type: "string", default: "Lisbon" } }),
  }, async (input, ctx) => {
    const destination = str(input.destination, "Lisbon");
    const answer = inputResponse(ctx.mcpReq.inputResponses, "booking");
    if (stateOf(ctx, "book_trip") === undefined || answer.kind !== "elicit") {
      const booking = elicit({
        message: `Booking a trip to ${destination}: who is travelling, and how?`,
        requestedSchema: TRIP_FORM,
      });
      return await ask(ctx, { tool: "book_trip" }, { booking });
    }
    if (answer.action !== "accept") {
      return text(`Trip to ${destination} not booked: you answered "${answer.action}".`);
    }
    return text(describeTrip(destination, answer.content ?? {}));
  });

  server.registerTool("connect_account", {
    title: "Connect an account",
    description: 'Asks the user to open a sign-in page (URL elicitation). link: "allowed" sends an ' +
      'https link on auth.example.com, which the demo policy allows; "plain_http" and "other_host" ' +
      "send links the policy refuses.",
    inputSchema: args({
      service: { type: "string", default: "calendar" },
      link: { type: "string", enum: Object.keys(CONNECT_URLS), default: "allowed" },
    }),
  }, async (input, ctx) => {
    const service = str(input.service, "calendar");
    const url = (CONNECT_URLS[str(input.link, "allowed")] ?? CONNECT_URLS.allowed!)(service);
    const answer = inputResponse(ctx.mcpReq.inputResponses, "signin");
    if (stateOf(ctx, "connect_account") === undefined || answer.kind !== "elicit") {
      const signin = inputRequired.elicitUrl({ message: `Sign in to connect your ${service} account`, url });
      return await ask(ctx, { tool: "connect_account" }, { signin });
    }
    if (answer.action !== "accept") {
      return text(`Your ${service} account was not connected: you answered "${answer.action}".`);
    }
    return text(
      `You agreed to open ${url}. A real server would now wait for the sign-in to finish; the demo stops here.`,
    );
  });

  server.registerTool("summarize", {
    title: "Summarize with the client's model",
    description: "Asks the client's model for a summary (sampling) with maxTokens 100000, far more " +
      "than the demo policy lets through, and shows the reply.",
    inputSchema: args({ text: { type: "string", default: SUMMARY_TEXT } }),
  }, async (input, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "summary");
    if (stateOf(ctx, "summarize") === undefined || answer.kind !== "sampling") {
      const prompt = `Summarize in one sentence: ${str(input.text, SUMMARY_TEXT)}`;
      const summary = inputRequired.createMessage({
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        maxTokens: 100000,
      });
      return await ask(ctx, { tool: "summarize" }, { summary });
    }
    const blocks = Array.isArray(answer.result.content) ? answer.result.content : [answer.result.content];
    const reply = blocks.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join(" ");
    return text(`Asked for maxTokens 100000. Model "${answer.result.model}" replied: ${reply}`);
  });

  server.registerTool("list_workspace", {
    title: "List the workspace",
    description: "Asks the client which folders it shares (roots), and lists them.",
  }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "roots");
    if (stateOf(ctx, "list_workspace") === undefined || answer.kind !== "roots") {
      return await ask(ctx, { tool: "list_workspace" }, { roots: inputRequired.listRoots() });
    }
    if (answer.roots.length === 0) return text("The client shares no roots.");
    const lines = answer.roots.map((root) =>
      `- ${root.uri}${root.name === undefined ? "" : ` (${root.name})`}`
    );
    return text(`The client shares ${answer.roots.length} root(s):\n${lines.join("\n")}`);
  });

  server.registerTool("plan_party", {
    title: "Plan a party",
    description:
      "Two rounds: asks what the party celebrates, then a follow-up question that depends on the answer.",
  }, async (ctx): Promise<TextResult | InputRequiredResult> => {
    const state = stateOf(ctx, "plan_party");
    const known = findOccasion(state?.occasion);
    if (state === undefined || known === undefined) {
      // Round 1 (or its answer): what are we celebrating?
      const first = inputResponse(ctx.mcpReq.inputResponses, "occasion");
      const occasion = first.kind === "elicit" ? findOccasion(first.content?.occasion) : undefined;
      if (state !== undefined && first.kind === "elicit" && first.action !== "accept") {
        return text(`No party: you answered "${first.action}" in round 1.`);
      }
      if (state === undefined || occasion === undefined) {
        return await ask(ctx, { tool: "plan_party" }, { occasion: elicit(ROUND_ONE) });
      }
      // Round 2: the follow-up depends on the answer to round 1.
      return await ask(ctx, { tool: "plan_party", occasion: occasion.id }, {
        detail: elicit(occasion.followUp),
      });
    }
    const second = inputResponse(ctx.mcpReq.inputResponses, "detail");
    if (second.kind !== "elicit") return await ask(ctx, state, { detail: elicit(known.followUp) });
    if (second.action !== "accept") return text(`No party: you answered "${second.action}" in round 2.`);
    return text(`Party planned: ${known.plan(str(second.content?.detail, "someone"))}.`);
  });

  server.registerTool("long_report", {
    title: "Write a long report",
    description: `Takes about ${REPORT_MS / 1000} s and asks one question on the way. Runs as a task ` +
      `(${TASKS_EXTENSION}) when the client declares that extension, else answers in place.`,
    inputSchema: args({ topic: { type: "string", default: "the demo quarter" } }),
  }, async (input, ctx) => {
    // Clients that declared the tasks extension never reach this: _report-task.ts serves them.
    const topic = str(input.topic, "the demo quarter");
    const answer = inputResponse(ctx.mcpReq.inputResponses, "appendix");
    if (stateOf(ctx, "long_report") === undefined || answer.kind !== "elicit") {
      return await ask(ctx, { tool: "long_report" }, { appendix: APPENDIX_QUESTION });
    }
    await pause(REPORT_MS, ctx.mcpReq.signal);
    return text(reportText(topic, answer));
  });
  return server;
}

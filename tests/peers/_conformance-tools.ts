/**
 * The fixtures that the official conformance suite's server scenarios call (`test_simple_text`,
 * `test://static-text`, `test_simple_prompt`, `test_input_required_result_*`, …), each built as
 * the scenario's own description asks, on `@modelcontextprotocol/server` 2.4.0. The modern peer
 * serves them instead of its own tools with `--conformance-fixtures` (`modern-server.ts`), and
 * `npm run conformance` runs those scenarios through the gateway in front of it, for hosts of
 * every era it serves: what the suite then checks is what the gateway relays, seals and asks for.
 * The `tasks-*` scenarios' fixtures, which need the tasks extension: `_conformance-tasks.ts`.
 *
 * @module
 */
import {
  acceptedContent,
  type InputRequest,
  inputRequired,
  inputResponse,
  McpServer,
  type RequestStateCodec,
  ResourceTemplate,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { elicit, type PeerState, schema, text } from "./_modern-requests.ts";
import { registerTaskFixtures } from "./_conformance-tasks.ts";

/** A 1×1 red PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/** A WAV header with no samples (44 bytes: 8 kHz, mono, 8 bits). */
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

const NAME_FORM = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
} as const;

/**
 * The input schema that `json-schema-2020-12` expects of `json_schema_2020_12_tool`, keyword for
 * keyword (the suite compares them): 2020-12 keywords that must reach the caller unchanged.
 */
const SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

/** Builds the per-request server; `codec` seals every `requestState` of the process with one key. */
export function createConformanceServer(codec: RequestStateCodec<PeerState>): McpServer {
  const server = new McpServer({ name: "sluice-conformance-peer", version: "1.0.0" }, {
    capabilities: { tools: {}, resources: {}, prompts: {}, logging: {}, completions: {} },
    requestState: { verify: codec.verify },
  });
  registerContentTools(server);
  registerInputTools(server, codec);
  registerResources(server);
  registerPrompts(server, codec);
  registerTaskFixtures(server);
  return server;
}

function registerContentTools(server: McpServer): void {
  const noArguments = schema({ type: "object", properties: {} });
  const fixed = (name: string, description: string, result: () => unknown) =>
    server.registerTool(name, { description, inputSchema: noArguments }, () => result() as never);
  fixed(
    "test_simple_text",
    "Returns one text block",
    () => text("This is a simple text response for testing."),
  );
  fixed("test_image_content", "Returns a PNG image", () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  fixed("test_audio_content", "Returns a WAV clip", () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  fixed("test_embedded_resource", "Returns an embedded text resource", () => ({
    content: [{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    }],
  }));
  fixed("test_multiple_content_types", "Returns text, an image and a resource", () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }));
  fixed("test_error_handling", "Always fails", () => ({
    isError: true,
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
  }));
  server.registerTool("test_tool_with_logging", {
    description: "Logs three info messages 50 ms apart",
    inputSchema: noArguments,
  }, async (_args, ctx) => {
    for (
      const [i, data] of ["Tool execution started", "Tool processing data", "Tool execution completed"]
        .entries()
    ) {
      if (i > 0) await delay(50);
      await ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data } });
    }
    return text("Logging test completed");
  });
  server.registerTool("test_tool_with_progress", {
    description: "Reports progress 0, 50 and 100 of 100, 50 ms apart",
    inputSchema: noArguments,
  }, async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const [i, progress] of [0, 50, 100].entries()) {
      if (i > 0) await delay(50);
      if (progressToken === undefined) continue;
      await ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken, progress, total: 100 },
      });
    }
    return text("Progress test completed");
  });
  // SEP-1699's scenario (server-sse-polling): a call that outlasts the gateway's first heartbeat,
  // so the gateway answers it with a stream that opens with its priming event.
  server.registerTool("test_reconnection", {
    description: "Answers after 500 ms",
    inputSchema: noArguments,
  }, async () => {
    await delay(500);
    return text("Reconnection test completed successfully.");
  });
  // SEP-2243's scenario (http-custom-header-server-validation) finds a tool whose argument is
  // mirrored in an `Mcp-Param-*` header and checks that the header is validated against the body.
  server.registerTool("test_custom_header", {
    description: "Echoes its region, which travels in the Mcp-Param-Region header too",
    inputSchema: schema({
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" } },
      required: ["region"],
    }),
  }, (args) => text(`region: ${String(args.region)}`));
  server.registerTool("json_schema_2020_12_tool", {
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: schema(SCHEMA_2020_12),
  }, (args) => text(JSON.stringify(args)));
}

/** The tools that ask their caller for input, in rounds (SEP-2322). */
function registerInputTools(server: McpServer, codec: RequestStateCodec<PeerState>): void {
  const noArguments = schema({ type: "object", properties: {} });
  const ask = async (ctx: ServerContext, step: string, inputRequests: Record<string, InputRequest>) =>
    inputRequired({ inputRequests, requestState: await codec.mint({ step }, ctx) });
  const stepOf = (ctx: ServerContext) => ctx.mcpReq.requestState<PeerState>()?.step;
  const responses = (ctx: ServerContext) => ctx.mcpReq.inputResponses;
  const tool = (name: string, run: (ctx: ServerContext) => unknown) =>
    server.registerTool(
      name,
      { description: `Conformance: ${name}`, inputSchema: noArguments },
      (_a, ctx) => run(ctx) as never,
    );
  const samplingAsk = (prompt: string, maxTokens: number) =>
    inputRequired.createMessage({
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens,
    });
  const samplingText = (answer: ReturnType<typeof inputResponse>) =>
    answer.kind === "sampling" && !Array.isArray(answer.result.content) &&
      answer.result.content.type === "text"
      ? answer.result.content.text
      : "";

  // The 2025 era's tools: one server-to-client request each, sent by the gateway to its caller.
  server.registerTool("test_sampling", {
    description: "Asks the client's LLM the prompt",
    inputSchema: schema({ type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] }),
  }, async (args, ctx) => {
    const answer = inputResponse(responses(ctx), "llm");
    if (stepOf(ctx) !== "test_sampling" || answer.kind !== "sampling") {
      return await ask(ctx, "test_sampling", { llm: samplingAsk(String(args.prompt), 100) });
    }
    return text(`LLM response: ${samplingText(answer)}`);
  });
  server.registerTool("test_elicitation", {
    description: "Asks the user for a username and an email",
    inputSchema: schema({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    }),
  }, async (args, ctx) => {
    const answer = inputResponse(responses(ctx), "user");
    if (stepOf(ctx) !== "test_elicitation" || answer.kind !== "elicit") {
      return await ask(ctx, "test_elicitation", {
        user: elicit(String(args.message), {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        }),
      });
    }
    return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  });
  const formTool = (name: string, requestedSchema: object) =>
    tool(name, async (ctx) => {
      const answer = inputResponse(responses(ctx), "form");
      if (stepOf(ctx) !== name || answer.kind !== "elicit") {
        return await ask(ctx, name, {
          form: elicit("Please review and update the form fields", requestedSchema),
        });
      }
      return text(
        `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      );
    });
  formTool("test_elicitation_sep1034_defaults", {
    type: "object",
    properties: {
      name: { type: "string", default: "John Doe" },
      age: { type: "integer", default: 30 },
      score: { type: "number", default: 95.5 },
      status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
      verified: { type: "boolean", default: true },
    },
  });
  formTool("test_elicitation_sep1330_enums", {
    type: "object",
    properties: {
      untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string",
        oneOf: [
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" },
        ],
      },
      legacyEnum: {
        type: "string",
        enum: ["opt1", "opt2", "opt3"],
        enumNames: ["Option One", "Option Two", "Option Three"],
      },
      untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
      titledMulti: {
        type: "array",
        items: {
          anyOf: [
            { const: "value1", title: "First Choice" },
            { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" },
          ],
        },
      },
    },
  });

  // server-stateless's diagnostic tools: one that needs sampling (a caller that did not declare
  // it gets -32021), one that asks for an elicitation, and one that logs (a caller that set no
  // logLevel gets no log).
  tool("test_missing_capability", async (ctx) => {
    if (stepOf(ctx) === "missing_capability") return text("sampled");
    return await ask(ctx, "missing_capability", { llm: samplingAsk("Say hello", 10) });
  });
  tool("test_streaming_elicitation", async (ctx) => {
    if (stepOf(ctx) === "streaming_elicitation") return text("elicited");
    return await ask(ctx, "streaming_elicitation", { user_name: elicit("What is your name?", NAME_FORM) });
  });
  tool("test_logging_tool", async (ctx) => {
    await ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data: "logged" } });
    return text("logged once");
  });

  // The 2026-07-28 era's tools: input_required results, as each scenario describes them.
  tool("test_input_required_result_elicitation", (ctx) => {
    const name = acceptedContent(responses(ctx), "user_name")?.name;
    if (typeof name === "string") return text(`Hello, ${name}!`);
    return inputRequired({ inputRequests: { user_name: elicit("What is your name?", NAME_FORM) } });
  });
  tool("test_input_required_result_sampling", (ctx) => {
    const answer = inputResponse(responses(ctx), "capital_question");
    if (answer.kind === "sampling") return text(`The model answered: ${samplingText(answer)}`);
    return inputRequired({
      inputRequests: { capital_question: samplingAsk("What is the capital of France?", 100) },
    });
  });
  tool("test_input_required_result_list_roots", (ctx) => {
    const answer = inputResponse(responses(ctx), "client_roots");
    if (answer.kind === "roots") return text(`Roots: ${answer.roots.map((root) => root.uri).join(", ")}`);
    return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
  });
  tool("test_input_required_result_request_state", async (ctx) => {
    const answer = inputResponse(responses(ctx), "confirm");
    if (stepOf(ctx) === "request_state" && answer.kind === "elicit") {
      return text(`state-ok: ${answer.action}`);
    }
    return await ask(ctx, "request_state", {
      confirm: elicit("Please confirm", {
        type: "object",
        properties: { ok: { type: "boolean" } },
        required: ["ok"],
      }),
    });
  });
  tool("test_input_required_result_multiple_inputs", async (ctx) => {
    const name = inputResponse(responses(ctx), "user_name");
    const greeting = inputResponse(responses(ctx), "greeting");
    const roots = inputResponse(responses(ctx), "client_roots");
    if (
      stepOf(ctx) === "multiple_inputs" && name.kind === "elicit" && greeting.kind === "sampling" &&
      roots.kind === "roots"
    ) {
      return text(
        `All inputs received: ${name.action}, ${samplingText(greeting)}, ${roots.roots.length} roots`,
      );
    }
    return await ask(ctx, "multiple_inputs", {
      user_name: elicit("What is your name?", NAME_FORM),
      greeting: samplingAsk("Generate a greeting", 50),
      client_roots: inputRequired.listRoots(),
    });
  });
  tool("test_input_required_result_multi_round", async (ctx) => {
    const step = stepOf(ctx);
    const color = acceptedContent(responses(ctx), "step2")?.color;
    if (step === "multi_round_2" && typeof color === "string") return text(`Round 3 complete: ${color}`);
    if (step === "multi_round_1" && typeof acceptedContent(responses(ctx), "step1")?.name === "string") {
      return await ask(ctx, "multi_round_2", {
        step2: elicit("Step 2: What is your favorite color?", {
          type: "object",
          properties: { color: { type: "string" } },
          required: ["color"],
        }),
      });
    }
    return await ask(ctx, "multi_round_1", { step1: elicit("Step 1: What is your name?", NAME_FORM) });
  });
  tool("test_input_required_result_tampered_state", async (ctx) => {
    if (stepOf(ctx) === "tampered_state") return text("state verified");
    return await ask(ctx, "tampered_state", { user_name: elicit("What is your name?", NAME_FORM) });
  });
  tool("test_input_required_result_capabilities", async (ctx) => {
    // What the request's `_meta` declared (the package strips the envelope's keys from `_meta`).
    const declared = server.server.getClientCapabilities();
    if (stepOf(ctx) === "capabilities") return text("capabilities respected");
    const inputRequests: Record<string, InputRequest> = {};
    if (declared?.["elicitation"] !== undefined) {
      inputRequests.user_name = elicit("What is your name?", NAME_FORM);
    }
    if (declared?.["sampling"] !== undefined) inputRequests.greeting = samplingAsk("Generate a greeting", 50);
    if (declared?.["roots"] !== undefined) inputRequests.client_roots = inputRequired.listRoots();
    if (Object.keys(inputRequests).length === 0) return text("nothing to ask: no input capability declared");
    return await ask(ctx, "capabilities", inputRequests);
  });
}

function registerResources(server: McpServer): void {
  const textResource = (uri: string, content: string, mimeType = "text/plain") => ({
    contents: [{ uri, mimeType, text: content }],
  });
  server.registerResource("static-text", "test://static-text", {
    description: "A static text resource",
    mimeType: "text/plain",
  }, () => textResource("test://static-text", "This is the content of the static text resource."));
  server.registerResource("static-binary", "test://static-binary", {
    description: "A static PNG",
    mimeType: "image/png",
  }, () => ({ contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG }] }));
  server.registerResource("watched-resource", "test://watched-resource", {
    description: "A resource to subscribe to",
    mimeType: "text/plain",
  }, () => textResource("test://watched-resource", "Watched resource content."));
  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    {
      description: "Data for an id",
      mimeType: "application/json",
    },
    (uri, variables) => {
      const id = String(variables.id);
      const data = JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
      return textResource(uri.href, data, "application/json");
    },
  );
}

function registerPrompts(server: McpServer, codec: RequestStateCodec<PeerState>): void {
  const user = (content: unknown) => ({ role: "user" as const, content: content as never });
  server.registerPrompt("test_simple_prompt", { description: "A prompt without arguments" }, () => ({
    messages: [user({ type: "text", text: "This is a simple prompt for testing." })],
  }));
  server.registerPrompt("test_prompt_with_arguments", {
    description: "A prompt with two arguments",
    argsSchema: schema({
      type: "object",
      properties: {
        arg1: { type: "string", description: "First test argument" },
        arg2: { type: "string", description: "Second test argument" },
      },
      required: ["arg1", "arg2"],
    }),
  }, (args) => ({
    messages: [
      user({ type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` }),
    ],
  }));
  server.registerPrompt("test_prompt_with_embedded_resource", {
    description: "A prompt embedding a resource",
    argsSchema: schema({
      type: "object",
      properties: { resourceUri: { type: "string", description: "URI of the resource to embed" } },
      required: ["resourceUri"],
    }),
  }, (args) => ({
    messages: [
      user({
        type: "resource",
        resource: {
          uri: String(args.resourceUri),
          mimeType: "text/plain",
          text: "Embedded resource content for testing.",
        },
      }),
      user({ type: "text", text: "Please process the embedded resource above." }),
    ],
  }));
  server.registerPrompt("test_prompt_with_image", { description: "A prompt with an image" }, () => ({
    messages: [
      user({ type: "image", data: PNG, mimeType: "image/png" }),
      user({ type: "text", text: "Please analyze the image above." }),
    ],
  }));
  server.registerPrompt("test_input_required_result_prompt", {
    description: "A prompt that asks for its context first",
  }, async (ctx) => {
    const context = acceptedContent(ctx.mcpReq.inputResponses, "user_context")?.context;
    if (typeof context === "string") {
      return { messages: [user({ type: "text", text: `Use this context: ${context}` })] };
    }
    return inputRequired({
      inputRequests: {
        user_context: elicit("What context should the prompt use?", {
          type: "object",
          properties: { context: { type: "string" } },
          required: ["context"],
        }),
      },
      requestState: await codec.mint({ step: "prompt" }, ctx),
    }) as never;
  });
  // completion/complete: declared above, answered with no suggestions (the scenario allows it).
  server.server.setRequestHandler(
    "completion/complete",
    () => ({ completion: { values: [], hasMore: false } }),
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

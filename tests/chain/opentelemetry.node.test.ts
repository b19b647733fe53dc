// Decision events as OpenTelemetry spans and metrics, through the real API and SDK
// (@opentelemetry/api 1.9 with sdk-trace-base and sdk-metrics 2.12, in-memory exporters): the
// client's calls and input requests become client spans with the MCP semantic conventions'
// attribute names, and calls are recorded in mcp.client.operation.duration. Node only: the
// SDK's in-memory exporters are enough to see what a backend would get.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as api from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { createClient, openTelemetryDecisions } from "../../mod.ts";
import { createClient as createLegacyClient } from "../../src/client/legacy/legacy-client.ts";
import {
  legacyAskingServer,
  result,
  rpcError,
  scriptedServer,
  toolsList,
} from "../_support/scripted-server.ts";

const spans = new InMemorySpanExporter();
const tracing = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
const meters = new MeterProvider({ readers: [reader] });
api.trace.setGlobalTracerProvider(tracing);
api.metrics.setGlobalMeterProvider(meters);

after(async () => {
  await meters.shutdown();
  await tracing.shutdown();
  api.trace.disable();
  api.metrics.disable();
});

const START = Date.UTC(2026, 11, 1, 12, 0, 0);

describe("openTelemetryDecisions()", () => {
  test("a completed call, a tool error, a failed call, an answered input request and a failed read become client spans and one histogram, a read's URI without its secrets", async () => {
    const upstream = scriptedServer((request) => {
      const { id } = request.body;
      const params = request.body.params ?? {};
      if (request.body.method === "tools/list") return toolsList(id, []);
      if (params.name === "ok") return result(id, { resultType: "complete", content: [] });
      if (params.name === "bad") return result(id, { resultType: "complete", content: [], isError: true });
      if (params.name === "sample" && params.inputResponses === undefined) {
        return result(id, {
          resultType: "input_required",
          inputRequests: {
            s: {
              method: "sampling/createMessage",
              params: {
                messages: [{ role: "user", content: { type: "text", text: "q" } }],
                maxTokens: 100_000,
              },
            },
          },
          requestState: "st",
        });
      }
      if (params.name === "sample") return result(id, { resultType: "complete", content: [] });
      if (request.body.method === "resources/read") {
        return rpcError(id, -32602, `Resource ${String(params.uri)} not found`);
      }
      return rpcError(id, -32602, "Unknown tool: missing");
    });
    const client = createClient({
      name: "agent",
      clock: { now: () => START },
      fetch: upstream.fetch,
      handler: { sampling: () => ({ role: "assistant", content: { type: "text", text: "a" }, model: "m" }) },
      policies: [{
        server: "demo",
        transport: { url: "https://mcp.example.com/mcp" },
        era: "modern",
        sampling: { maxTokens: 1024 },
      }],
    });
    client.onDecision(openTelemetryDecisions(api));
    try {
      await client.callTool("demo", "ok");
      await client.callTool("demo", "bad");
      await client.callTool("demo", "missing").catch(() => {});
      await client.callTool("demo", "sample");
      await client.readResource("demo", "https://user:pw@x.example/r?token=SECRET").catch(() => {});
    } finally {
      await client.close();
    }
    const finished = spans.getFinishedSpans().map((span) => ({
      name: span.name,
      kind: span.kind,
      status: span.status,
      attributes: span.attributes,
      startTime: span.startTime,
      endTime: span.endTime,
    }));
    const at = [Math.floor(START / 1000), (START % 1000) * 1e6];
    const call = (name: string, extra: Record<string, unknown> = {}) => ({
      "mcp.method.name": "tools/call",
      "sluice.server": "demo",
      "sluice.client": "agent",
      "gen_ai.tool.name": name,
      ...extra,
    });
    assert.deepEqual(finished, [
      {
        name: "tools/call ok",
        kind: api.SpanKind.CLIENT,
        status: { code: api.SpanStatusCode.UNSET },
        attributes: call("ok", { "sluice.outcome": "completed" }),
        startTime: at,
        endTime: at,
      },
      {
        name: "tools/call bad",
        kind: api.SpanKind.CLIENT,
        status: { code: api.SpanStatusCode.ERROR, message: "The tool answered with an error" },
        attributes: call("bad", { "sluice.outcome": "tool_error", "error.type": "tool_error" }),
        startTime: at,
        endTime: at,
      },
      {
        name: "tools/call missing",
        kind: api.SpanKind.CLIENT,
        status: {
          code: api.SpanStatusCode.ERROR,
          message: 'Server "demo" answered tools/call with error -32602: "Unknown tool: missing"',
        },
        attributes: call("missing", { "sluice.outcome": "failed", "error.type": "-32602" }),
        startTime: at,
        endTime: at,
      },
      {
        name: "sampling/createMessage",
        kind: api.SpanKind.CLIENT,
        status: { code: api.SpanStatusCode.UNSET },
        attributes: {
          "mcp.method.name": "sampling/createMessage",
          "sluice.server": "demo",
          "sluice.client": "agent",
          "sluice.outcome": "answered",
          "sluice.era": "modern",
          "sluice.changes": "maxTokens 100000 → 1024",
          "sluice.handler_ms": 0,
        },
        startTime: at,
        endTime: at,
      },
      {
        name: "tools/call sample",
        kind: api.SpanKind.CLIENT,
        status: { code: api.SpanStatusCode.UNSET },
        attributes: call("sample", { "sluice.outcome": "completed" }),
        startTime: at,
        endTime: at,
      },
      {
        // Named by its method alone: a URI would make a span name per resource.
        name: "resources/read",
        kind: api.SpanKind.CLIENT,
        status: {
          code: api.SpanStatusCode.ERROR,
          message:
            'Server "demo" answered resources/read with error -32602: "Resource https://user:…@x.example/r?token=… not found"',
        },
        attributes: {
          "mcp.method.name": "resources/read",
          "sluice.server": "demo",
          "sluice.client": "agent",
          "mcp.resource.uri": "https://user:…@x.example/r?token=…",
          "sluice.outcome": "failed",
          "error.type": "-32602",
        },
        startTime: at,
        endTime: at,
      },
    ]);
    await reader.forceFlush();
    const histogram = metrics.getMetrics().at(-1)?.scopeMetrics[0]?.metrics[0];
    assert.deepEqual(
      [histogram?.descriptor.name, histogram?.descriptor.unit, histogram?.dataPoints.length],
      ["mcp.client.operation.duration", "s", 5],
    );
    // What names one resource, task or caller stays on the span: each would make a series.
    assert.deepEqual(
      histogram?.dataPoints.flatMap((point) =>
        Object.keys(point.attributes).filter((key) =>
          /^(mcp\.resource\.uri|sluice\.task_id|sluice\.caller)$/.test(key)
        )
      ),
      [],
    );
  });
  test("a detached task's call and the wait for it become spans named by the method alone for the wait, its task id under sluice.task_id", async () => {
    spans.reset();
    const task = {
      taskId: "t-1",
      createdAt: "2026-01-01T00:00:00Z",
      lastUpdatedAt: "2026-01-01T00:00:00Z",
      ttlMs: null,
      pollIntervalMs: 500,
    };
    const upstream = scriptedServer((request) => {
      const { id, method } = request.body;
      if (method === "tools/list") return toolsList(id, []);
      if (method === "tools/call") return result(id, { resultType: "task", status: "working", ...task });
      return result(id, { resultType: "complete", status: "completed", ...task, result: { content: [] } });
    });
    const client = createClient({
      name: "agent",
      tasks: true,
      clock: { now: () => START },
      fetch: upstream.fetch,
      policies: [{ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, era: "modern" }],
    });
    client.onDecision(openTelemetryDecisions(api));
    try {
      await client.callTool("demo", "slow", {}, { detachTask: true });
      await client.awaitTask("demo", "t-1");
    } finally {
      await client.close();
    }
    const common = { "sluice.server": "demo", "sluice.client": "agent" };
    assert.deepEqual(
      spans.getFinishedSpans().map((span) => ({
        name: span.name,
        status: span.status,
        attributes: span.attributes,
      })),
      [
        {
          name: "tools/call slow",
          status: { code: api.SpanStatusCode.UNSET },
          attributes: {
            "mcp.method.name": "tools/call",
            ...common,
            "gen_ai.tool.name": "slow",
            "sluice.outcome": "task",
          },
        },
        {
          name: "tasks/get",
          status: { code: api.SpanStatusCode.UNSET },
          attributes: {
            "mcp.method.name": "tasks/get",
            ...common,
            "sluice.task_id": "t-1",
            "sluice.outcome": "completed",
          },
        },
      ],
    );
  });

  test("refuses at once what is not the @opentelemetry/api module, naming what it needs", () => {
    const needs = "openTelemetryDecisions(): expected the @opentelemetry/api module (`import * as api from " +
      '"@opentelemetry/api"`), with trace.getTracer and metrics.getMeter, received ';
    for (
      const [given, received] of [[undefined, "nothing"], [{}, "an object"], [
        { trace: api.trace },
        "an object",
      ]]
    ) {
      assert.throws(() => openTelemetryDecisions(given as never), {
        name: "TypeError",
        message: needs + received,
      });
    }
  });

  test("a legacy server's request whose params fail to decode becomes an input span with its refusal, as any other", async () => {
    spans.reset();
    const upstream = legacyAskingServer("2025-11-25", [
      { jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: { maxTokens: "many" } },
    ]);
    const client = createLegacyClient({
      name: "agent",
      clock: { now: () => START },
      fetch: upstream.fetch,
      policies: [{ server: "demo", transport: { url: "https://mcp.example.com/mcp" }, era: "legacy" }],
    });
    client.onDecision(openTelemetryDecisions(api));
    try {
      await client.callTool("demo", "ask");
    } finally {
      await client.close();
    }
    const message = "Invalid params: $.params.messages: expected a value (required), received undefined";
    const at = [Math.floor(START / 1000), (START % 1000) * 1e6];
    assert.deepEqual(
      spans.getFinishedSpans().filter((span) => span.name === "sampling/createMessage").map((span) => ({
        kind: span.kind,
        status: span.status,
        attributes: span.attributes,
        startTime: span.startTime,
        endTime: span.endTime,
      })),
      [{
        kind: api.SpanKind.CLIENT,
        status: { code: api.SpanStatusCode.ERROR, message },
        attributes: {
          "mcp.method.name": "sampling/createMessage",
          "sluice.server": "demo",
          "sluice.client": "agent",
          "sluice.outcome": "policy",
          "sluice.era": "legacy",
          "error.type": "-32602",
        },
        startTime: at,
        endTime: at,
      }],
    );
  });

  test("an input span says how many changes its event left out", () => {
    spans.reset();
    openTelemetryDecisions(api)({
      type: "input",
      time: new Date(START).toISOString(),
      client: "agent",
      server: "demo",
      era: "legacy",
      method: "roots/list",
      outcome: "answered",
      changes: [{ field: "roots[0].uri", from: "x:", to: null }],
      changesLeftOut: 2,
      durationMs: 0,
    });
    assert.deepEqual(spans.getFinishedSpans().map((span) => span.attributes), [{
      "mcp.method.name": "roots/list",
      "sluice.server": "demo",
      "sluice.client": "agent",
      "sluice.outcome": "answered",
      "sluice.era": "legacy",
      "sluice.changes": 'roots[0].uri "x:" → null',
      "sluice.changes_left_out": 2,
    }]);
  });
});

/**
 * Decision events as OpenTelemetry traces and metrics. Users pass their own `@opentelemetry/api`, an optional
 * peer dependency sluice never imports. Names follow OpenTelemetry's semantic conventions for MCP where they
 * exist (`mcp.method.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`, `error.type`, the
 * `mcp.client.operation.duration` histogram in seconds); the rest (the gateway's caller, the policy's changes
 * and refusals) is under `sluice.*`.
 *
 * @module
 */
import type { CallDecision, Decision, DecisionListener, InputDecision } from "./decision.ts";
import { describeValue } from "../_internal/quote.ts";

/** The parts of `@opentelemetry/api` this uses (structurally, so sluice needs no import of it). */
export interface OpenTelemetryApi {
  readonly trace: {
    getTracer(name: string, version?: string): {
      startSpan(
        name: string,
        options: { kind: number; startTime: number; attributes: Record<string, string | number | boolean> },
      ): {
        setStatus(status: { code: number; message?: string }): unknown;
        end(endTime?: number): void;
      };
    };
  };
  readonly metrics: {
    getMeter(name: string, version?: string): {
      createHistogram(
        name: string,
        options: { description: string; unit: string },
      ): { record(value: number, attributes: Record<string, string | number | boolean>): void };
    };
  };
}

/** `SpanKind.CLIENT` and `SpanStatusCode.ERROR` of `@opentelemetry/api` (stable numbers). */
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/**
 * A decision listener that records each call as a client span and in the
 * `mcp.client.operation.duration` histogram, and each input request as a span of its own.
 *
 * @param api The user's `@opentelemetry/api` (`import * as api from "@opentelemetry/api"`).
 * @returns The listener, for `client.onDecision` or the gateway's `decisions`.
 * @throws {TypeError} When `api` has no `trace.getTracer` or `metrics.getMeter`.
 * @example
 * ```ts
 * import { openTelemetryDecisions } from "./opentelemetry.ts";
 * // In your code: import * as api from "@opentelemetry/api";
 * //               client.onDecision(openTelemetryDecisions(api));
 * console.log(typeof openTelemetryDecisions); // function
 * ```
 */
export function openTelemetryDecisions(api: OpenTelemetryApi): DecisionListener {
  const given = api as
    | { trace?: { getTracer?: unknown }; metrics?: { getMeter?: unknown } }
    | null
    | undefined;
  if (typeof given?.trace?.getTracer !== "function" || typeof given?.metrics?.getMeter !== "function") {
    throw new TypeError(
      "openTelemetryDecisions(): expected the @opentelemetry/api module (`import * as api from " +
        '"@opentelemetry/api"`), with trace.getTracer and metrics.getMeter, received ' + describeValue(api),
    );
  }
  const tracer = api.trace.getTracer("sluice");
  const duration = api.metrics.getMeter("sluice").createHistogram("mcp.client.operation.duration", {
    description: "The duration of the MCP request as observed by the client (sluice)",
    unit: "s",
  });
  return (decision: Decision) => {
    const attributes = decision.type === "call" ? callAttributes(decision) : inputAttributes(decision);
    const endTime = Date.parse(decision.time);
    const span = tracer.startSpan(spanName(decision), {
      kind: SPAN_KIND_CLIENT,
      startTime: endTime - decision.durationMs,
      attributes,
    });
    const failure = decision.type === "call"
      ? decision.error?.message ??
        (decision.outcome === "tool_error" ? "The tool answered with an error" : undefined)
      : decision.refusal?.message;
    if (failure !== undefined) span.setStatus({ code: STATUS_ERROR, message: failure });
    span.end(endTime);
    if (decision.type === "call") duration.record(decision.durationMs / 1000, metricAttributes(attributes));
  };
}

/**
 * A call's attributes as the histogram takes them: without those that name one resource, task or
 * caller (`mcp.resource.uri`, `sluice.task_id`, `sluice.caller`), each of which would make a
 * series of its own; the span keeps them.
 */
function metricAttributes(
  attributes: Record<string, string | number | boolean>,
): Record<string, string | number | boolean> {
  const { "mcp.resource.uri": _uri, "sluice.task_id": _task, "sluice.caller": _caller, ...kept } = attributes;
  return kept;
}

/**
 * `{method} {target}`: a tool's or a prompt's name; anything else is named by its method alone, as the MCP
 * semantic conventions ask, so that names do not grow per resource or task.
 */
function spanName(decision: Decision): string {
  return decision.type === "call" && decision.name !== undefined &&
      (decision.method === "tools/call" || decision.method === "prompts/get")
    ? `${decision.method} ${decision.name}`
    : decision.method;
}

function common(decision: Decision): Record<string, string | number | boolean> {
  return {
    "mcp.method.name": decision.method,
    "sluice.server": decision.server,
    "sluice.client": decision.client,
    ...(decision.caller === undefined ? {} : { "sluice.caller": decision.caller }),
  };
}

function callAttributes(decision: CallDecision): Record<string, string | number | boolean> {
  const target = decision.name === undefined
    ? {}
    : decision.method === "tools/call"
    ? { "gen_ai.tool.name": decision.name }
    : decision.method === "prompts/get"
    ? { "gen_ai.prompt.name": decision.name }
    : decision.method === "resources/read"
    ? { "mcp.resource.uri": decision.name }
    : { "sluice.task_id": decision.name };
  // Added to common()'s object, not spread into a new one: V8 builds an object slowly when keys follow a
  // spread.
  return Object.assign(common(decision), target, {
    "sluice.outcome": decision.outcome,
    // A tool's own error result is a failure too (OpenTelemetry's MCP conventions say so).
    ...(decision.error !== undefined
      ? {
        "error.type": decision.error.code === undefined ? decision.error.kind : String(decision.error.code),
      }
      : decision.outcome === "tool_error"
      ? { "error.type": "tool_error" }
      : {}),
  });
}

function inputAttributes(decision: InputDecision): Record<string, string | number | boolean> {
  return Object.assign(common(decision), {
    "sluice.outcome": decision.outcome,
    "sluice.era": decision.era,
    ...(decision.mode === undefined ? {} : { "sluice.mode": decision.mode }),
    ...(decision.changes.length === 0 ? {} : {
      "sluice.changes": decision.changes.map((c) =>
        `${c.field} ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`
      )
        .join(", "),
    }),
    ...(decision.changesLeftOut === undefined ? {} : { "sluice.changes_left_out": decision.changesLeftOut }),
    ...(decision.refusal === undefined ? {} : { "error.type": String(decision.refusal.code) }),
    ...(decision.handlerMs === undefined ? {} : { "sluice.handler_ms": decision.handlerMs }),
  });
}

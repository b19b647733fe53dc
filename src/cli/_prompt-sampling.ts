/**
 * A sampling request at the terminal: the request as the policy's checks left it (messages,
 * system prompt, `maxTokens` after the clamp, model preferences), then the operator types the
 * reply, several lines ended by a line with just `.`, or `:refuse`. Stdin closing fails the request.
 *
 * @module
 */
import type { HandlerError, InputContext } from "../handler/handler.ts";
import type { CreateMessageRequestParams, CreateMessageResult } from "../protocol/sampling.ts";
import { askingLine, type Prompter } from "./_prompt-input.ts";
import { safeLine, safeLines } from "./_terminal.ts";

/** The `model` of every reply typed at the terminal. */
export const OPERATOR_MODEL = "human-operator";

/**
 * Shows a sampling request and reads the operator's reply.
 *
 * @param prompter The terminal.
 * @param request The params (clamped, coerced), the context, the code a refusal carries, and the
 *   call's round of input.
 * @returns The reply as an assistant text message, or a refusal.
 */
export async function promptSampling(
  prompter: Prompter,
  request: { params: CreateMessageRequestParams; ctx: InputContext; rejectionCode: number; round: number },
): Promise<CreateMessageResult | HandlerError> {
  const { params, ctx } = request;
  const { screen } = prompter;
  screen.line(
    screen.style.bold(askingLine(ctx.serverId, "asks for a model reply (sampling)", request.round)),
  );
  for (const line of describeRequest(params, ctx.changes)) screen.line(`  ${line}`);
  screen.line('Type the reply, then a line with just "." to send it; or :refuse to refuse.');
  const refused: HandlerError = {
    error: { code: request.rejectionCode, message: "The operator refused the sampling request" },
  };
  const lines: string[] = [];
  for (;;) {
    const answer = await prompter.ask(ctx.signal);
    if (answer.kind === "end") {
      return prompter.noteStdinClosed(
        `the sampling request of server "${ctx.serverId}"`,
        ctx,
        request.rejectionCode,
      );
    }
    if (answer.kind === "aborted") return refused;
    const command = answer.text.trim();
    if (command === ":refuse" || command === ":decline" || command === ":cancel") {
      screen.line("Refused.");
      prompter.noteDeclined(`refused the sampling request of server "${ctx.serverId}"`);
      return refused;
    }
    if (answer.text !== ".") {
      lines.push(answer.text);
      continue;
    }
    if (lines.join("").trim() === "") {
      screen.line('  invalid: the reply is empty, expected some text before "." (or :refuse)');
      continue;
    }
    return { role: "assistant", content: { type: "text", text: lines.join("\n") }, model: OPERATOR_MODEL };
  }
}

/** What the server asked, as the policy left it; a changed value says what was asked. */
function describeRequest(params: CreateMessageRequestParams, changes: InputContext["changes"]): string[] {
  const asked = (field: string) => {
    const change = changes.find((c) => c.field === field);
    return change === undefined ? "" : ` (the server asked ${safeLine(String(change.from))})`;
  };
  const out = [`maxTokens: ${params.maxTokens}${asked("maxTokens")}`];
  if (params.systemPrompt !== undefined) {
    out.push("system prompt:", ...safeLines(params.systemPrompt).map((line) => `  ${line}`));
  }
  const preferences = params.modelPreferences;
  if (preferences !== undefined) {
    const hints = (preferences.hints ?? []).map((h) => JSON.stringify(safeLine(h.name ?? "")));
    const priorities = (["cost", "speed", "intelligence"] as const)
      .map((name) => [name, preferences[`${name}Priority`]] as const)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${name} ${value}`);
    out.push(
      `model preferences: ${
        [hints.length > 0 ? `hints ${hints.join(", ")}` : "", ...priorities]
          .filter((part) => part !== "").join("; ")
      }`,
    );
  }
  if (params.temperature !== undefined) out.push(`temperature: ${params.temperature}`);
  if (params.stopSequences !== undefined) {
    out.push(`stop sequences: ${params.stopSequences.map((s) => JSON.stringify(safeLine(s))).join(", ")}`);
  }
  if (params.includeContext !== undefined) {
    out.push(`include context: ${params.includeContext}${asked("includeContext")}`);
  }
  if (params.tools !== undefined) out.push(`tools: ${params.tools.map((t) => safeLine(t.name)).join(", ")}`);
  out.push("messages:");
  for (const message of params.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const lines = blocks.flatMap((block) => describeBlock(block as unknown as Record<string, unknown>));
    out.push(`  ${message.role}: ${lines[0] ?? ""}`, ...lines.slice(1).map((line) => `    ${line}`));
  }
  return out;
}

function describeBlock(block: Record<string, unknown>): string[] {
  switch (block["type"]) {
    case "text":
      return safeLines(block["text"], 100_000);
    case "image":
    case "audio":
      return [`[${block["type"]} ${safeLine(block["mimeType"])}]`];
    case "tool_use":
      return [`[tool_use ${safeLine(block["name"])} ${safeLine(block["input"], 1000)}]`];
    default:
      return [safeLine(block, 1000)];
  }
}

/**
 * The handler of `sluice call`: every input request is asked of the person at the terminal, one
 * at a time, and server log entries at or above a level are printed to stderr. Later rounds of
 * input show their round on each prompt.
 *
 * @module
 */
import { createElicitationFormCheck } from "../checks/elicitation-form.ts";
import { defineHandler, type Handler, type HandlerError } from "../handler/handler.ts";
import type { ElicitResult } from "../protocol/elicitation.ts";
import type { CompiledPolicy } from "../policy/compile-policy.ts";
import type { LogLevel } from "../policy/policy.ts";
import { sanitizeText } from "../notify/sanitize-text.ts";
import { atOrAbove } from "../protocol/logging-level.ts";
import type { Prompter } from "./_prompt-input.ts";
import { promptForm } from "./_prompt-form.ts";
import { promptRoots } from "./_prompt-roots.ts";
import { promptSampling } from "./_prompt-sampling.ts";
import { promptUrl } from "./_prompt-url.ts";

/** Options of {@linkcode createTerminalHandler}. */
export interface TerminalHandlerOptions {
  /** The terminal. */
  readonly prompter: Prompter;
  /** The server's compiled policy (form limits, origin, sampling rejection code). */
  readonly policy: CompiledPolicy;
  /** The folder offered as the root. */
  readonly cwd: string;
  /** Server log entries below this level are not printed. */
  readonly logLevel: LogLevel;
}

/**
 * Builds the terminal handler.
 *
 * @param options The terminal, the policy, the root folder and the log level.
 * @returns A handler implementing every kind, form and URL elicitation included.
 */
export function createTerminalHandler(options: TerminalHandlerOptions): Handler {
  const { prompter, policy } = options;
  const forms = createElicitationFormCheck({
    maxFields: policy.elicitation.maxFields,
    maxEnumValues: policy.elicitation.maxEnumValues,
  });
  const cancelled = { action: "cancel" } as const;
  return defineHandler({
    elicitationModes: ["form", "url"],
    elicitation: (params, ctx) =>
      prompter.exclusive<ElicitResult | HandlerError>(ctx, "the elicitation request", (round) => {
        if (ctx.mode === "url" && "url" in params) {
          return promptUrl(prompter, {
            params,
            ctx,
            serverOrigin: policy.elicitation.origin,
            round,
            timeoutMs: policy.handlerTimeoutMs.elicitation,
          });
        }
        const form = forms.check("requestedSchema" in params ? params.requestedSchema : undefined);
        if (!form.ok || ctx.mode !== "form" || !("requestedSchema" in params)) {
          return Promise.resolve(cancelled);
        }
        return promptForm(prompter, { params, shape: form.value.shape, ctx, round });
      }, cancelled),
    sampling: (params, ctx) =>
      prompter.exclusive(
        ctx,
        "the sampling request",
        (round) =>
          promptSampling(prompter, { params, ctx, rejectionCode: policy.sampling.rejectionCode, round }),
        { error: { code: policy.sampling.rejectionCode, message: "Cancelled" } },
      ),
    roots: (ctx) =>
      prompter.exclusive(
        ctx,
        "the roots request",
        (round) => promptRoots(prompter, { ctx, cwd: options.cwd, round }),
        {
          roots: [],
        },
      ),
    log: (level, entry) => {
      if (atOrAbove(level, options.logLevel)) prompter.screen.error(logLine(level, entry));
    },
  });
}

/**
 * A server log entry as a command prints it on stderr: one line, cleaned.
 *
 * @param level The entry's level.
 * @param entry The entry (its `logger` and `data`).
 * @returns The line, without its newline.
 */
export function logLine(
  level: LogLevel,
  entry: { readonly logger?: string; readonly data: unknown },
): string {
  const logger = entry.logger === undefined ? "" : ` ${sanitizeText(entry.logger, 200)}:`;
  return `[${level}]${logger} ${sanitizeText(entry.data, 4096)}`;
}

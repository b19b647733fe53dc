/**
 * Reads a command's arguments: `--flag value`, `--flag=value`, boolean `--flag`, `-h` for
 * `--help`, and `--` to end the flags. An unknown or repeated flag is a usage error that names it
 * and lists the flags the command knows.
 *
 * @module
 */
import type { CliIo } from "./cli-io.ts";

/** The flags a command knows, by name (without `--`): whether each takes a value. */
export type FlagKinds = Readonly<Record<string, "string" | "boolean">>;

/** A command line that was read. */
export interface ParsedArgs {
  /** The arguments that are not flags, in order. */
  readonly positionals: readonly string[];
  /** The flags given: a value flag's text, or `true` (a `Map`, so no name reaches a prototype). */
  readonly flags: ReadonlyMap<string, string | true>;
}

/** The parse, or the usage error to print. */
export type ParseOutcome =
  | { readonly ok: true; readonly args: ParsedArgs }
  | { readonly ok: false; readonly message: string };

/**
 * Reads `argv` against the flags a command knows (`--help` is always known).
 *
 * @param argv The arguments after the command's name.
 * @param kinds The command's flags.
 * @returns The positionals and flags, or a message naming the flag that was wrong.
 */
export function parseArgs(argv: readonly string[], kinds: FlagKinds): ParseOutcome {
  const known = new Map<string, "string" | "boolean">([...Object.entries(kinds), ["help", "boolean"]]);
  const valid = [...known.keys()].map((name) => `--${name}`).join(", ");
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const [written, inline] = splitFlag(arg);
    const name = written === "-h" ? "help" : written.replace(/^--/, "");
    const kind = written.startsWith("--") || written === "-h" ? known.get(name) : undefined;
    const fail = (message: string): ParseOutcome => ({ ok: false, message });
    if (kind === undefined) return fail(`unknown flag ${show(written)}, expected one of ${valid}`);
    if (flags.has(name)) return fail(`flag ${show(`--${name}`)} is given twice, expected it once`);
    if (kind === "boolean") {
      if (inline !== undefined) {
        return fail(`flag ${show(`--${name}`)} takes no value, received ${show(inline)}`);
      }
      flags.set(name, true);
      continue;
    }
    const value = inline ?? argv[i + 1];
    if (value === undefined || (inline === undefined && value.startsWith("--"))) {
      return fail(`flag ${show(`--${name}`)} expects a value, received nothing`);
    }
    if (inline === undefined) i++;
    flags.set(name, value);
  }
  return { ok: true, args: { positionals, flags } };
}

/**
 * Prints a usage error and how to get help.
 *
 * @param io The command's io.
 * @param command The command's name after `sluice`, e.g. `"serve"`.
 * @param message What was wrong.
 * @returns The exit code of a usage error, 2.
 */
export function usageError(io: CliIo, command: string, message: string): number {
  io.stderr.write(`sluice ${command}: ${message}\nRun "sluice ${command} --help" for usage.\n`);
  return 2;
}

/**
 * A value flag's text, when it was given.
 *
 * @param args The parsed arguments.
 * @param name The flag's name without `--`.
 * @returns The text, or `undefined`.
 */
export function flagText(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === "string" ? value : undefined;
}

/**
 * Quotes a user's or server's text for a message, cut to 80 characters.
 *
 * @param text The text.
 * @returns It in double quotes, JSON-escaped.
 */
export function show(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);
}

function splitFlag(arg: string): [string, string | undefined] {
  const equals = arg.indexOf("=");
  return equals < 0 ? [arg, undefined] : [arg.slice(0, equals), arg.slice(equals + 1)];
}

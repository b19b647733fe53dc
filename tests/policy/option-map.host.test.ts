// CONTRIBUTING.md's table "Where each policy option takes effect" names every policy option, and
// only those, with the files under src/ where each one takes effect. The rules it is held to:
//
// - The options are read from src/policy/policy.ts: every `readonly name?:` member of `Policy`, and
//   of each interface or type alias a member's type names, at its path (`transport.url`,
//   `transport.auth.oauth.scopes`, `access[].tools`: `[]` for a list). A member whose type names
//   such an interface is a row of its own as well (`sampling`, which may be `false`;
//   `transport.auth`). A `RateOption` is one option, as policies/README.md has it.
// - A row reads `| \`option\` | compiled as | where it takes effect |`. Every link in a row names a
//   file under src/, and the file exists.
// - Each linked file's text holds the option's name (the last segment of its path, e.g.
//   `maxEventBytes`) or the name the compiled policy gives it (the last segment of a name in the
//   "compiled as" column, e.g. `perMs`, `callTimeoutMs`, `secretEnv`).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";

const ROOT = new URL("../../", import.meta.url);
const HEADING = "## Where each policy option takes effect";

/** Types whose members are the parts of one option, not options of their own. */
const ONE_OPTION: ReadonlySet<string> = new Set(["RateOption"]);

interface Member {
  readonly name: string;
  readonly type: string;
}

/** The `readonly` members of each exported interface or type alias, by the type's name. */
function declarations(source: string): Map<string, Member[]> {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const out = new Map<string, Member[]>();
  for (const block of code.split(/^\s*export /m)) {
    const name = /^(?:interface|type)\s+(\w+)/.exec(block)?.[1];
    if (name === undefined) continue;
    // A union's `oauth?: undefined` only says the other branch's member is absent.
    const members = [...block.matchAll(/readonly (\w+)\??: ([^;}]+)/g)]
      .map(([, member, type]) => ({ name: member as string, type: (type as string).trim() }))
      .filter((member) => member.type !== "undefined");
    out.set(name, members);
  }
  return out;
}

/** Every option path under the type `name`, each member before the options inside it. */
function optionPaths(types: ReadonlyMap<string, readonly Member[]>, name: string, prefix = ""): string[] {
  const paths = (types.get(name) ?? []).flatMap(({ name: member, type }) => {
    const path = prefix + member;
    const inner = [...type.matchAll(/\w+/g)]
      .map(([word]) => word)
      .filter((word) => !ONE_OPTION.has(word) && (types.get(word)?.length ?? 0) > 0)
      .flatMap((word) => optionPaths(types, word, `${path}${type.includes("[]") ? "[]" : ""}.`));
    return [path, ...inner];
  });
  return [...new Set(paths)];
}

interface Row {
  readonly option: string;
  readonly compiledAs: readonly string[];
  readonly files: readonly string[];
}

/** The rows of the table under {@linkcode HEADING}. */
function tableRows(markdown: string): Row[] {
  const start = markdown.indexOf(`\n${HEADING}\n`);
  assert.notEqual(start, -1, `CONTRIBUTING.md has no "${HEADING}" section`);
  const section = markdown.slice(start + HEADING.length + 2).split(/\n## /)[0] as string;
  return section.split("\n").filter((line) => line.startsWith("| `")).map((line) => {
    const [, option = "", compiledAs = ""] = line.split("|").map((cell) => cell.trim());
    return {
      option: option.replace(/^`|`$/g, ""),
      compiledAs: [...compiledAs.matchAll(/`([^`]+)`/g)].map(([, name]) => name as string),
      files: [...line.matchAll(/\]\(([^)]+)\)/g)].map(([, target]) => target as string),
    };
  });
}

const lastSegment = (path: string): string => path.split(".").at(-1)?.replace("[]", "") ?? path;

const text = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

describe("CONTRIBUTING.md's map of the policy options", () => {
  const rows = tableRows(text("CONTRIBUTING.md"));

  test("the reader of policy.ts finds members, lists, switches and one-option rates", () => {
    const types = declarations(`
      /** A rate: \`readonly ignored?: string;\` in a comment is not a member. */
      export interface RateOption { readonly rate: number; readonly per: string }
      export type Auth = { readonly oauth: OAuth; readonly other?: undefined } | { readonly other: OAuth; readonly oauth?: undefined };
      export interface OAuth {
        readonly scopes?: readonly string[];
      }
      export interface Rule { readonly tools?: readonly string[] | "*" }
      export interface Policy {
        readonly server: string; // a comment
        readonly auth?: Auth;
        readonly sampling?: false | OAuth;
        readonly limit?: RateOption;
        readonly access?: readonly Rule[];
      }
      export function definePolicy(policy: Policy): Policy { return policy; }
    `);
    assert.deepEqual(optionPaths(types, "Policy"), [
      "server",
      "auth",
      "auth.oauth",
      "auth.oauth.scopes",
      "auth.other",
      "auth.other.scopes",
      "sampling",
      "sampling.scopes",
      "limit",
      "access",
      "access[].tools",
    ]);
  });

  test("its options are exactly those of src/policy/policy.ts, each once", () => {
    const derived = optionPaths(declarations(text("src/policy/policy.ts")), "Policy");
    const listed = rows.map((row) => row.option);
    assert.deepEqual(listed.filter((option, i) => listed.indexOf(option) !== i), []);
    assert.deepEqual({
      withoutRow: derived.filter((option) => !listed.includes(option)),
      notInPolicy: listed.filter((option) => !derived.includes(option)),
    }, { withoutRow: [], notInPolicy: [] });
    assert.equal(derived.length, 67);
  });

  test("every row links at least one file under src/, and every linked file exists", () => {
    assert.deepEqual(rows.filter((row) => row.files.length === 0).map((row) => row.option), []);
    const missing = rows.flatMap((row) =>
      row.files
        .filter((file) => !file.startsWith("src/") || !existsSync(new URL(file, ROOT)))
        .map((file) => `${row.option}: ${file}`)
    );
    assert.deepEqual(missing, []);
  });

  test("every linked file holds the option's name or its compiled name", () => {
    const unnamed = rows.flatMap((row) => {
      const names = [...new Set([row.option, ...row.compiledAs].map(lastSegment))];
      return row.files
        .filter((file) => existsSync(new URL(file, ROOT)))
        .filter((file) => !names.some((name) => text(file).includes(name)))
        .map((file) => `${row.option}: ${file} names none of ${names.join(", ")}`);
    });
    assert.deepEqual(unnamed, []);
  });
});

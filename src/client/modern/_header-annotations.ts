/**
 * Finds and checks the `x-mcp-header` annotations of a tool's `inputSchema`, for `compileToolHeaders`.
 * Internal.
 *
 * The schema is searched breadth-first, without recursion (a hostile schema may nest deeply) and with a node
 * budget (an object built in code may be cyclic). Every object under a keyword is searched except instance
 * data (`const`, `enum`, `default`, `examples`), so an annotation under `items`, `allOf`, `$defs` or an
 * unknown keyword is found and counts as unreachable: the tool fails closed. Keys of `properties` (and the
 * other name-to-schema maps) are property names, never annotations. `$ref` is never followed.
 *
 * @module
 */
import { isObject } from "../../_internal/is-object.ts";
import { describeValue } from "../../_internal/quote.ts";
/** One `Mcp-Param-{Name}` header a tool asks for. */
export interface ToolHeader {
  /** The annotated property's own key, e.g. `"region"`. */
  readonly property: string;
  /** The chain of `properties` keys from the root to it; `["region"]` for a top-level one. */
  readonly path: readonly string[];
  /** The `x-mcp-header` value, the `{Name}` of `Mcp-Param-{Name}`, e.g. `"Region"`. */
  readonly header: string;
  /** The property's declared type, which sets how its value is written. */
  readonly type: "string" | "integer" | "boolean";
}

/** What the search found: the headers, or every problem that makes the tool invalid. */
export interface HeaderAnnotations {
  /** The valid annotations, in breadth-first document order. */
  readonly headers: ToolHeader[];
  /** One sentence per invalid annotation. */
  readonly problems: string[];
}

interface Annotation {
  readonly schema: Readonly<Record<string, unknown>>;
  readonly where: string;
  /** The `properties` chain, or `undefined` when not reached through `properties` alone. */
  readonly path: readonly string[] | undefined;
}

const ANNOTATION = "x-mcp-header";
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x1f\x7f]/;
const MAX_NODES = 100_000;
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["const", "enum", "default", "examples"]);
const MAP_KEYWORDS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);
const TYPES: ReadonlySet<string> = new Set(["string", "integer", "boolean"]);

/**
 * Reads every `x-mcp-header` annotation of a schema.
 *
 * @param schema The tool's `inputSchema`, untouched.
 * @returns The headers and the problems; the tool is valid when there are no problems.
 */
export function readHeaderAnnotations(schema: unknown): HeaderAnnotations {
  const found = findAnnotations(schema);
  if (typeof found === "string") return { headers: [], problems: [found] };
  const headers: ToolHeader[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const annotation of found) {
    const header = checkAnnotation(annotation, seen);
    if (typeof header === "string") problems.push(header);
    else headers.push(header);
  }
  return { headers, problems };
}

// A node waiting in the queue; its location is kept as a link to its parent, so a deep schema
// costs memory in proportion to its size, not to the square of its depth.
interface Step {
  readonly node: unknown;
  readonly up: Step | undefined;
  /** This step's part of the JSONPath, e.g. `.properties.region` or `[0]`. */
  readonly segment: string;
  /** The property name when reached from a reachable schema through `properties`. */
  readonly name: string | undefined;
}

function findAnnotations(root: unknown): Annotation[] | string {
  const queue: Step[] = [{ node: root, up: undefined, segment: "$", name: undefined }];
  const found: Annotation[] = [];
  for (let i = 0; i < queue.length; i++) {
    if (i === MAX_NODES) return `inputSchema has more than ${MAX_NODES} nodes`;
    const step = queue[i]!;
    const { node } = step;
    if (Array.isArray(node)) {
      node.forEach((item: unknown, n) =>
        queue.push({ node: item, up: step, segment: `[${n}]`, name: undefined })
      );
    }
    if (!isObject(node)) continue;
    const reachable = step.up === undefined || step.name !== undefined;
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key === ANNOTATION) {
        found.push({ schema: node, where: whereOf(step), path: reachable ? pathOf(step) : undefined });
      } else if (MAP_KEYWORDS.has(key) && isObject(value)) {
        for (const name of Object.keys(value)) {
          const into = key === "properties" && reachable ? name : undefined;
          queue.push({ node: value[name], up: step, segment: segment(key) + segment(name), name: into });
        }
      } else if (!DATA_KEYWORDS.has(key)) {
        queue.push({ node: value, up: step, segment: segment(key), name: undefined });
      }
    }
  }
  return found;
}

function whereOf(step: Step): string {
  const parts: string[] = [];
  for (let at: Step | undefined = step; at !== undefined; at = at.up) parts.push(at.segment);
  return parts.reverse().join("");
}

// The chain of property names, or `undefined` for the root itself (it carries no property).
function pathOf(step: Step): readonly string[] | undefined {
  const names: string[] = [];
  for (let at: Step | undefined = step; at?.name !== undefined; at = at.up) names.push(at.name);
  return names.length > 0 ? names.reverse() : undefined;
}

function checkAnnotation(annotation: Annotation, seen: Map<string, string>): ToolHeader | string {
  const { schema, where, path } = annotation;
  const name: unknown = schema[ANNOTATION];
  if (typeof name !== "string") {
    return `x-mcp-header at "${where}" must be a string, received ${describeValue(name)}`;
  }
  if (name === "") return `x-mcp-header at "${where}" must not be empty`;
  const quoted = `x-mcp-header ${JSON.stringify(name).replaceAll("\x7f", "\\u007f")} at "${where}"`;
  if (CONTROL.test(name)) return `${quoted} must not contain control characters`;
  if (!TOKEN.test(name)) {
    return `${quoted} must be an RFC 9110 token (ASCII letters, digits, !#$%&'*+-.^_\`|~)`;
  }
  const first = seen.get(name.toLowerCase());
  if (first !== undefined) return `${quoted} repeats ${first} (header names ignore letter case)`;
  seen.set(name.toLowerCase(), quoted);
  if (path === undefined) {
    return `${quoted} must be on a property reached from the root through "properties" alone`;
  }
  const type = primitiveType(schema["type"]);
  if (type === undefined) return `${quoted} ${typeProblem(schema["type"])}`;
  return Object.freeze({
    property: path[path.length - 1]!,
    path: Object.freeze([...path]),
    header: name,
    type,
  });
}

function primitiveType(type: unknown): ToolHeader["type"] | undefined {
  const kinds = typeKinds(type);
  const only = kinds.length === 1 ? kinds[0] : undefined;
  return typeof only === "string" && TYPES.has(only) ? only as ToolHeader["type"] : undefined;
}

function typeProblem(type: unknown): string {
  if (typeKinds(type).includes("number")) {
    return `is on a property of type "number", which is not permitted (use "integer")`;
  }
  const received = type === undefined ? "no type" : JSON.stringify(type);
  return `must be on a property of type "string", "integer" or "boolean" (alone or with "null"), received ${received}`;
}

// The declared types other than "null", without repeats.
function typeKinds(type: unknown): unknown[] {
  const list: unknown[] = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
  return [...new Set(list.filter((kind) => kind !== "null"))];
}

function segment(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

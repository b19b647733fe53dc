// Two MCP hosts at once before server-filesystem over stdio, through a real gateway process
// (`sluice serve`): the sdk 1.32.2 client and the official client 2.4.0 (default settings), each
// with a folder of its own as its only root. Each legacy host session gets its own upstream
// session (its own server-filesystem process), which asks that host for its roots at start-up and
// serves only them: each host sees its own folder, reads its own file, and cannot read the other's.
//
// Node only: what is under test runs in its own Node process whichever runtime drives it.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  Client as OfficialClient,
  StreamableHTTPClientTransport as OfficialTransport,
} from "@modelcontextprotocol/client";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as SdkTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { eventually } from "../_support/eventually.ts";
import { type HostsGateway, NODE_ONLY, startHostsGateway } from "./_hosts.ts";

const skip = NODE_ONLY;

/** One host: how it calls a tool, changes its root, and how often it was asked for roots. */
interface FilesHost {
  readonly name: string;
  /** Its folder (real path), holding `note.txt`. */
  folder: string;
  readonly asked: () => number;
  call(name: string, args?: Record<string, unknown>): Promise<unknown>;
  /** Makes `folder` its only root and tells the server (`notifications/roots/list_changed`). */
  moveTo(folder: string): Promise<void>;
  close(): Promise<void>;
}

const rootsOf = (host: FilesHost) => ({ roots: [{ uri: pathToFileURL(host.folder).href, name: host.name }] });

async function sdkHost(url: string, folder: string): Promise<FilesHost> {
  const client = new SdkClient({ name: "sdk-host", version: "1.32.2" }, {
    capabilities: { roots: { listChanged: true } },
  });
  const transport = new SdkTransport(new URL(url));
  let asked = 0;
  const host: FilesHost = {
    name: "sdk-host",
    folder,
    asked: () => asked,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    async moveTo(next) {
      host.folder = next;
      await client.sendRootsListChanged();
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
  client.setRequestHandler(ListRootsRequestSchema, () => (asked++, rootsOf(host)));
  await client.connect(transport);
  return host;
}

async function officialHost(url: string, folder: string): Promise<FilesHost> {
  const client = new OfficialClient({ name: "official-host", version: "2.4.0" }, {
    capabilities: { roots: { listChanged: true } },
  });
  const transport = new OfficialTransport(new URL(url));
  let asked = 0;
  const host: FilesHost = {
    name: "official-host",
    folder,
    asked: () => asked,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    async moveTo(next) {
      host.folder = next;
      await client.sendRootsListChanged();
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
  client.setRequestHandler("roots/list", () => (asked++, rootsOf(host)));
  await client.connect(transport);
  return host;
}

/** What list_allowed_directories answers when `folders` are allowed. */
function allowed(...folders: string[]) {
  const text = `Allowed directories:\n${folders.join("\n")}`;
  return { content: [{ type: "text", text }], structuredContent: { content: text } };
}

/** What read_text_file answers for a file it may read. */
function read(text: string) {
  return { content: [{ type: "text", text }], structuredContent: { content: text } };
}

/** What read_text_file answers for a file outside the allowed folder. */
function denied(path: string, allowedFolder: string) {
  return {
    content: [{
      type: "text",
      text: `Access denied - path outside allowed directories: ${path} not in ${allowedFolder}`,
    }],
    isError: true,
  };
}

/** Waits until server-filesystem serves the host's folder (it applies roots after answering them). */
async function servesItsRoot(host: FilesHost): Promise<void> {
  const want = allowed(host.folder);
  await eventually(`${host.name}'s roots applied`, async () => {
    const listed = await host.call("list_allowed_directories");
    return JSON.stringify(listed) === JSON.stringify(want) ? true : undefined;
  });
}

describe("sluice serve before server-filesystem (stdio), for two hosts at once, each with its own root", {
  skip,
}, () => {
  let gateway: HostsGateway;
  let base: string;
  let hosts: FilesHost[] = [];
  let third: string;

  before(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "sluice-files-")));
    for (const name of ["sdk", "official", "moved"]) {
      mkdirSync(join(base, name));
      writeFileSync(join(base, name, "note.txt"), `the ${name} host's note`);
    }
    third = join(base, "moved");
    gateway = await startHostsGateway();
    hosts = await Promise.all([
      sdkHost(gateway.endpoint("files"), join(base, "sdk")),
      officialHost(gateway.endpoint("files"), join(base, "official")),
    ]);
  });
  after(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    if (gateway !== undefined) assert.equal(await gateway.stop(), 0);
    if (base !== undefined) rmSync(base, { recursive: true, force: true });
  });

  test("sluice serve passes each server-filesystem's roots/list down to its own host: each sees only its own folder", async () => {
    await Promise.all(hosts.map(servesItsRoot));
    const listed = await Promise.all(hosts.map((host) => host.call("list_allowed_directories")));
    assert.deepEqual(
      [listed, hosts.map((host) => host.asked())],
      [hosts.map((host) => allowed(host.folder)), [1, 1]],
    );
  });

  test("sluice serve lets each host read its own file and not the other's", async () => {
    const [sdk, official] = hosts as [FilesHost, FilesHost];
    const results = await Promise.all([
      sdk.call("read_text_file", { path: join(sdk.folder, "note.txt") }),
      sdk.call("read_text_file", { path: join(official.folder, "note.txt") }),
      official.call("read_text_file", { path: join(official.folder, "note.txt") }),
      official.call("read_text_file", { path: join(sdk.folder, "note.txt") }),
    ]);
    assert.deepEqual(results, [
      read("the sdk host's note"),
      denied(join(official.folder, "note.txt"), sdk.folder),
      read("the official host's note"),
      denied(join(sdk.folder, "note.txt"), official.folder),
    ]);
  });

  test("sluice serve passes roots/list_changed up and the new roots/list down: only that host's folder moves", async () => {
    const [sdk, official] = hosts as [FilesHost, FilesHost];
    const before = official.folder;
    await sdk.moveTo(third);
    await servesItsRoot(sdk);
    const results = await Promise.all([
      sdk.call("read_text_file", { path: join(third, "note.txt") }),
      official.call("list_allowed_directories"),
      official.call("read_text_file", { path: join(third, "note.txt") }),
    ]);
    assert.deepEqual([results, sdk.asked(), official.asked()], [
      [read("the moved host's note"), allowed(before), denied(join(third, "note.txt"), before)],
      2,
      1,
    ]);
  });
});

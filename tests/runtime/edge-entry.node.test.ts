import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { transform } from "esbuild";
import { Miniflare } from "miniflare";
import * as sluice from "../../mod.ts";
import { bundle, root } from "../_support/bundle.ts";

const RUNTIME_GLOBALS = /\b(Deno|Bun|process|Buffer|require|__dirname|__filename)\b/;

describe("the edge entry mod.ts", () => {
  test("imports nothing from node:*, and its own files use no Deno., Bun., process or Buffer", async () => {
    const { metafile } = await bundle("mod.ts", { external: true });
    const ownFiles = Object.keys(metafile.inputs).sort();
    const externals = Object.values(metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    assert.deepEqual(externals.filter((path) => path.startsWith("node:") || !/^[@a-z]/.test(path)), []);
    const dependencies = Object.keys(JSON.parse(readFileSync(`${root}package.json`, "utf8")).dependencies);
    assert.deepEqual(
      externals.filter((path) => !dependencies.some((d) => path === d || path.startsWith(`${d}/`))),
      [],
    );
    const offenders: string[] = [];
    for (const file of ownFiles) {
      const { code } = await transform(readFileSync(`${root}${file}`, "utf8"), {
        loader: "ts",
        legalComments: "none",
      });
      const match = RUNTIME_GLOBALS.exec(code);
      if (match !== null) offenders.push(`${file}: ${match[0]}`);
    }
    assert.deepEqual(offenders, []);
    assert.ok(ownFiles.includes("mod.ts") && ownFiles.length > 1, ownFiles.join(", "));
  });

  test("loads and runs in workerd with no compatibility flags (no nodejs_compat)", async () => {
    const { code } = await bundle("tests/runtime/edge-worker.ts");
    const miniflare = new Miniflare({
      modules: true,
      script: code,
      compatibilityDate: "2026-04-20",
      compatibilityFlags: [],
    });
    try {
      const response = await miniflare.dispatchFetch("http://sluice.test/");
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        exports: Object.keys(sluice).sort(),
        nodeGlobals: [],
        error: ["ClientError", "timeout", -32001, true],
        base64url: "c2x1aWNlPz4",
        nativeCodecs: true,
      });
    } finally {
      await miniflare.dispose();
    }
  });
});

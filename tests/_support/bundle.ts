// Bundles an entry the way a Workers or Deno Deploy user's bundler would (ESM, neutral platform,
// browser/worker conditions), for the tests that load sluice where Node built-ins do not exist.
import { build, type Metafile } from "esbuild";
import { fileURLToPath } from "node:url";

export const root: string = fileURLToPath(new URL("../../", import.meta.url));

export interface Bundle {
  readonly code: string;
  readonly metafile: Metafile;
}

export async function bundle(entry: string, options: { external?: boolean } = {}): Promise<Bundle> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser", "import", "default"],
    legalComments: "none",
    logLevel: "silent",
    ...(options.external === true ? { packages: "external" as const } : {}),
  });
  return { code: result.outputFiles[0]?.text ?? "", metafile: result.metafile };
}

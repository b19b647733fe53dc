// A Worker that loads the edge entry and reports what it sees; run by edge-entry.node.test.ts in
// workerd with no compatibility flags.
import * as sluice from "../../mod.ts";
import { codecs, nativeCodecs } from "../../src/_internal/encoding.ts";

export default {
  fetch(): Response {
    const error = new sluice.ClientError("timeout", "late", { code: -32001 });
    return Response.json({
      exports: Object.keys(sluice).sort(),
      nodeGlobals: ["Buffer", "process", "require"].filter((name) => name in globalThis),
      error: [error.name, error.kind, error.code, error instanceof Error],
      base64url: codecs.toBase64Url(new TextEncoder().encode("sluice?>")),
      nativeCodecs: nativeCodecs !== undefined,
    });
  },
};

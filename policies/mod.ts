/**
 * Every policy file in this folder, by server id. A test fails when a `*.policy.ts` file is
 * missing here or does not compile.
 *
 * @module
 */
import type { Policy } from "../mod.ts";
import demo from "./demo.policy.ts";
import everything from "./everything.policy.ts";
import github from "./github.policy.ts";

/** The example policies, in file-name order. */
export const policies: readonly Policy[] = [demo, everything, github];

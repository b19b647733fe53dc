// Maps `node:test` onto vitest inside workerd, where `node:test` does not exist: the one test
// dialect (`describe`, `test`, hooks) runs unchanged there.
export { afterAll as after, afterEach, beforeAll as before, beforeEach, describe, it, test } from "vitest";

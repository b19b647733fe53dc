// Starts the real modern peer (a Node process) before the workerd run, so tests inside workerd
// can call it over loopback; its URL reaches them through vitest's `provide`/`inject`.
import type { TestProject } from "vitest/node";
import { type ModernPeer, startModernPeer } from "../_support/modern-peer.ts";

declare module "vitest" {
  export interface ProvidedContext {
    modernPeerUrl: string;
  }
}

let peer: ModernPeer | undefined;

export async function setup(project: TestProject): Promise<void> {
  peer = await startModernPeer();
  project.provide("modernPeerUrl", peer.url);
}

export async function teardown(): Promise<void> {
  await peer?.stop();
}

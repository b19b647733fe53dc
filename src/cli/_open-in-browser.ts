/// <reference types="node" />
/**
 * Opens a URL with the platform's opener, for `sluice login --open`: `open` on macOS,
 * `rundll32 url.dll,FileProtocolHandler` on Windows, `xdg-open` elsewhere. The opener runs
 * detached, its output ignored, and is not waited for.
 *
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";

/**
 * The opener of this platform, and its arguments for `url`.
 *
 * On Windows not `cmd /c start`, which would read `&`, `^` and `%` in the URL as its own syntax.
 *
 * @param url The URL.
 * @param platform The platform (`process.platform`).
 * @returns The command and its arguments.
 */
export function openerOf(url: string, platform: string): readonly [string, readonly string[]] {
  if (platform === "darwin") return ["open", [url]];
  if (platform === "win32") return ["rundll32", ["url.dll,FileProtocolHandler", url]];
  return ["xdg-open", [url]];
}

/**
 * Starts the platform's opener on `url`.
 *
 * @param url The URL (an `http:` or `https:` URL, never an option: it starts with a scheme).
 * @returns The opener's name, and a promise of why it could not start (`undefined` once it has).
 */
export function openInBrowser(
  url: string,
): { readonly opener: string; readonly failed: Promise<string | undefined> } {
  const [command, args] = openerOf(url, process.platform);
  const failed = new Promise<string | undefined>((resolve) => {
    try {
      const child = spawn(command, args, { detached: true, stdio: "ignore" });
      child.once("error", (error) => resolve(error.message));
      child.once("spawn", () => {
        child.unref();
        resolve(undefined);
      });
    } catch (error) {
      resolve(error instanceof Error ? error.message : String(error));
    }
  });
  return { opener: command, failed };
}

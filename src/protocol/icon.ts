/**
 * Icons that servers attach to their implementation, tools, prompts and resources (and clients
 * to their own implementation info).
 *
 * @module
 */
import * as v from "valibot";
import { wireLooseObject, type WireSchema } from "./decode.ts";

/** An icon a user interface may show; `src` is an HTTP(S) or `data:` URI. */
export interface Icon {
  /** Where the image is: an HTTPS URL or a `data:` URI. */
  readonly src: string;
  /** A MIME type override, e.g. `"image/png"`. */
  readonly mimeType?: string;
  /** Sizes such as `"48x48"` or `"any"`. */
  readonly sizes?: readonly string[];
  /** The background the icon is designed for. */
  readonly theme?: "light" | "dark";
}

/** An icon; unknown keys are kept. */
const IconSchema: WireSchema<Icon> = wireLooseObject({
  src: v.string(),
  mimeType: v.exactOptional(v.string()),
  sizes: v.exactOptional(v.array(v.string())),
  theme: v.exactOptional(v.picklist(["light", "dark"])),
});

/** A list of icons. */
export const IconsSchema: WireSchema<readonly Icon[]> = v.array(IconSchema);

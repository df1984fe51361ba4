import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { reviewToolResult } from "../../../src/guards/binary/content.js";
import { isTextMediaType, mediaTypeAllowed, normaliseMediaType } from "../../../src/guards/binary/media.js";
import { labelForMediaType } from "../../../src/guards/binary/texts.js";

// A result with no binary in its text is judged by the media type its metadata declares; the
// finding is built only when a key declares one. Pinned against the rule read out in full here:
// the first key (response_metadata before additional_kwargs, in DECLARED order) whose string
// names a media type decides.

const DECLARED = ["mimeType", "mime_type", "mediaType", "media_type", "contentType", "content_type"];
const typeText = fc.oneof(
  fc.constantFrom(
    "image/png",
    "text/plain",
    "application/json",
    "application/octet-stream",
    "IMAGE/JPEG; q=1",
    "",
    " ",
  ),
  fc.string({ maxLength: 12 }),
);
const value = fc.oneof(typeText, fc.integer(), fc.constant(null), fc.constant(undefined));
const source = fc.oneof(
  fc.dictionary(fc.constantFrom(...DECLARED, "model", "harness_kit_ran"), value, { maxKeys: 4 }),
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
);
const content = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.array(
    fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.record({ type: fc.constant("text"), text: fc.string({ maxLength: 20 }) }),
    ),
    {
      maxLength: 3,
    },
  ),
  fc.constant(undefined),
  fc.integer(),
);
const allowed = fc.subarray(["image/*", "application/octet-stream", "*/*"]);

function declaredReference(sources: unknown[]): string | undefined {
  for (const s of sources) {
    if (s === null || typeof s !== "object") continue;
    for (const key of DECLARED) {
      const v = (s as Record<string, unknown>)[key];
      const type = typeof v === "string" ? normaliseMediaType(v) : undefined;
      if (type) return type;
    }
  }
  return undefined;
}

function textSize(c: unknown): number {
  if (typeof c === "string") return c.length;
  if (!Array.isArray(c)) return 0;
  return c.reduce(
    (n: number, b: unknown) => n + (typeof b === "string" ? b.length : (b as { text: string }).text.length),
    0,
  );
}

describe("reviewToolResult and a declared media type", () => {
  it("finds a plain text result binary exactly when its metadata declares a non-text type not allowed", () => {
    fc.assert(
      fc.property(content, source, source, allowed, (c, rm, ak, allowedMediaTypes) => {
        const plain = (s: string) => /^[a-z0-9 ]*$/.test(s);
        fc.pre(typeof c !== "string" || plain(c));
        fc.pre(!Array.isArray(c) || c.every((b) => plain(typeof b === "string" ? b : b.text)));
        const declared = declaredReference([rm, ak]);
        const expected =
          declared === undefined || isTextMediaType(declared) || mediaTypeAllowed(declared, allowedMediaTypes)
            ? undefined
            : {
                kind: "binary",
                finding: {
                  label: labelForMediaType(declared),
                  mediaType: declared,
                  evidence: "declared-media-type",
                  fileName: undefined,
                  size: textSize(c),
                  detail: {},
                },
              };
        const review = reviewToolResult(
          { content: c, response_metadata: rm, additional_kwargs: ak },
          { allowedMediaTypes },
        );
        expect(review).toEqual(expected);
      }),
      { numRuns: 1500 },
    );
  });
});

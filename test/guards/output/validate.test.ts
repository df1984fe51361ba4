import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { describeIssues, endsOpen, validateOutput } from "../../../src/guards/output/validate.js";
import { DEFAULT_ERROR_FIELDS, type ResolvedSpec } from "../../../src/guards/output/spec.js";

const call = { name: "get_account", args: { id: 7 } };

function spec(overrides: Partial<ResolvedSpec> = {}): ResolvedSpec {
  return {
    contentType: "json",
    maxChars: Number.POSITIVE_INFINITY,
    invariants: [],
    errorFields: DEFAULT_ERROR_FIELDS,
    onInvalid: "fail_closed",
    stopRun: false,
    normalize: false,
    ...overrides,
  };
}

const account = z.object({ plan: z.enum(["free", "pro"]), seats: z.number().int().min(1) });

describe("validateOutput", () => {
  it("accepts a JSON document matching the schema and returns the parsed value", () => {
    const verdict = validateOutput('{"plan":"pro","seats":3}', spec({ schema: account }), call);
    expect(verdict).toEqual({ valid: true, value: { plan: "pro", seats: 3 } });
  });

  it("names the drifted enum field and the allowed values", () => {
    const verdict = validateOutput('{"plan":"enterprise","seats":3}', spec({ schema: account }), call);
    expect(verdict.valid).toBe(false);
    if (verdict.valid) return;
    expect(verdict.errorClass).toBe("schema_invalid");
    expect(verdict.reason).toBe('ToolOutputInvalid: schema_invalid: plan: expected one of "free"|"pro"');
  });

  it("counts further schema issues", () => {
    const verdict = validateOutput('{"plan":"x","seats":0}', spec({ schema: account }), call);
    expect(!verdict.valid && verdict.detail).toMatch(/^plan: .*\(and 1 more issue\)$/);
  });

  it("rejects an HTML page where JSON is expected, even when no schema is set", () => {
    const page = "<!DOCTYPE html>\n<html><head><title>Down for maintenance</title></head><body>back soon</body></html>";
    const verdict = validateOutput(page, spec(), call);
    expect(!verdict.valid && verdict.errorClass).toBe("html_instead_of_json");
  });

  it("rejects an HTML page wrapped in a JSON envelope that claims status 200", () => {
    const wrapped = JSON.stringify({ status: 200, ok: true, body: "<html><body>502 Bad Gateway</body></html>" });
    const verdict = validateOutput(wrapped, spec(), call);
    expect(verdict.valid).toBe(false);
    if (!verdict.valid) expect(verdict.detail).toBe("field body holds an HTML page");
  });

  it("does not mistake a string that merely mentions a tag for a page", () => {
    expect(validateOutput(JSON.stringify({ note: "use <b> for bold" }), spec(), call).valid).toBe(true);
  });

  it("tells a truncated document from a malformed one, and never repairs either", () => {
    const truncated = validateOutput('{"plan":"pro","seats":10', spec({ schema: account }), call);
    const malformed = validateOutput('{"plan":"pro" "seats":10}', spec({ schema: account }), call);
    expect(!truncated.valid && truncated.errorClass).toBe("json_truncated");
    expect(!malformed.valid && malformed.errorClass).toBe("json_invalid");
    const fenced = validateOutput('```json\n{"plan":"pro","seats":1}\n```', spec({ schema: account }), call);
    expect(!fenced.valid && fenced.errorClass).toBe("json_invalid");
  });

  it("rejects a success wrapper that carries an error", () => {
    const verdict = validateOutput('{"success":true,"data":null,"error":"upstream timeout"}', spec(), call);
    expect(verdict.valid).toBe(false);
    if (!verdict.valid) {
      expect(verdict.errorClass).toBe("error_in_payload");
      // the reason names the field in the validator's words; what the payload said is quoted apart
      expect(verdict.detail).toBe("field error reports a failure (a string of 18 characters)");
      expect(verdict.quoted).toBe('"upstream timeout"');
    }
  });

  it("ignores empty error fields and honours a custom list", () => {
    expect(validateOutput('{"ok":true,"error":null,"errors":[]}', spec(), call).valid).toBe(true);
    expect(validateOutput('{"ok":true,"error":"x"}', spec({ errorFields: [] }), call).valid).toBe(true);
    expect(validateOutput('{"ok":true,"fault":"x"}', spec({ errorFields: ["fault"] }), call).valid).toBe(false);
  });

  it("rejects output over maxChars before parsing it", () => {
    const verdict = validateOutput(`"${"x".repeat(200)}"`, spec({ maxChars: 100 }), call);
    expect(!verdict.valid && verdict.reason).toBe("ToolOutputInvalid: oversized: 202 characters, over maxChars 100");
  });

  it("runs invariants on the schema output, in order, with the call", () => {
    const seen: unknown[] = [];
    const verdict = validateOutput(
      '{"plan":"pro","seats":3}',
      spec({
        schema: account,
        invariants: [
          (value, c) => {
            seen.push(value, c.name);
            return undefined;
          },
          (value: { seats: number }) => (value.seats > 2 ? `seats ${value.seats} exceeds the licence` : undefined),
          () => "never reached",
        ],
      }),
      call,
    );
    expect(seen).toEqual([{ plan: "pro", seats: 3 }, "get_account"]);
    expect(!verdict.valid && verdict.reason).toBe("ToolOutputInvalid: invariant_failed: seats 3 exceeds the licence");
  });

  it("treats a throwing invariant or schema as invalid output", () => {
    const throwing = validateOutput(
      "{}",
      spec({
        invariants: [
          () => {
            throw new RangeError("boom");
          },
        ],
      }),
      call,
    );
    expect(!throwing.valid && throwing.detail).toBe("invariant 1 threw RangeError");
    const asyncSchema = z.object({}).refine(async () => true);
    const verdict = validateOutput("{}", spec({ schema: asyncSchema }), call);
    expect(!verdict.valid && verdict.errorClass).toBe("schema_invalid");
  });

  it("returns the schema-normalised JSON when asked", () => {
    const verdict = validateOutput(
      '{"seats":3,"plan":"pro","internal":"drop me"}',
      spec({ schema: account, normalize: true }),
      call,
    );
    expect(verdict.valid && verdict.normalized).toBe('{"plan":"pro","seats":3}');
  });

  it("checks text outputs without parsing them", () => {
    const text = spec({ contentType: "text", schema: z.string().startsWith("OK"), maxChars: 20 });
    expect(validateOutput("<html>OK</html>", text, call).valid).toBe(false);
    expect(validateOutput("OK <html>", text, call).valid).toBe(true);
    expect(
      validateOutput(
        [
          { type: "text", text: "OK" },
          { type: "text", text: "more" },
        ],
        text,
        call,
      ).valid,
    ).toBe(true);
  });

  it("rejects non-text content blocks and empty JSON", () => {
    const image = [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }];
    expect(validateOutput(image, spec(), call)).toMatchObject({
      valid: false,
      errorClass: "unexpected_content_blocks",
    });
    expect(validateOutput("  ", spec(), call)).toMatchObject({ valid: false, errorClass: "empty" });
  });

  it("never throws and always states a class, whatever the content", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.anything()), (content) => {
        const verdict = validateOutput(content, spec({ schema: account, maxChars: 500 }), call);
        if (!verdict.valid) expect(verdict.reason.startsWith(`ToolOutputInvalid: ${verdict.errorClass}: `)).toBe(true);
      }),
    );
  });

  it("accepts exactly the JSON documents the schema accepts", () => {
    fc.assert(
      fc.property(
        fc.record({ plan: fc.constantFrom("free", "pro", "team"), seats: fc.integer({ min: -2, max: 5 }) }),
        (value) => {
          const verdict = validateOutput(JSON.stringify(value), spec({ schema: account }), call);
          expect(verdict.valid).toBe(account.safeParse(value).success);
        },
      ),
    );
  });
});

describe("endsOpen", () => {
  it("is true for every proper prefix of a JSON object or array", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue(), { minLength: 1 })),
        fc.nat(),
        (value, cut) => {
          const text = JSON.stringify(value);
          const prefix = text.slice(0, cut % text.length);
          if (prefix.length > 0) expect(endsOpen(prefix)).toBe(true);
        },
      ),
    );
  });

  it("is false for balanced or mismatched text", () => {
    expect(endsOpen('{"a":[1,2]}')).toBe(false);
    expect(endsOpen('{"a":[1,2}')).toBe(false);
  });
});

describe("describeIssues", () => {
  it("formats nested paths and strips zod's category prefix", () => {
    expect(
      describeIssues([{ path: ["items", 2, "sku"], message: "Invalid input: expected string, received number" }]),
    ).toBe("items[2].sku: expected string, received number");
    expect(describeIssues([{ path: [], message: "custom rule broken" }])).toBe("(root): custom rule broken");
  });
});

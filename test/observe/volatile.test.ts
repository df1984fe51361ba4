import { describe, expect, it } from "vitest";
import { DEFAULT_VOLATILE_PATTERNS, volatileNormaliser } from "../../src/observe/volatile.js";

const norm = volatileNormaliser(DEFAULT_VOLATILE_PATTERNS);

describe("normaliseVolatile", () => {
  it("hides timestamps, uuids, hex ids and request-id fields", () => {
    expect(norm('{"status":"running","at":"2024-05-01T12:30:00.123Z"}')).toBe(
      norm('{"status":"running","at":"2024-05-02T08:00:59Z"}'),
    );
    expect(norm("job 123e4567-e89b-12d3-a456-426614174000 ok")).toBe(
      norm("job 00000000-1111-2222-3333-444444444444 ok"),
    );
    expect(norm("trace 4bf92f3577b34da6a3ce929d0e0e4736")).toBe(norm("trace 00f067aa0ba902b7a1b2c3d4e5f60718"));
    expect(norm('{"request_id": "req-abc", "n": 1}')).toBe(norm('{"request_id": "req-xyz", "n": 1}'));
  });

  it("drops a visit notice line, which only a repeated answer carries", () => {
    const page = (notice: string) => `Address: file:///a.mp3\n${notice}Viewport position: Showing page 1 of 1.`;
    expect(norm(page("You previously visited this page 11 seconds ago.\n"))).toBe(norm(page("")));
    expect(norm(page("This page was last loaded at 12:03:44.\n"))).toBe(norm(page("")));
    // a line that says more than when it was seen stays
    expect(norm(page("Last modified 2024-01-02 by ana\n"))).not.toBe(norm(page("")));
  });

  it("hides counters of the asking and plain-text request ids", () => {
    expect(norm("status: running (attempt 2)")).toBe(norm("status: running (attempt 3)"));
    expect(norm("retry 2/5 failed")).toBe(norm("retry 3/5 failed"));
    expect(norm("page visited 4 times")).toBe(norm("page visited 5 times"));
    expect(norm("done. Request ID: abc-123")).toBe(norm("done. Request ID: xyz-987"));
    expect(norm("progress 10%")).not.toBe(norm("progress 20%"));
  });

  it("keeps information that is not volatile", () => {
    expect(norm('{"status":"running"}')).not.toBe(norm('{"status":"done"}'));
    expect(norm("page 2 of 10")).not.toBe(norm("page 3 of 10"));
    // short hex such as a git abbreviated sha and plain words stay
    expect(norm("commit abc1234")).toBe("commit abc1234");
    expect(norm("deadbeefcafebabe")).toBe("deadbeefcafebabe"); // letters only: a word, not an id
  });

  it("applies user patterns, including ones with backreferences", () => {
    const custom = volatileNormaliser([/took \d+ ms/, /(["'])token-\w+\1/]);
    expect(custom("took 12 ms, 'token-abc'")).toBe(custom("took 907 ms, 'token-xyz'"));
    expect(custom("took 12 ms")).not.toBe(custom("took 12 s"));
    expect(volatileNormaliser([])("2024-01-01T00:00:00Z")).toBe("2024-01-01T00:00:00Z");
    // the README's example: a line only a repeat carries, dropped whole
    const cached = volatileNormaliser([...DEFAULT_VOLATILE_PATTERNS, /^Served from cache at .*$\n?/gm]);
    expect(cached("a\nServed from cache at 12:00\nb")).toBe(cached("a\nb"));
    expect(cached("a\nb")).not.toBe(cached("a\nc"));
  });

  it("is idempotent", () => {
    const text = "at 2024-05-01T12:30:00Z id 123e4567-e89b-12d3-a456-426614174000";
    expect(norm(norm(text))).toBe(norm(text));
  });
});

describe("huge results", () => {
  it("are left as they are above MAX_NORMALISED_CHARS", async () => {
    const { MAX_NORMALISED_CHARS } = await import("../../src/observe/volatile.js");
    const huge = `at 2024-05-01T12:30:00Z ${"x".repeat(MAX_NORMALISED_CHARS)}`;
    expect(norm(huge)).toBe(huge);
  });
});

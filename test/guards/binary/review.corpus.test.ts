import { createHmac, createSign, generateKeyPairSync, randomUUID, createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { reviewToolResult } from "../../../src/guards/binary/content.js";
import { reviewText } from "../../../src/guards/binary/review.js";
import { binaryFiles, makeNoise, makePng, makeUnknownBinary, wrapHex } from "./fixtures.js";

/**
 * Issue 12's binary corpus: every form a binary payload reached a model in must be caught, the
 * partly binary documents must keep their text, text in a wrong encoding is text, and no
 * legitimate text may be flagged. Every file is made by the test (or read from this machine).
 */

const FILES = binaryFiles();
const none = { allowedMediaTypes: [] };

/** What the model would get: the reviewed text (a replaced result counts as caught). */
function outcome(text: string) {
  const review = reviewText(text);
  return {
    review,
    caught: review?.kind === "binary" || (review?.kind === "cleaned" && review.removed.length > 0),
    output: review?.kind === "cleaned" ? review.text : review?.kind === "binary" ? "" : text,
  };
}

/** The output holds none of the file: not its base64, hex or raw bytes (a 24-byte window from its middle). */
function expectGone(output: string, file: Buffer) {
  const middle = file.subarray(Math.floor(file.length / 2), Math.floor(file.length / 2) + 24);
  expect(output).not.toContain(middle.toString("base64").slice(4, 28));
  expect(output).not.toContain(middle.toString("hex"));
  expect(output).not.toContain(middle.toString("latin1"));
}

/** `xxd` output. */
function xxd(bytes: Buffer): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16);
    const groups = (row.toString("hex").match(/.{1,4}/g) ?? []).join(" ");
    const ascii = [...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${at.toString(16).padStart(8, "0")}: ${groups.padEnd(39)}  ${ascii}`);
  }
  return lines.join("\n");
}

/** `hexdump -C` output. */
function hexdumpC(bytes: Buffer): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = [...bytes.subarray(at, at + 16)].map((b) => b.toString(16).padStart(2, "0"));
    const left = row.slice(0, 8).join(" ");
    const right = row.slice(8).join(" ");
    const ascii = [...bytes.subarray(at, at + 16)]
      .map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : "."))
      .join("");
    lines.push(`${at.toString(16).padStart(8, "0")}  ${left.padEnd(23)}  ${right.padEnd(23)}  |${ascii}|`);
  }
  return lines.join("\n");
}

/** `hexdump` output without -C: 16-bit little-endian words. */
function hexdumpWords(bytes: Buffer): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16);
    const words: string[] = [];
    for (let i = 0; i < row.length; i += 2)
      words.push(((row[i + 1] ?? 0) * 256 + row[i]!).toString(16).padStart(4, "0"));
    lines.push(`${at.toString(16).padStart(7, "0")} ${words.join(" ")}`);
  }
  return lines.join("\n");
}

/** Python's repr of bytes: printable ASCII as itself, the rest as \xHH. */
function pythonBytes(bytes: Buffer): string {
  const escape: Record<number, string> = { 9: "\\t", 10: "\\n", 13: "\\r", 39: "\\'", 92: "\\\\" };
  return `b'${[...bytes].map((b) => escape[b] ?? (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("")}'`;
}

/** `od -A x -t x1` output. */
function od(bytes: Buffer): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16)
    lines.push(
      `${at.toString(16).padStart(6, "0")} ${[...bytes.subarray(at, at + 16)].map((b) => b.toString(16).padStart(2, "0")).join(" ")}`,
    );
  return lines.join("\n");
}

describe("binary payloads in every form the issue found (all must be caught)", () => {
  for (const [name, file] of Object.entries(FILES)) {
    it(`${name}: raw in a JSON string field, decoded as UTF-8 and as Latin-1, with little or much metadata`, () => {
      for (const encoding of ["utf8", "latin1"] as const) {
        const bare = JSON.stringify({ name, content: file.toString(encoding) });
        expect(bare).not.toContain("\u0000");
        const small = outcome(bare);
        expect(small.caught, `${encoding} bare`).toBe(true);
        expectGone(small.output, file);
        const described = JSON.stringify(
          {
            name,
            description: "Attachment from the quarterly review, as uploaded by the finance team on Monday.",
            content: file.toString(encoding),
            tags: ["q3"],
          },
          null,
          2,
        );
        const rich = outcome(described);
        expect(rich.review?.kind, `${encoding} described`).toBe("cleaned");
        expectGone(rich.output, file);
        const parsed = JSON.parse(rich.output) as Record<string, string>;
        expect(parsed.name).toBe(name);
        expect(parsed.description).toContain("quarterly review");
        expect(parsed.content).toMatch(/^\[binary data removed by harness-kit: /);
      }
    });

    it(`${name}: base64 glued to a prefix, alone and inside a sentence`, () => {
      const b64 = file.toString("base64");
      for (const text of [
        `payload_${b64}`,
        `file-${b64}`,
        `attachment_data_${b64}`,
        `The upload is payload_${b64} and nothing else matters here, thanks for checking it.`,
      ]) {
        const result = outcome(text);
        expect(result.caught, text.slice(0, 30)).toBe(true);
        expectGone(result.output, file);
      }
    });

    it(`${name}: hex dumps (xxd, hexdump, hexdump -C, od), an unbroken hex string and Python's bytes, alone and in a report`, () => {
      for (const text of [
        xxd(file),
        hexdumpC(file),
        hexdumpWords(file),
        od(file),
        file.toString("hex"),
        pythonBytes(file),
        `Dump of the upload follows.\n${xxd(file)}\nEnd of dump; the checksum matched the manifest entry for this file.`,
        `data = ${pythonBytes(file)}\nprint(len(data))  # the rest of the script stays`,
      ]) {
        const result = outcome(text);
        expect(result.caught, text.slice(0, 40)).toBe(true);
        expectGone(result.output, file);
      }
    });

    it(`${name}: a Node Buffer written as JSON, and a plain array of its bytes`, () => {
      const buffer = outcome(JSON.stringify(file));
      expect(buffer.review?.kind).toBe("binary");
      const array = outcome(JSON.stringify({ name, bytes: [...file.subarray(0, 2000)] }));
      expect(array.caught).toBe(true);
      expectGone(array.output, file.subarray(0, 2000));
    });
  }

  it("hex wrapped over lines (xxd -p, toString('hex') wrapped at any width), both cases, LF, CRLF and escaped in JSON: every file and unknown binary", () => {
    const files = {
      ...FILES,
      "dump.bin": makeUnknownBinary(8192),
      "big.png": Buffer.concat([makePng(), makeNoise(100_000, 9)]),
    };
    let forms = 0;
    for (const [name, file] of Object.entries(files)) {
      for (const width of [16, 30, 32, 60, 64, 75, 76, 128, 256, 1000]) {
        for (const upper of [false, true]) {
          for (const eol of ["\n", "\r\n"]) {
            const wrapped = wrapHex(file, width, { upper, eol });
            const middle = wrapped.split(eol)[Math.floor(wrapped.split(eol).length / 2)]!;
            for (const text of [
              wrapped,
              `${wrapped}${eol}`,
              `Dump of ${name}:${eol}${wrapped}${eol}End of dump; the checksum matched.`,
              JSON.stringify({ name, hex: wrapped }),
              `    ${wrapped.split(eol).join(`${eol}    `)}`,
            ]) {
              const result = outcome(text);
              forms++;
              expect(
                result.caught,
                `${name} at ${width}, ${upper ? "upper" : "lower"}, ${JSON.stringify(eol)}: ${text.slice(0, 30)}`,
              ).toBe(true);
              expect(result.output).not.toContain(middle);
            }
            expect(outcome(wrapped).review?.kind, `${name} at ${width} alone`).toBe("binary");
          }
        }
      }
    }
    console.log(`wrapped hex: ${forms} forms of ${Object.keys(files).length} files, all caught`);
  });

  it('a typed array as JSON ({"0":137,...}) and a JSON array of its bytes, alone and inside an object: every file and unknown binary', () => {
    const files = { ...FILES, "dump.bin": makeUnknownBinary(8192) };
    for (const [name, file] of Object.entries(files)) {
      const typed = JSON.stringify(new Uint8Array(file));
      expect(typed.startsWith('{"0":')).toBe(true);
      for (const text of [typed, JSON.stringify([...file]), JSON.stringify(new Uint8Array(file), null, 2)]) {
        const alone = outcome(text);
        expect(alone.review?.kind, `${name}: ${text.slice(0, 20)}`).toBe("binary");
      }
      const inside = outcome(JSON.stringify({ name, size: file.length, data: new Uint8Array(file) }));
      expect(inside.review?.kind, name).toBe("cleaned");
      const parsed = JSON.parse(inside.output) as { name: string; data: string };
      expect(parsed.name).toBe(name);
      expect(parsed.data).toMatch(
        /^\[binary data removed by harness-kit: .* as (a byte array written as a JSON object|a Node Buffer)/,
      );
    }
  });

  it("base64 files in the middle of a 1 MB JSON: every one of 8, the records around them intact", () => {
    const entries = Object.entries(FILES);
    const records: Record<string, unknown>[] = Array.from({ length: 2600 }, (_, i) => ({
      id: i,
      title: `record ${i}`,
      body: `Plain description number ${i} of the export, with some words to read. `.repeat(5),
    }));
    const positions = entries.map((_, i) => 150 + i * 300 + ((i * 37) % 50));
    entries.forEach(([name, file], i) =>
      records.splice(positions[i]!, 0, { id: `file-${i}`, name, data: file.toString("base64") }),
    );
    const json = JSON.stringify({ export: records });
    expect(json.length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    const result = outcome(json);
    const elapsed = performance.now() - started;
    expect(result.review?.kind).toBe("cleaned");
    const removed = result.review?.kind === "cleaned" ? result.review.removed : [];
    expect(removed).toHaveLength(8);
    expect(removed.map((r) => r.label)).toEqual(
      expect.arrayContaining(["PNG image", "PDF document", "JPEG image", "GIF image", "gzip archive", "WAV audio"]),
    );
    expect(removed.map((r) => r.label).some((label) => label.startsWith("ZIP archive"))).toBe(true);
    for (const [, file] of entries) expectGone(result.output, file);
    const parsed = JSON.parse(result.output) as { export: Record<string, unknown>[] };
    expect(parsed.export).toHaveLength(records.length);
    expect(parsed.export[1000]).toEqual(records[1000]);
    console.log(`1 MB JSON with 8 embedded files: ${elapsed.toFixed(1)} ms`);
  });

  it("a MIME message with a base64 attachment wrapped at 76 characters keeps its text", () => {
    const wrapped = (FILES["report.pdf"]!.toString("base64").match(/.{1,76}/g) ?? []).join("\r\n");
    const mail = `From: a@example.com\r\nSubject: Q3 report\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nHi team, the Q3 report is attached. Revenue grew 12 percent.\r\n--b\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n${wrapped}\r\n--b--\r\n`;
    const result = outcome(mail);
    expect(result.review?.kind).toBe("cleaned");
    expect(result.output).toContain("Revenue grew 12 percent");
    expect(result.output).toContain("--b--");
    expect(result.output).toContain("PDF document");
    expectGone(result.output, FILES["report.pdf"]!);
  });

  it("raw binary in the middle of a long log: only that part is removed", () => {
    const filler = "ordinary log line with nothing special\n".repeat(20_000);
    const result = outcome(`${filler}${makeUnknownBinary(20_000).toString("latin1")}${filler}`);
    expect(result.review?.kind).toBe("cleaned");
    expect(result.output.length).toBeLessThan(filler.length * 2 + 1000);
    expect(result.output.length).toBeGreaterThan(filler.length * 2 - 1000);
    expect(result.output).not.toContain("\u0000");
  });
});

describe("documents that are partly binary keep their text", () => {
  const png = makePng().toString("base64");

  it("an HTML email with an inline image", () => {
    const html = `<html><body><p>Dear customer, your invoice for March is ready.</p><img alt="logo" src="data:image/png;base64,${png}"><p>Total due: 42.00 EUR by April 5.</p></body></html>`;
    const result = outcome(html);
    expect(result.review?.kind).toBe("cleaned");
    expect(result.output).toContain("Dear customer, your invoice for March is ready.");
    expect(result.output).toContain("Total due: 42.00 EUR by April 5.");
    expect(result.output).toContain('src="[binary data removed by harness-kit: PNG image as a base64 data URL');
    expect(result.output).toContain("Binary data was removed from this result");
    expect(result.output).not.toContain(png.slice(100, 140));
  });

  it("a notebook with one inline image stays valid JSON with its code and outputs", () => {
    const wrapped = (png.match(/.{1,76}/g) ?? []).join("\n");
    const notebook = {
      cells: [
        { cell_type: "markdown", source: ["# Sales analysis\n", "Monthly revenue by region."] },
        {
          cell_type: "code",
          source: ["df.plot()"],
          outputs: [
            {
              output_type: "display_data",
              data: { "image/png": `${wrapped}\n`, "text/plain": ["<Figure size 640x480>"] },
            },
          ],
        },
        {
          cell_type: "code",
          source: ["df.describe()"],
          outputs: [{ output_type: "execute_result", data: { "text/plain": ["count 12.0\nmean 4.2"] } }],
        },
      ],
      metadata: { kernelspec: { name: "python3" } },
      nbformat: 4,
    };
    const result = outcome(JSON.stringify(notebook, null, 1));
    expect(result.review?.kind).toBe("cleaned");
    const parsed = JSON.parse(result.output) as typeof notebook;
    expect(parsed.cells[0]).toEqual(notebook.cells[0]);
    expect(parsed.cells[2]).toEqual(notebook.cells[2]);
    const data = parsed.cells[1]!.outputs![0]!.data as Record<string, unknown>;
    expect(data["image/png"]).toMatch(/^\[binary data removed by harness-kit: PNG image as base64/);
    expect(data["text/plain"]).toEqual(["<Figure size 640x480>"]);
  });

  it("a README with a data URL badge", () => {
    const readme = `# harness-kit\n\n![build](data:image/png;base64,${png})\n\nMiddlewares for LangChain agents.\n\n## Install\n\nnpm install harness-kit\n`;
    const result = outcome(readme);
    expect(result.review?.kind).toBe("cleaned");
    expect(result.output).toContain("Middlewares for LangChain agents.");
    expect(result.output).toContain("npm install harness-kit");
    expect(result.output).toContain("![build]([binary data removed by harness-kit: PNG image");
  });
});

describe("text in the wrong encoding is text", () => {
  const french =
    "Le café de la rue Saint-Étienne ouvre à sept heures; les crêpes sont très appréciées des élèves. ".repeat(20);

  it("Windows-1252 read as UTF-8: kept, with a note that names the encoding", () => {
    const misread = Buffer.from(french, "latin1").toString("utf8");
    expect(misread).toContain("\ufffd");
    const review = reviewText(misread);
    expect(review?.kind).toBe("cleaned");
    if (review?.kind !== "cleaned") return;
    expect(review.removed).toEqual([]);
    expect(review.encoding).toMatchObject({ kind: "legacy-8-bit" });
    expect(review.text).toContain("legacy 8-bit encoding (probably Windows-1252 or Latin-1)");
    expect(review.text).toContain("It is text, not binary data");
    expect(review.text).toContain(misread);
  });

  it("UTF-16LE and UTF-16BE, with and without a byte order mark, read as UTF-8 or Latin-1: decoded", () => {
    const text = "Quarterly report\nRevenue: 4.2M\nAll regions grew.\n".repeat(30);
    const variants = [
      Buffer.from(text, "utf16le"),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]),
      Buffer.from(text, "utf16le").swap16(),
    ];
    for (const bytes of variants) {
      for (const encoding of ["utf8", "latin1"] as const) {
        const review = reviewText(bytes.toString(encoding));
        expect(review?.kind, encoding).toBe("cleaned");
        if (review?.kind !== "cleaned") continue;
        expect(review.encoding?.kind).toBe("utf-16");
        expect(review.text).toContain("It is text, not binary data");
        expect(review.text).toContain(text.trimEnd().slice(0, 200));
      }
    }
    const accented = reviewText(Buffer.from(french, "utf16le").toString("latin1"));
    expect(accented?.kind === "cleaned" && accented.text).toContain(french.slice(0, 100));
  });
});

/** Legitimate texts, from this machine and made here; none may be flagged. */
function legitimateCorpus(): Record<string, string> {
  const corpus: Record<string, string> = {};
  const hmac = (payload: object) => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const body = `${part({ alg: "HS256", typ: "JWT" })}.${part(payload)}`;
    return `${body}.${createHmac("sha256", "secret").update(body).digest("base64url")}`;
  };
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const rs256 = (() => {
    const body = `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "user-1", scope: "read write", exp: 1900000000 })).toString("base64url")}`;
    return `${body}.${createSign("RSA-SHA256").update(body).sign(privateKey).toString("base64url")}`;
  })();
  corpus.jwts = Array.from(
    { length: 50 },
    (_, i) =>
      `Authorization: Bearer ${i % 2 ? rs256 : hmac({ sub: `user-${i}`, name: "Jane Doe", iat: 1700000000 + i })}`,
  ).join("\n");
  corpus.hashes = Array.from({ length: 300 }, (_, i) => {
    const data = `file-${i}`;
    return `${createHash("md5").update(data).digest("hex")}  ${createHash("sha1").update(data).digest("hex")}  ${createHash("sha256").update(data).digest("hex")}  ${createHash("sha512").update(data).digest("hex")}  sha512-${createHash("sha512").update(data).digest("base64")}`;
  }).join("\n");
  corpus.minifiedJs = transformSync(readFileSync("node_modules/acorn/dist/acorn.js", "utf8"), { minify: true }).code;
  corpus.tokenizerRanks = readFileSync("node_modules/js-tiktoken/dist/ranks/gpt2.js", "utf8").slice(0, 300_000);
  corpus.cjk =
    "日本語のテキストと中文文本，还有한국어 텍스트。東京都の天気は晴れです。我们明天去北京参观故宫博物院。서울의 날씨는 맑습니다.\n".repeat(
      300,
    );
  corpus.pemKeys = `${privateKey.export({ type: "pkcs8", format: "pem" })}\n${publicKey.export({ type: "spki", format: "pem" })}\n${generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" })}`;
  if (existsSync("/etc/ssl/certs/ca-certificates.crt"))
    corpus.caBundle = readFileSync("/etc/ssl/certs/ca-certificates.crt", "utf8").slice(0, 300_000);
  corpus.packageLock = readFileSync("package-lock.json", "utf8");
  corpus.sshKeys = Array.from(
    { length: 20 },
    (_, i) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${makeNoise(32, i).toString("base64").slice(0, 43)} user${i}@host`,
  ).join("\n");
  corpus.uuids = Array.from({ length: 2000 }, () => randomUUID()).join("\n");
  corpus.gitLog = Array.from(
    { length: 200 },
    (_, i) =>
      `commit ${createHash("sha1").update(String(i)).digest("hex")}\nAuthor: Dev <dev@example.com>\nDate:   Mon Nov ${(i % 28) + 1} 10:00:00 2026\n\n    Fix issue #${i}\n`,
  ).join("\n");
  corpus.k8sSecret = `apiVersion: v1\nkind: Secret\ndata:\n  config.json: ${Buffer.from(JSON.stringify({ db: { host: "db.internal", user: "app", options: Array.from({ length: 200 }, (_, i) => `opt${i}`) } })).toString("base64")}\n  token: ${Buffer.from("a plain text token value for the service account").toString("base64")}\n`;
  corpus.longBase64OfText = Buffer.from("The configuration as text, base64-encoded by a tool. ".repeat(300)).toString(
    "base64",
  );
  corpus.csv =
    "id,amount,ratio\n" +
    Array.from({ length: 3000 }, (_, i) => `${i},${(i * 37) % 1000},${((i * 13) % 97) / 97}`).join("\n");
  corpus.numberMatrix = Array.from({ length: 200 }, (_, r) =>
    Array.from({ length: 16 }, (_, c) => String((r * 16 + c) % 100).padStart(2, "0")).join(" "),
  ).join("\n");
  corpus.hexColours = Array.from(
    { length: 500 },
    (_, i) => `--colour-${i}: #${((i * 2654435761) >>> 8).toString(16).padStart(6, "0").slice(0, 6)};`,
  ).join("\n");
  corpus.emoji = "Release notes 🎉🚀 with emoji 👍🏽 and flags 🇫🇷 and math ∑∫√ and arrows → ⇒\n".repeat(200);
  corpus.urls = Array.from(
    { length: 100 },
    (_, i) => `https://example.com/download?token=${makeNoise(48, i).toString("base64url")}&page=${i}`,
  ).join("\n");
  corpus.ansiLog =
    "\u001b[31mERROR\u001b[0m build failed at step 3\n\u001b[32mOK\u001b[0m tests passed\r\n\u001b[1;33mWARN\u001b[0m slow test\n".repeat(
      300,
    );
  corpus.accentedUtf8 =
    "Ελληνικά, русский текст, עברית, العربية, हिन्दी, ไทย, Tiếng Việt, Español ñ, Français é, Deutsch ß.\n".repeat(200);
  corpus.pythonStrings = Array.from(
    { length: 50 },
    (_, i) => `print("path: C:\\\\x${i}\\\\data")  # escapes like \\x41 and \\x0a appear in docs ${i}`,
  ).join("\n");
  corpus.hexAddresses = Array.from(
    { length: 300 },
    (_, i) =>
      `    at fn${i} (0x7fff${(i * 4096).toString(16).padStart(8, "0")}) [module.so+0x${(i * 64).toString(16)}]`,
  ).join("\n");
  // look-alikes of wrapped hex and of byte lists (issue 28): hashes and ids one per line, git logs, numbers, numeric-keyed data
  const digest = (algorithm: string, i: number) => createHash(algorithm).update(`entry-${i}`).digest("hex");
  corpus.sha256List = Array.from({ length: 2000 }, (_, i) => digest("sha256", i)).join("\n");
  corpus.sha256ListUpperCrlf = Array.from({ length: 2000 }, (_, i) => digest("sha256", i).toUpperCase()).join("\r\n");
  corpus.sha512List = Array.from({ length: 1000 }, (_, i) => digest("sha512", i)).join("\n");
  corpus.md5Ids = Array.from({ length: 3000 }, (_, i) => digest("md5", i)).join("\n");
  corpus.objectIds = Array.from({ length: 3000 }, (_, i) => digest("sha1", i).slice(0, 24)).join("\n");
  corpus.dashlessUuids = Array.from({ length: 3000 }, () => randomUUID().replaceAll("-", "")).join("\n");
  corpus.sha256sums = Array.from({ length: 1000 }, (_, i) => `${digest("sha256", i)}  dist/chunk-${i}.js`).join("\n");
  corpus.hashesInJson = JSON.stringify({
    files: Array.from({ length: 1000 }, (_, i) => digest("sha256", i)).join("\n"),
  });
  corpus.gitRevList = Array.from({ length: 3000 }, (_, i) => digest("sha1", i)).join("\n");
  corpus.gitLogOneline = Array.from(
    { length: 1000 },
    (_, i) => `${digest("sha1", i).slice(0, 7)} Fix issue #${i} in the parser`,
  ).join("\n");
  corpus.gitLogRaw = Array.from(
    { length: 300 },
    (_, i) =>
      `commit ${digest("sha1", i)}\ntree ${digest("sha1", i + 1e6)}\nparent ${digest("sha1", i + 1)}\nauthor Dev <dev@example.com> 1700000000 +0000\n\n    Fix issue #${i}\n`,
  ).join("\n");
  corpus.numberColumn = Array.from({ length: 3000 }, (_, i) =>
    String(1_000_000_000_000_000 + i * 7_919_113).padStart(20, "0"),
  ).join("\n");
  corpus.numberTable = Array.from({ length: 1000 }, (_, r) =>
    Array.from({ length: 12 }, (_, c) => String((r * 31 + c * 17) % 256).padStart(3, " ")).join(" "),
  ).join("\n");
  corpus.jsonMatrix = JSON.stringify(
    Array.from({ length: 500 }, (_, r) => Array.from({ length: 16 }, (_, c) => (r * 7 + c * 13) % 256)),
  );
  corpus.agesArray = JSON.stringify(Array.from({ length: 5000 }, (_, i) => 18 + ((i * 37) % 70)));
  corpus.pandasColumns = JSON.stringify({
    age: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [String(i), 18 + ((i * 37) % 70)])),
    score: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [String(i), (i * 7919) % 101])),
  });
  corpus.histogram = JSON.stringify(
    Object.fromEntries(
      Array.from({ length: 256 }, (_, i) => [String(i), Math.round(200 * Math.exp(-((i - 128) ** 2) / 2000))]),
    ),
  );
  corpus.scoresById = JSON.stringify(
    Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [String(100 + i * 3), (i * 13) % 256])),
  );
  corpus.randomScores = JSON.stringify(Object.fromEntries([...makeNoise(4096, 11)].map((v, i) => [String(i), v])));
  corpus.randomBytesList = JSON.stringify([...makeNoise(4096, 12)]);
  const sources: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) sources.push(readFileSync(path, "utf8"));
    }
  };
  walk("src");
  corpus.thisRepositorySources = sources.join("\n");
  corpus.prettyJson = JSON.stringify(
    {
      users: Array.from({ length: 300 }, (_, i) => ({
        id: i,
        name: `Ünïcødé user ${i}`,
        email: `u${i}@example.com`,
        avatar: `https://cdn.example.com/a/${createHash("sha256").update(String(i)).digest("hex")}.png`,
      })),
    },
    null,
    2,
  );
  return corpus;
}

describe("legitimate texts are never flagged", () => {
  it("0 false positives over the corpus, as strings and as text blocks", () => {
    const corpus = legitimateCorpus();
    const flagged: string[] = [];
    let chars = 0;
    const started = performance.now();
    for (const [name, text] of Object.entries(corpus)) {
      chars += text.length;
      if (reviewText(text) !== undefined) flagged.push(name);
      if (reviewToolResult({ content: [{ type: "text", text }] }, none) !== undefined) flagged.push(`${name} (block)`);
    }
    const elapsed = performance.now() - started;
    console.log(
      `legitimate corpus: ${Object.keys(corpus).length} texts, ${(chars / 1e6).toFixed(1)} M characters, ${flagged.length} flagged, ${elapsed.toFixed(0)} ms for both passes`,
    );
    expect(flagged).toEqual([]);
    expect(Object.keys(corpus).length).toBeGreaterThanOrEqual(44);
  });
});

import { readFileSync } from "node:fs";
import { deflateRawSync, deflateSync, gzipSync } from "node:zlib";

/** Real binary files for the binary guard's tests, built in memory. */

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A valid 16x16 RGB PNG with a gradient. */
export function makePng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(16, 0);
  header.writeUInt32BE(16, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows: number[] = [];
  for (let y = 0; y < 16; y++) {
    rows.push(0);
    for (let x = 0; x < 48; x++) rows.push((x * 7 + y * 13) % 256);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(Buffer.from(rows))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A one-page PDF whose content stream is compressed, as real PDFs are. */
export function makePdf(): Buffer {
  const stream = deflateSync(Buffer.from("BT /F1 24 Tf 72 720 Td (Quarterly revenue: 4.2M) Tj ET"));
  return Buffer.concat([
    Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1"),
    Buffer.from(
      "1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n",
    ),
    Buffer.from("3 0 obj <</Type /Page /Parent 2 0 R /Contents 4 0 R>> endobj\n"),
    Buffer.from(`4 0 obj <</Length ${stream.length} /Filter /FlateDecode>> stream\n`),
    stream,
    Buffer.from("\nendstream endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"),
  ]);
}

/** Bytes of no known format: a small header, then pseudo-random data with NULs, like a proprietary dump. */
export function makeUnknownBinary(size = 4096): Buffer {
  const out = Buffer.alloc(size);
  out.write("DUMPv2", 0, "latin1");
  let state = 12345;
  for (let i = 6; i < size; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out[i] = i % 9 === 0 ? 0 : state >> 16;
  }
  return out;
}

/** A baseline JPEG header (JFIF APP0, a quantisation table) followed by entropy-coded-looking data. */
export function makeJpeg(size = 3000): Buffer {
  const head = Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x00, 0xff, 0xdb, 0x00, 0x43, 0x00,
  ]);
  const body = makeNoise(size, 7);
  return Buffer.concat([head, body, Buffer.from([0xff, 0xd9])]);
}

/** A 1x1 GIF89a with padding data. */
export function makeGif(): Buffer {
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    Buffer.from([
      0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00,
      0x00, 0x00,
    ]),
    Buffer.from([0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b]),
    makeNoise(400, 3),
  ]);
}

/** A real gzip stream of a text. */
export function makeGzip(): Buffer {
  return gzipSync(Buffer.from("quarterly numbers\n".repeat(200) + makeNoise(2000, 5).toString("base64")));
}

/** A ZIP archive holding one deflated file, with its central directory. */
export function makeZip(): Buffer {
  const name = Buffer.from("report.txt");
  const data = Buffer.from("zip member text ".repeat(100));
  const packed = deflateRawSync(data);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(name.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(local.length + name.length + packed.length, 16);
  return Buffer.concat([local, name, packed, central, name, end]);
}

/** A PCM WAV file of a short tone. */
export function makeWav(): Buffer {
  const samples = 2000;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin(i / 8) * 12000), i * 2);
  const head = Buffer.alloc(44);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(36 + data.length, 4);
  head.write("WAVEfmt ", 8, "latin1");
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(8000, 24);
  head.writeUInt32LE(16000, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36, "latin1");
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/** The first 16 KB of the Node executable running the tests: a real ELF (or Mach-O, PE) binary. */
export function makeExecutable(): Buffer {
  return readFileSync(process.execPath).subarray(0, 16 * 1024);
}

/** Pseudo-random bytes (a fixed seed, so fixtures are the same every run). */
export function makeNoise(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let state = seed * 2654435761;
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out[i] = state >> 16;
  }
  return out;
}

/** Eight real binary files of different kinds, by name. */
export function binaryFiles(): Record<string, Buffer> {
  return {
    "chart.png": makePng(),
    "report.pdf": makePdf(),
    "photo.jpg": makeJpeg(),
    "anim.gif": makeGif(),
    "bundle.zip": makeZip(),
    "logs.gz": makeGzip(),
    "tone.wav": makeWav(),
    "tool.bin": makeExecutable(),
  };
}

/** `buf.toString("hex")` wrapped at `width` characters (`xxd -p` is width 60), as tools print it. */
export function wrapHex(bytes: Buffer, width: number, options: { upper?: boolean; eol?: string } = {}): string {
  const hex = options.upper ? bytes.toString("hex").toUpperCase() : bytes.toString("hex");
  return (hex.match(new RegExp(`.{1,${width}}`, "g")) ?? []).join(options.eol ?? "\n");
}

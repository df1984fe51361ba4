import { deflateSync } from "node:zlib";

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
    Buffer.from("1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n"),
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

/**
 * The text classes the context-overflow guard's estimate is checked on, generated in code
 * (deterministic, no network): what agents' tool results and conversations are made of. The
 * estimate bench (`npm run bench -- estimate`) and test/guards/overflow/estimate.test.ts
 * read the same corpus, so the bounds the test pins are the ones the bench reports.
 */

export const TEXT_CLASSES = [
  "prose",
  "code",
  "json",
  "hexLog",
  "ids",
  "numbers",
  "hexDump",
  "base64",
  "cjk",
  "emoji",
  "mixed",
] as const;
export type TextClass = (typeof TEXT_CLASSES)[number];

/** A small xorshift generator: the same seed gives the same corpus on every machine. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }
  /** A float in [0, 1). */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += "0123456789abcdef"[this.int(16)];
    return out;
  }
}

const WORDS = (
  "the of and to a in is it you that he was for on are with as his they be at one have this from or had by not word but what some we can out " +
  "other were all there when up use your how said an each she which do their time if will way about many then them write would like so these her " +
  "long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side " +
  "been now find any new work part take get place made live where after back little only round man year came show every good me give our under name " +
  "very through just form sentence great think say help low line differ turn cause much mean before move right boy old too same tell does set three " +
  "want air well also play small end put home read hand port large spell add even land here must big high such follow act why ask men change went " +
  "light kind off need house picture try us again animal point mother world near build self earth father agent model request message guard window " +
  "token tokens estimate result results history summary provider context limit budget tool tools call calls run runs middleware state thread store " +
  "error refusal request response configuration option default value measure calibration deployment repository package install version release " +
  "documentation example function argument parameter interface implementation behaviour performance memory process worker queue schedule database"
).split(" ");

const LONG_WORDS = (
  "international responsibility understanding communication infrastructure authentication authorization serialization deserialization " +
  "approximately independently configuration compatibility observability instrumentation characteristics administration " +
  "representation interpretation synchronization acknowledgement implementation recommendation"
).split(" ");

const RARER_WORDS = (
  "idempotent checkpointer reducer serialisable deterministic retrievable offloaded fingerprint novelty escalation pairing subagent summariser " +
  "tokenizer heuristics overcounts undercounts granularity throughput latency percentile regression mitigation invariant precondition " +
  "orchestration concurrency backpressure quarantine provenance telemetry heuristic ergonomic verbosity truncation eviction rollout " +
  "misconfigured unbounded retries throttled exhausted malformed ambiguous redundant stale volatile transient persisted restored replayed " +
  "whitespace punctuation markdown JSON YAML HTTP TypeScript LangChain LangGraph OpenAI Anthropic Postgres SQLite npm Node.js"
).split(" ");

function inlineCode(r: Random): string {
  const roll = r.next();
  if (roll < 0.4) return `\`${identifier(r)}\``;
  if (roll < 0.7) return `\`${identifier(r)}: ${r.int(20000)}\``;
  return `\`${r.pick(WORDS)}/${identifier(r)}.ts\``;
}

function sentence(r: Random): string {
  const n = 6 + r.int(18);
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const roll = r.next();
    let w =
      roll < 0.05
        ? r.pick(LONG_WORDS)
        : roll < 0.25
          ? r.pick(RARER_WORDS)
          : roll < 0.33
            ? inlineCode(r)
            : roll < 0.37
              ? r.pick([
                  String(r.int(100)),
                  r.int(100000).toLocaleString("en-US"),
                  `${r.int(100)}%`,
                  `${(r.next() * 10).toFixed(2)}×`,
                ])
              : r.pick(WORDS);
    if (roll > 0.37 && r.chance(0.12)) w += r.pick(["s", "ed", "ing", "'s"]);
    if (i === 0) w = w[0]!.toUpperCase() + w.slice(1);
    if (roll > 0.37 && r.chance(0.04)) w = `${w}-${r.pick(WORDS)}`;
    if (roll > 0.37 && r.chance(0.03)) w = `"${w}"`;
    if (i > 2 && i < n - 1 && r.chance(0.09)) w += r.pick([",", ",", ";", ":"]);
    words.push(w);
  }
  if (r.chance(0.1)) words.push(`(${r.pick(WORDS)} ${r.pick(RARER_WORDS)})`);
  if (r.chance(0.05)) words.push(`[${r.pick(WORDS)} ${r.pick(WORDS)}](docs/${r.pick(WORDS)}.md)`);
  return words.join(" ") + r.pick([".", ".", ".", ".", "?", ":", "!"]);
}

/** English prose as READMEs and answers have it: paragraphs, headings, lists, a little markdown. */
function prose(r: Random, chars: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < chars) {
    let part: string;
    const roll = r.next();
    if (roll < 0.1) part = `## ${sentence(r).slice(0, -1)}`;
    else if (roll < 0.25) part = Array.from({ length: 2 + r.int(4) }, () => `- ${sentence(r)}`).join("\n");
    else part = Array.from({ length: 2 + r.int(5) }, () => sentence(r)).join(" ");
    parts.push(part);
    size += part.length + 2;
  }
  return parts.join("\n\n");
}

const IDENT_PARTS = [
  "get",
  "set",
  "read",
  "write",
  "tool",
  "call",
  "message",
  "token",
  "count",
  "result",
  "store",
  "key",
  "value",
  "request",
  "handler",
  "window",
  "limit",
  "state",
  "index",
  "entry",
  "size",
  "text",
  "parse",
  "build",
  "next",
  "last",
  "item",
  "list",
  "map",
  "options",
];

function identifier(r: Random, capital = false): string {
  const n = 1 + r.int(3);
  let out = "";
  for (let i = 0; i < n; i++) {
    const part = r.pick(IDENT_PARTS);
    out += i === 0 && !capital ? part : part[0]!.toUpperCase() + part.slice(1);
  }
  return out;
}

/** TypeScript as a repository holds it: functions, interfaces, comments, indentation. */
function code(r: Random, chars: number): string {
  const out: string[] = [];
  let size = 0;
  while (size < chars) {
    const name = identifier(r);
    const lines = [
      `/** ${sentence(r)} */`,
      `export function ${name}(${identifier(r)}: ${identifier(r, true)}, ${identifier(r)} = ${r.int(1000)}): ${r.pick(["number", "string", "boolean", "void", `${identifier(r, true)}[]`])} {`,
    ];
    const body = 2 + r.int(8);
    for (let i = 0; i < body; i++) {
      const indent = "  ".repeat(1 + r.int(3));
      const roll = r.next();
      if (roll < 0.25)
        lines.push(
          `${indent}const ${identifier(r)} = ${identifier(r)}.${identifier(r)}(${identifier(r)}, "${r.pick(WORDS)}_${r.pick(WORDS)}");`,
        );
      else if (roll < 0.45)
        lines.push(
          `${indent}if (${identifier(r)} === undefined || ${identifier(r)}.length > ${r.int(5000)}) return ${identifier(r)};`,
        );
      else if (roll < 0.6)
        lines.push(
          `${indent}for (let i = 0; i < ${identifier(r)}.length; i++) ${identifier(r)} += ${identifier(r)}[i]!;`,
        );
      else if (roll < 0.75) lines.push(`${indent}// ${sentence(r)}`);
      else
        lines.push(
          `${indent}${identifier(r)}.push({ ${identifier(r)}: ${identifier(r)}, ${identifier(r)}: ${r.int(100)} });`,
        );
    }
    lines.push(`  return ${identifier(r)};`, "}", "");
    const block = lines.join("\n");
    out.push(block);
    size += block.length + 1;
  }
  return out.join("\n");
}

function uuid(r: Random): string {
  return `${r.hex(8)}-${r.hex(4)}-4${r.hex(3)}-${r.pick(["8", "9", "a", "b"])}${r.hex(3)}-${r.hex(12)}`;
}

function timestamp(r: Random): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `2026-${pad(1 + r.int(12))}-${pad(1 + r.int(28))}T${pad(r.int(24))}:${pad(r.int(60))}:${pad(r.int(60))}.${pad(r.int(1000), 3)}Z`;
}

/** API results: records with ids, names, numbers, flags and timestamps, as compact JSON. */
function json(r: Random, chars: number): string {
  const records: unknown[] = [];
  let size = 0;
  while (size < chars) {
    const record = {
      id: uuid(r),
      name: `${r.pick(WORDS)} ${r.pick(WORDS)}`,
      status: r.pick(["active", "pending", "closed", "failed"]),
      amount: Math.round(r.next() * 1e6) / 100,
      count: r.int(10000),
      enabled: r.chance(0.5),
      createdAt: timestamp(r),
      tags: Array.from({ length: r.int(4) }, () => r.pick(WORDS)),
      owner: { id: r.int(1e6), email: `${r.pick(WORDS)}.${r.pick(WORDS)}@example.com` },
    };
    const text = JSON.stringify(record);
    records.push(record);
    size += text.length + 1;
  }
  return JSON.stringify(records);
}

/** Service logs full of request ids, trace ids and hashes. */
function hexLog(r: Random, chars: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < chars) {
    const line = `${timestamp(r)} ${r.pick(["INFO", "WARN", "DEBUG", "ERROR"])} [${r.pick(["api", "worker", "auth", "billing"])}] request_id=${uuid(r)} trace=${r.hex(32)} span=${r.hex(16)} user=u_${r.hex(8)} ${r.pick(["GET", "POST", "PUT"])} /v1/${r.pick(WORDS)}/${r.hex(24)} status=${r.pick([200, 200, 201, 404, 500])} dur=${r.int(2000)}ms sha=${r.hex(40)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** Random identifiers in the alphabets services use: lower case, base32, ULIDs, nanoids, tokens. */
function ids(r: Random, chars: number): string {
  const from = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[r.int(alphabet.length)]).join("");
  const lower = "abcdefghijklmnopqrstuvwxyz";
  const lines: string[] = [];
  let size = 0;
  while (size < chars) {
    const line = [
      `user=${from(lower, 8 + r.int(8))}`,
      `session=${from("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)}`,
      `key=${from("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16 + r.int(16))}`,
      `nonce=${from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", 21)}`,
      `pod=${r.pick(WORDS)}-${from("0123456789abcdef", 9)}-${from(lower + "0123456789", 5)}`,
      `code=${from(lower.toUpperCase(), 6 + r.int(6))}`,
    ].join(" ");
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** Metrics and measurements: integers and decimals, comma- and line-separated. */
function numbers(r: Random, chars: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < chars) {
    const row = Array.from({ length: 8 }, () => {
      const roll = r.next();
      if (roll < 0.3) return String(r.int(100000));
      if (roll < 0.6) return (r.next() * 10000 - 5000).toFixed(1 + r.int(4));
      if (roll < 0.8) return String(1_700_000_000 + r.int(100_000_000));
      return (r.next() * 2 - 1).toExponential(3);
    }).join(", ");
    lines.push(row);
    size += row.length + 1;
  }
  return lines.join("\n");
}

/** `hexdump -C` of binary data, with its ASCII column. */
function hexDump(r: Random, chars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let offset = 0; size < chars; offset += 16) {
    const bytes = Array.from({ length: 16 }, () => (r.chance(0.3) ? 32 + r.int(95) : r.int(256)));
    const hex = bytes.map((b) => b.toString(16).padStart(2, "0"));
    const ascii = bytes.map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
    const line = `${offset.toString(16).padStart(8, "0")}  ${hex.slice(0, 8).join(" ")}  ${hex.slice(8).join(" ")}  |${ascii}|`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** Random bytes in base64, 76 characters a line (MIME), as files and attachments come back. */
function base64(r: Random, chars: number): string {
  const bytes = new Uint8Array(Math.ceil((chars * 3) / 4));
  for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(256);
  const text = Buffer.from(bytes).toString("base64");
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += 76) lines.push(text.slice(i, i + 76));
  return lines.join("\n");
}

const HANZI =
  "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严";
const KANA =
  "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテトナニヌネノ";

/** Chinese and Japanese text: common characters, full-width punctuation. */
function cjk(r: Random, chars: number): string {
  let out = "";
  while (out.length < chars) {
    const n = 8 + r.int(30);
    for (let i = 0; i < n; i++) out += r.chance(0.25) ? KANA[r.int(KANA.length)] : HANZI[r.int(HANZI.length)];
    out += r.pick(["，", "。", "。", "、", "！", "？", "。\n"]);
  }
  return out;
}

const EMOJI = [
  "😀",
  "😂",
  "🥲",
  "😍",
  "🤔",
  "👍",
  "👎",
  "🎉",
  "🔥",
  "✨",
  "🚀",
  "💡",
  "✅",
  "❌",
  "⚠️",
  "❤️",
  "👋🏽",
  "👩‍💻",
  "🧑‍🤝‍🧑",
  "🇫🇷",
  "🇯🇵",
  "📦",
  "🐛",
  "🛠️",
  "📈",
  "🙏🏻",
  "😅",
  "💬",
  "🏳️‍🌈",
  "⭐",
];

/** Chat messages dense with emoji: skin tones, flags, joined sequences, variation selectors. */
function emoji(r: Random, chars: number): string {
  let out = "";
  while (out.length < chars) {
    const parts: string[] = [];
    const n = 3 + r.int(8);
    for (let i = 0; i < n; i++)
      parts.push(r.chance(0.6) ? Array.from({ length: 1 + r.int(3) }, () => r.pick(EMOJI)).join("") : r.pick(WORDS));
    out += parts.join(" ") + "\n";
  }
  return out;
}

/** A tool result of several kinds at once: prose, a code block, JSON, a log excerpt, an id list. */
function mixed(r: Random, chars: number): string {
  const share = Math.max(200, Math.floor(chars / 12));
  const parts: string[] = [];
  let size = 0;
  while (size < chars) {
    const part = r.pick([
      () => prose(r, share),
      () => "```ts\n" + code(r, share) + "\n```",
      () => json(r, share),
      () => hexLog(r, share),
      () => ids(r, share / 2),
      () => numbers(r, share / 2),
      () => cjk(r, share / 4),
      () => emoji(r, share / 4),
      () => base64(r, share / 2),
    ])();
    parts.push(part);
    size += part.length + 2;
  }
  return parts.join("\n\n");
}

const GENERATORS: Record<TextClass, (r: Random, chars: number) => string> = {
  prose,
  code,
  json,
  hexLog,
  ids,
  numbers,
  hexDump,
  base64,
  cjk,
  emoji,
  mixed,
};

/** `chars` characters (about) of one class; the same arguments give the same text. */
export function corpusText(kind: TextClass, chars: number, seed = 1): string {
  const index = TEXT_CLASSES.indexOf(kind);
  return GENERATORS[kind](new Random(seed * 7919 + index + 1), chars);
}

/** Every class at about `chars` characters each. */
export function corpus(chars: number, seed = 1): Array<{ kind: TextClass; text: string }> {
  return TEXT_CLASSES.map((kind) => ({ kind, text: corpusText(kind, chars, seed) }));
}

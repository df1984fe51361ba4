/**
 * The repair corpora. `MEANING_CHANGES`: argument texts that a repair (jsonrepair, or JSON.parse
 * itself) would turn into something the model may not have meant; each must be refused, or, where
 * `certain` is given, repaired to exactly that. `LEGITIMATE_REPAIRS`: syntax slips whose meaning is
 * certain; each must be repaired to `args`.
 */
export interface MeaningCase {
  raw: string;
  why: string;
  /** The schema's argument names, when the case depends on them. */
  declaredKeys?: string[];
  /** The only meaning the text can have, when a repair is allowed at all. */
  certain?: Record<string, unknown>;
}

export interface LegitimateRepair {
  raw: string;
  why: string;
  args: Record<string, unknown>;
  declaredKeys?: string[];
}

const notJson = [
  "NaN",
  "Infinity",
  "-Infinity",
  "+Infinity",
  "nan",
  "inf",
  "-inf",
  "undefined",
  "NULL",
  "Null",
  "TRUE",
  "FALSE",
  "none",
  "NONE",
  "nil",
];

const imprecise = [
  "9007199254740993",
  "-9007199254740993",
  "12345678901234567890",
  "98765432109876543210",
  "123456789012345678",
  "1234567890123456789.5",
  "0.1000000000000000055511151231257827",
  "3.14159265358979323846264338327950288",
  "1e400",
  "-1e400",
  "2e308",
  "1e-400",
  "4.9e-325",
];

const badEscapes = [
  ["C:\\Users\\new\\file.txt", "a Windows path: \\U is no escape, so \\n and \\f are in doubt"],
  ["a\\qb.txt", "an unknown escape a repair would drop"],
  ["\\d+\\.txt", "a regular expression with unescaped backslashes"],
  ["\\\\server\\share\\x", "a UNC path: \\\\ is a backslash, \\s is no escape"],
  ["\\x41", "a hex escape JSON does not have"],
  ["nul\\0", "an octal escape JSON does not have"],
  ["bell\\a", "a C escape JSON does not have"],
  ["caf\\u00e", "a unicode escape with three hex digits"],
  ["C:\\temp\\new\\Q1", "valid-looking \\t and \\n before an invalid \\Q"],
] as const;

export const MEANING_CHANGES: MeaningCase[] = [
  ...notJson.flatMap((word) => [
    { raw: `{"value": ${word}}`, why: `${word} is no JSON value; jsonrepair makes it a string` },
    { raw: `{'value': ${word}, 'n': 1,}`, why: `${word} among other syntax slips` },
    { raw: `{"values": [1, ${word}, 3]}`, why: `${word} inside a list` },
  ]),
  ...imprecise.flatMap((literal) => [
    { raw: `{"amount": ${literal}}`, why: `${literal} in strict JSON: JSON.parse rounds it` },
    { raw: `{amount: ${literal},}`, why: `${literal} in a repaired text` },
    { raw: `{"nested": {"ids": [1, ${literal}]}}`, why: `${literal} nested in strict JSON` },
  ]),
  ...badEscapes.flatMap(([text, why]) => [
    { raw: `{"path": "${text}"}`, why },
    { raw: `{'path': '${text}'}`, why: `${why}, single-quoted` },
    { raw: `{"path": "${text}",}`, why: `${why}, with a trailing comma` },
    { raw: `{"${text}": 1}`, why: `${why}, in a key` },
  ]),
  {
    raw: '{"path":"a.txt","content":"hello"',
    why: "no closing brace after a complete value: keys after it may be cut",
  },
  {
    raw: '{"path":"a.txt","content":"hello"',
    why: "no closing brace, and the schema declares a key the text lacks",
    declaredKeys: ["path", "content", "overwrite"],
  },
  { raw: '{"limit":100,"path":"a"', why: "no closing brace after a string, with a number before it" },
  { raw: '{"a":[1,2,3]', why: "no closing brace after a closed list" },
  { raw: '{"a":{"b":"c"}', why: "no closing brace after a closed object" },
  { raw: '{"items":["a","b"', why: "a list still open: items may be cut", declaredKeys: ["items"] },
  { raw: '{"q":"x","opts":{"deep":true', why: "two containers still open", declaredKeys: ["q", "opts"] },
  { raw: '{"recursive":true', why: "no closing brace after true" },
  { raw: '{"limit":100', why: "a number cut off (100 may have been 1000)" },
  { raw: '{"recursive":tr', why: "a cut-off literal" },
  { raw: '{"path":"/etc/pas', why: "a cut-off string" },
  { raw: '{"a":1,"recurs', why: "a cut-off key" },
  { raw: '{"a":1,', why: "cut after a comma" },
  { raw: '{"a":1,"b":', why: "a key without a value" },
  { raw: '{"files":["a.txt" "b.txt"]}', why: "two strings without a comma: two files, or one joined name" },
  { raw: '["a" "b"]', why: "adjacent strings at the top" },
  { raw: '{"ids":[1,,2]}', why: "an empty list slot (undefined in JavaScript)" },
  { raw: '{"ids":[,1]}', why: "an empty first slot" },
  { raw: 'Sure! {"path":"a"}', why: "prose before the object" },
  { raw: '{"path":"a"} hope this helps', why: "prose after the object" },
  { raw: 'Here:\n```json\n{"path":"a"}\n```\nDone', why: "prose around a fenced block (jsonrepair makes an array)" },
  { raw: '{"a":1}{"b":2}', why: "two objects" },
  { raw: '{"path":"safe.md","path":"/etc/passwd"}', why: "a duplicated key (JSON.parse keeps the last)" },
  { raw: "{'a':1,'a':2,}", why: "a duplicated key in a repaired text" },
  { raw: '{"zip": 01234}', why: "a leading zero: octal, decimal or a string" },
  { raw: '{"n": 0x10}', why: "a hex literal jsonrepair turns into a string" },
  { raw: '{"n": 1_000}', why: "a digit separator" },
  { raw: '{"n": .5,}', why: "a number without its leading digit" },
  { raw: '{"n": 1.,"m":2}', why: "a number with a dangling point" },
  { raw: '{"ids":[1,2,3,...]}', why: "elided items" },
  { raw: '{"a": "x" + y}', why: "concatenation with a variable" },
  { raw: '{"a": "x" "y"}', why: "two strings as one value" },
  { raw: "{'a': 'it's'}", why: "an unescaped quote inside a single-quoted string" },
  { raw: '{"a": "say "hi""}', why: "unescaped quotes inside a string" },
  { raw: '{"a":"\\u00', why: "a cut-off unicode escape" },
  { raw: '{"a": @x}', why: "text that is not JSON" },
  { raw: '{"a": `x${y}`}', why: "a template literal that interpolates a variable" },
  { raw: '{"a":"line\\\nnext",}', why: "a backslash before a raw newline (a JavaScript line continuation)" },
  { raw: '{"a": ObjectId("x")}', why: "a constructor call jsonrepair unwraps" },
  { raw: "{a: b c}", why: "two unquoted words jsonrepair joins" },
  { raw: '{"a": 12abc}', why: "a number glued to letters" },
  { raw: '{"a":["["]', why: "a bracket inside a string that jsonrepair re-reads", declaredKeys: ["a"] },
  { raw: '{"a":{"b":"{-"},"c":{}', why: "a brace inside a string that jsonrepair re-reads", declaredKeys: ["a", "c"] },
];

export const LEGITIMATE_REPAIRS: LegitimateRepair[] = [
  { raw: "{'path': '/tmp/a'}", why: "single quotes", args: { path: "/tmp/a" } },
  { raw: "{path: 'a', limit: 3}", why: "unquoted keys", args: { path: "a", limit: 3 } },
  { raw: '{"path":"a",}', why: "a trailing comma", args: { path: "a" } },
  { raw: '{"ids":[1,2,],}', why: "trailing commas in a list and an object", args: { ids: [1, 2] } },
  { raw: '```json\n{"path":"a"}\n```', why: "a code fence", args: { path: "a" } },
  { raw: '{"path": /* where */ "a"} // done', why: "comments", args: { path: "a" } },
  { raw: '{"a": 1 /* , "b": 2 */}', why: "a comment holding JSON-like text", args: { a: 1 } },
  { raw: '{"a":True,"b":None,"c":False}', why: "Python literals", args: { a: true, b: null, c: false } },
  { raw: '{"a":1 "b":2}', why: "a missing comma between members", args: { a: 1, b: 2 } },
  { raw: '{"ids":[1 2 3]}', why: "missing commas between numbers", args: { ids: [1, 2, 3] } },
  { raw: '{"a" 1}', why: "a missing colon", args: { a: 1 } },
  { raw: '{"text":"line one\nline two"}', why: "a raw newline in a string", args: { text: "line one\nline two" } },
  { raw: '{"text":"a\tb"}', why: "a raw tab in a string", args: { text: "a\tb" } },
  { raw: '{"a":"x" + "y"}', why: "string concatenation", args: { a: "xy" } },
  { raw: '{"a":1}}', why: "an extra closing brace", args: { a: 1 } },
  { raw: "{\u201cpath\u201d: \u201ca.md\u201d}", why: "curly quotes", args: { path: "a.md" } },
  { raw: '{"text": "it\\\'s",}', why: "an escaped apostrophe", args: { text: "it's" } },
  { raw: "{'text': 'it\\'s'}", why: "an escaped apostrophe in single quotes", args: { text: "it's" } },
  {
    raw: "{'path': 'C:\\\\Users\\\\new'}",
    why: "a Windows path with escaped backslashes",
    args: { path: "C:\\Users\\new" },
  },
  {
    raw: "{'id': '9007199254740993'}",
    why: "a big number sent as a string stays exact",
    args: { id: "9007199254740993" },
  },
  {
    raw: "{amount: 0.1, big: 9007199254740991,}",
    why: "numbers a double holds exactly",
    args: { amount: 0.1, big: 9007199254740991 },
  },
  { raw: "{n: 1e21, m: -0.5e-3,}", why: "exponents within range", args: { n: 1e21, m: -0.0005 } },
  { raw: "{'say': 'he said \"hi\"'}", why: "double quotes inside single quotes", args: { say: 'he said "hi"' } },
  { raw: "{'mode': fast}", why: "an unquoted word value", args: { mode: "fast" } },
  { raw: '{"a": `x`}', why: "a template literal without interpolation", args: { a: "x" } },
  { raw: '{"a": "x" // note\n}', why: "a line comment after a value", args: { a: "x" } },
  { raw: '{"a": "x"\n"b": "y"}', why: "a missing comma at a line break", args: { a: "x", b: "y" } },
  {
    raw: '{"path":"a.txt","content":"hello"',
    why: "a missing brace when every declared key is present",
    args: { path: "a.txt", content: "hello" },
    declaredKeys: ["path", "content"],
  },
  {
    raw: '{"a":{"b":[1,2]}',
    why: "a missing outer brace after nested values, every key present",
    args: { a: { b: [1, 2] } },
    declaredKeys: ["a"],
  },
  {
    raw: "{'recursive': True",
    why: "a missing brace after a Python literal, every key present",
    args: { recursive: true },
    declaredKeys: ["recursive"],
  },
  { raw: '{"q":"caf\\u00e9"}', why: "a valid unicode escape (strict JSON)", args: { q: "café" } },
  { raw: "{'q': 'caf\\u00e9',}", why: "a valid unicode escape in a repaired text", args: { q: "café" } },
];

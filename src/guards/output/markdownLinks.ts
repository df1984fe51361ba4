/**
 * The parts of markdown links a reader does not see rendered: the destination (URL) and the
 * title. A rendered link shows only its text, but a model reads the raw markdown, URL and title
 * included, so an instruction can hide there.
 */

/** `[text](destination "title")`, also as an image (`![alt](...)`); the title may use '' or (). */
const INLINE_LINK =
  /\[[^\]\n]{0,500}\]\(\s*(<[^>\n]{0,2000}>|[^\s()]{1,2000})(?:\s+("[^"\n]{0,500}"|'[^'\n]{0,500}'|\([^()\n]{0,500}\)))?\s*\)/g;
/** A reference definition: `[id]: destination "title"` on a line of its own. */
const REFERENCE_DEFINITION =
  /^ {0,3}\[[^\]\n]{1,200}\]:[ \t]*(<[^>\n]{0,2000}>|\S{1,2000})(?:[ \t]+("[^"\n]{0,500}"|'[^'\n]{0,500}'|\([^()\n]{0,500}\)))?/gm;

/** What each link of `text` hides: its destination read as words, and its title. */
export function hiddenLinkTexts(text: string): string[] {
  if (!text.includes("](") && !text.includes("]:")) return [];
  const hidden: string[] = [];
  for (const pattern of [INLINE_LINK, REFERENCE_DEFINITION]) {
    for (const match of text.matchAll(pattern)) {
      hidden.push(destinationWords(match[1]!));
      if (match[2]) hidden.push(match[2].slice(1, -1));
    }
  }
  return hidden;
}

/**
 * A URL as the words it spells: percent-escapes and `+` decoded, and the punctuation that joins
 * words in paths and queries (`/ - _ . ? & = #`) read as spaces, each segment on a line of its own.
 */
function destinationWords(destination: string): string {
  const bare = destination.startsWith("<") ? destination.slice(1, -1) : destination;
  return percentDecoded(bare.replace(/\+/g, " "))
    .split(/[/?&#=]+/)
    .map((segment) => segment.replace(/[-_.~]+/g, " ").trim())
    .join("\n");
}

function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run; // not UTF-8: left as it was
    }
  });
}

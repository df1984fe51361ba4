/** A value read as an object whose fields may or may not be there. */
export type Loose = Record<string, unknown>;

/**
 * The fields of a value that may not be an object (a message dict, a tool's answer, a content
 * block): anything else reads as `{}`, so a chain like `fields(fields(m).response_metadata).x`
 * never throws on odd shapes.
 */
export function fields(value: unknown): Loose {
  return value !== null && typeof value === "object" ? (value as Loose) : NO_FIELDS;
}

/** One empty object for every value that is not one: views read it on every step, and never write it. */
const NO_FIELDS: Loose = Object.freeze({});

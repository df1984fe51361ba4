/**
 * Every argument name a tool can receive, when its schema closes the list: a Zod object that
 * strips or refuses unknown keys (its shape), or a JSON Schema with `additionalProperties: false`
 * (its `properties`). Undefined otherwise: no schema, a wrapped or transformed Zod schema, a
 * union, an object that passes unknown keys through. Used to tell a forgotten closing brace from
 * a call cut off after its last complete value: only when every name the tool can receive is
 * present can nothing have been cut.
 */
export function declaredKeys(schema: unknown): string[] | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const zod = schema as {
    shape?: unknown;
    _zod?: { def?: { catchall?: ZodLike } };
    _def?: { unknownKeys?: string; catchall?: { _def?: { typeName?: string } } };
  };
  if (zod.shape !== null && typeof zod.shape === "object") {
    if (zod._zod) return closedV4(zod._zod.def?.catchall) ? Object.keys(zod.shape) : undefined;
    const v3 = zod._def;
    const closed =
      v3?.unknownKeys !== "passthrough" && (v3?.catchall === undefined || v3.catchall._def?.typeName === "ZodNever");
    return closed ? Object.keys(zod.shape) : undefined;
  }
  const json = schema as { properties?: unknown; additionalProperties?: unknown };
  if (json.additionalProperties !== false) return undefined;
  if (json.properties === null || typeof json.properties !== "object" || Array.isArray(json.properties))
    return undefined;
  return Object.keys(json.properties);
}

interface ZodLike {
  _zod?: { def?: { type?: string } };
}

/** Zod 4: no catchall strips unknown keys, a `never` catchall refuses them; any other passes them on. */
function closedV4(catchall: ZodLike | undefined): boolean {
  return catchall === undefined || catchall._zod?.def?.type === "never";
}

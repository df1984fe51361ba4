import xxhash from "xxhash-wasm";

/** 64-bit xxhash of a string, as 16 hex digits. */
export type Hasher = (text: string) => string;

let loading: Promise<Hasher> | undefined;
let loaded: Hasher | undefined;

/** Loads the WebAssembly hasher once per process; every later call reuses it. */
export function loadHasher(): Promise<Hasher> {
  loading ??= xxhash().then((api) => (loaded = (text: string) => api.h64ToString(text)));
  return loading;
}

/** The hasher once `loadHasher` has finished, so that hot paths need not wait for a promise. */
export function loadedHasher(): Hasher | undefined {
  return loaded;
}

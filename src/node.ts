// "harness-kit/node": the public parts that need Node's file system. Re-exports only.
export { FileSystemOffloadStore, type FileSystemOffloadStoreOptions } from "./offload/FileSystemOffloadStore.js";
export * from "./guards/path/index.js";
export { loadPolicyFile } from "./guards/policy/loadPolicyFile.js";

// harness-kit/node: parts that need Node's file system. Re-exports only.
export { FileSystemOffloadStore, type FileSystemOffloadStoreOptions } from "./offload/FileSystemOffloadStore.js";

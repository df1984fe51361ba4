import { z } from "zod";
import { guardOptions } from "../../core/baseOptions.js";

/** Options, their defaults and their meaning in one place; bad options fail at construction. */
export const pathGuardOptions = guardOptions
  .extend({
    roots: z
      .array(z.string().min(1), { error: "must be a non-empty list of directory paths" })
      .min(1, "must be a non-empty list of directory paths")
      .readonly()
      .describe("Directories the checked paths must stay inside (a root itself is allowed). Required."),
    tools: z
      .record(
        z.string(),
        z.union([z.literal(true), z.array(z.string()).min(1).readonly()], {
          error: "must be true or a non-empty list of argument names",
        }),
        {
          error: "must name at least one tool",
        },
      )
      .refine((tools) => Object.keys(tools).length > 0, "must name at least one tool")
      .readonly()
      .describe(
        'Tools whose path arguments are checked, each with the argument names to check, or `true` for `DEFAULT_PATH_ARGUMENTS`. Names in `PATTERN_ARGUMENTS` are checked as glob patterns, the others as paths. A name is found at any depth: `{path}`, `{paths: [...]}`, `{options: {path}}`. A listed argument is checked all the way down: every string in it, object keys included (`files: [{src, dest}]` with `["files"]` checks `src` and `dest`; list `path`, not `files`, for `files: [{path, content}]`). Numbers, booleans and null are left to the tool\'s schema.',
      ),
    baseDir: z
      .string()
      .optional()
      .describe("Directory the tools resolve relative paths against. Default `process.cwd()`."),
    virtualPaths: z
      .boolean()
      .default(false)
      .describe(
        "Absolute paths name places below `baseDir`, as deepagents' `FilesystemBackend({ virtualMode: true })` reads them, instead of places on the host.",
      ),
    rewrite: z
      .boolean()
      .default(false)
      .describe(
        "Hand each checked path to the tool as the one canonical absolute path the guard checked (directories' symbolic links resolved), instead of refusing a path that some readings keep inside and others do not. Default false: docs/guards/path.md says why refusing is the default.",
      ),
    observeOnly: guardOptions.shape.observeOnly.describe(
      "Emit signals only (with `detail.observeOnly`) and let every call run unchanged. Default false.",
    ),
    onSignal: guardOptions.shape.onSignal.describe(
      "Receives every refusal (directive) and every rewrite that changed more than the path's form (warn).",
    ),
  })
  .superRefine((options, context) => {
    if (options.rewrite && options.virtualPaths)
      context.addIssue({
        code: "custom",
        path: ["rewrite"],
        message: "cannot be combined with virtualPaths: a rewritten path is a host path",
      });
  });

export type PathGuardOptions = z.input<typeof pathGuardOptions>;

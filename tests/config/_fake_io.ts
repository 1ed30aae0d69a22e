/** An in-memory `ProfileIo` for configuration tests: no real files, no real environment. */
import type { ProfileIo } from "../../src/config/parse_profile_args.ts";

/** Options for {@link fakeIo}. */
export interface FakeIoOptions {
  /** Environment variables. @default {} */
  readonly env?: Readonly<Record<string, string>>;
  /** File path → content for `-f`. @default {} */
  readonly files?: Readonly<Record<string, string>>;
  /** @default false */
  readonly isTty?: boolean;
}

export function fakeIo(options: FakeIoOptions = {}): ProfileIo {
  const files = options.files ?? {};
  return {
    env: options.env ?? {},
    readTextFile(path: string): string {
      const text = files[path];
      if (text === undefined) throw new Deno.errors.NotFound(`No such file: ${path}`);
      return text;
    },
    isTty: options.isTty ?? false,
  };
}

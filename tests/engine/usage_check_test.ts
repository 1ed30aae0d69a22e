import { deepStrictEqual, match } from "node:assert/strict";
import { checkUsage, MAX_USAGE_TOKENS } from "../../src/engine/usage_check.ts";

Deno.test("checkUsage keeps whole counts from 0 to the maximum and says nothing", () => {
  const usage = { promptTokens: 0, completionTokens: MAX_USAGE_TOKENS, totalTokens: 7, reasoningTokens: undefined };
  deepStrictEqual(checkUsage(usage), { usage });
  deepStrictEqual(checkUsage(undefined), { usage: undefined });
});

Deno.test("checkUsage names each invalid count, keeps the valid ones, and never keeps a bad value as a number", () => {
  const cases: [number, string][] = [
    [-5, "-5"],
    [1e308, "1e+308"],
    [Infinity, "a number too large for a double"],
    [NaN, "not a number"],
    [2.5, "2.5"],
    [MAX_USAGE_TOKENS + 1, String(MAX_USAGE_TOKENS + 1)],
  ];
  for (const [value, said] of cases) {
    const check = checkUsage({ promptTokens: 5, completionTokens: value });
    deepStrictEqual(check.usage, { promptTokens: 5 }, said);
    deepStrictEqual(check.error?.type, "InvalidUsageError");
    match(check.error!.message, new RegExp(`usage\\.completion_tokens = ${said.replace(/[.+]/g, "\\$&")} \\(`));
    deepStrictEqual(
      check.error!.group,
      "The server's usage report is invalid (a token count is a whole number " +
        `from 0 to ${MAX_USAGE_TOKENS}).`,
    );
  }
  deepStrictEqual(checkUsage({ completionTokens: -1, totalTokens: -2 }).usage, undefined);
});

/**
 * Which commands a child may ask us to re-run. Pure.
 *
 * The block's `command` is the child's claim of proof, so it must be the project's own test
 * command, optionally narrowed by plain arguments (`npx vitest run tests/a.test.ts`). Anything
 * else (`true`, `echo ok`, `npx vitest run; exit 0`) would let a child fake a verdict.
 */
const SHELL_META = /[;&|<>`$(){}\n\\*?!'"]/;

type CommandCheck = { ok: true; command: string } | { ok: false; reason: string };

function words(s: string): string[] {
  return s.trim().split(/\s+/).filter((w) => w !== '');
}

export function checkCommand(claimed: string, testCommand: string): CommandCheck {
  const want = words(testCommand);
  const got = words(claimed);
  const prefixOk = want.length <= got.length && want.every((w, k) => got[k] === w);
  if (!prefixOk) {
    return { ok: false, reason: `command must be the project's test command (\`${testCommand}\`), optionally followed by arguments such as a test file; got \`${claimed}\`` };
  }
  const extra = got.slice(want.length);
  const bad = extra.find((w) => SHELL_META.test(w));
  if (bad !== undefined) {
    return { ok: false, reason: `the arguments after the test command must be plain words (paths, test names, flags); \`${bad}\` is not allowed` };
  }
  return { ok: true, command: [testCommand.trim(), ...extra].join(' ') };
}

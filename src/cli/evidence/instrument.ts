/** vitest/jest/junit reports go to a file; go's JSON events replace the text on stdout. */
export type ReportKind = 'vitest-json' | 'jest-json' | 'junit-xml' | 'go-json' | 'tap' | 'cargo' | 'none';

/** Shell syntax after which appending arguments would reach another command. */
const COMPOUND = /&&|\|\||[;|<>`]|\$\(/;

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Ask the runner for a machine-readable report as well, when the command is a plain call to a
 * runner we know and does not pick its own reporter. Anything else runs as written and is read
 * by the text parsers.
 */
export function instrumentCommand(command: string, reportFile: string, script?: (name: string) => string | null): { command: string; kind: ReportKind } {
  const plain = { command, kind: 'none' as const };
  if (COMPOUND.test(command) || process.platform === 'win32') return plain;
  const f = quote(reportFile);
  // `npm test` (or `npm run x`, `yarn x`, `pnpm x`) whose script is a plain call of vitest, jest or
  // pytest: the report flags go through the package manager to the runner.
  // The package manager's own flags (`npm test --silent`) may come before or after the script's name.
  const pm = /^(npm|pnpm|yarn)(?:\s+--?[\w-]+)*(?:\s+run(?:-script)?)?\s+([\w:.@/][\w:.@/-]*)(?:\s+--?[\w-]+)*$/.exec(command.trim());
  if (pm && script) {
    const name = pm[1] === 'npm' && (pm[2] === 't' || pm[2] === 'tst') ? 'test' : (pm[2] ?? '');
    const body = script(name)?.trim() ?? null;
    if (body !== null && !/^(npm|pnpm|yarn)\b/.test(body)) {
      const inner = instrumentCommand(body, reportFile);
      if ((inner.kind === 'vitest-json' || inner.kind === 'jest-json' || inner.kind === 'junit-xml') && inner.command.startsWith(body)) {
        return { command: `${command.trim()}${pm[1] === 'npm' ? ' --' : ''}${inner.command.slice(body.length)}`, kind: inner.kind };
      }
    }
    return plain;
  }
  if (/(^|[\s/])vitest(\.mjs)?(\s|$)/.test(command) && !/--reporter|--outputFile/.test(command)) {
    return { command: `${command} --reporter=default --reporter=json --outputFile.json=${f}`, kind: 'vitest-json' };
  }
  if (/(^|[\s/])jest(\.js)?(\s|$)/.test(command) && !/--json|--outputFile|--reporters/.test(command)) {
    return { command: `${command} --json --outputFile=${f}`, kind: 'jest-json' };
  }
  if (/(^|[\s/])(pytest|py\.test)(\s|$)|-m\s+pytest(\s|$)/.test(command) && !/--junit-?xml/.test(command)) {
    return { command: `${command} --junitxml=${f}`, kind: 'junit-xml' };
  }
  const nodeTest = /(^|[\s/])node(?:\.exe)?(?:\s+--?[\w-]+(?:=\S+)?)*\s+--test(?=\s|$)/.exec(command);
  if (nodeTest && !/--test-reporter/.test(command)) {
    // node:test: the spec reporter for people, TAP (names, files, error names) for us.
    const at = nodeTest.index + nodeTest[0].length;
    return { command: `${command.slice(0, at)} --test-reporter=spec --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination=${f}${command.slice(at)}`, kind: 'tap' };
  }
  // cargo stops at the first failing test binary unless told not to: every test must run.
  const cargo = /(^|\s)cargo\s+(?:\+\S+\s+)?test(?=\s|$)/.exec(command);
  if (cargo && !/--no-fail-fast/.test(command)) {
    const at = cargo.index + cargo[0].length;
    // Quiet output (`-q`, libtest's terse format) prints dots, not test names: it goes.
    const loud = command.slice(at).replace(/\s(?:-q|--quiet|--format[= ]terse)(?=\s|$)/g, '');
    return { command: `${command.slice(0, at)} --no-fail-fast${loud}`, kind: 'cargo' };
  }
  const go = /(^|\s)go\s+test(?=\s|$)/.exec(command);
  if (go && !/\s-json(\s|$)/.test(command)) {
    const at = go.index + go[0].length;
    return { command: `${command.slice(0, at)} -json${command.slice(at)}`, kind: 'go-json' };
  }
  return plain;
}

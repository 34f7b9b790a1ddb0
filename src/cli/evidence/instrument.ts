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
export function instrumentCommand(command: string, reportFile: string): { command: string; kind: ReportKind } {
  const plain = { command, kind: 'none' as const };
  if (COMPOUND.test(command) || process.platform === 'win32') return plain;
  const f = quote(reportFile);
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
    return { command: `${command.slice(0, at)} --no-fail-fast${command.slice(at)}`, kind: 'cargo' };
  }
  const go = /(^|\s)go\s+test(?=\s|$)/.exec(command);
  if (go && !/\s-json(\s|$)/.test(command)) {
    const at = go.index + go[0].length;
    return { command: `${command.slice(0, at)} -json${command.slice(at)}`, kind: 'go-json' };
  }
  return plain;
}

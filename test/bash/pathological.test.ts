import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ev } from '../helpers/events.js';
import { runHookInProcess } from '../helpers/hookInProcess.js';
import { corpusRepo, type CorpusRepo } from './fixture.js';

/**
 * Inputs built to crash or hang a parser: the hook must answer, and fail closed only where it
 * matters. No stopwatch (it would fail on a loaded machine): an input that hangs the analysis
 * runs its case past the timeout.
 */
let repo: CorpusRepo;
beforeAll(() => {
  repo = corpusRepo();
  repo.setPhase('tdd-green');
});
afterAll(() => repo.cleanup());

function run(command: string) {
  return runHookInProcess(ev.bash({ cwd: repo.root, agent_type: 'tdd-gate:implementer' }, command), { env: { HOME: repo.home } });
}

const MB = 'x'.repeat(1024 * 1024);
const nested = (inner: string, n: number) => 'echo ' + '$('.repeat(n) + inner + ')'.repeat(n);

describe('pathological Bash input through the hook', () => {
  it.each([
    ['a 1 MB heredoc into a scratch file', `cat > /tmp/big.txt <<'EOF'\n${MB}\nEOF`, 'pass'],
    ['a 1 MB heredoc into a frozen test', `cat > tests/a.test.ts <<'EOF'\n${MB}\nEOF`, 'deny'],
    // Without the OS wall, a program the analysis does not know (here `xxx…`), a computed command word,
    // or a function or alias name that ends at an undefined program asks the person (ADR 010).
    ['a 1 MB here-string fed to sh', `sh <<< '${MB}'`, 'ask'],
    ['a 1 MB here-string of a known command fed to sh', `sh <<< 'echo ${MB}'`, 'pass'],
    ['a 1 MB single-quoted argument', `echo '${MB}'`, 'pass'],
    ['2,000 nested $( around a harmless word', nested('x', 2000), 'ask'],
    ['2,000 nested $( around a test deletion', nested('rm tests/a.test.ts', 2000), 'deny'],
    ['2,000 nested subshells', '('.repeat(2000) + 'ls' + ')'.repeat(2000), 'pass'],
    ['2,000 nested backticks', 'echo ' + '`echo '.repeat(50) + 'x' + '`'.repeat(50), 'pass'],
    ['10,000 statements', 'true; '.repeat(10_000), 'pass'],
    ['a 5,000-stage pipeline', Array.from({ length: 5000 }, () => 'cat').join(' | '), 'pass'],
    ['a brace expansion with a million results', 'echo ' + '{a,b}'.repeat(20), 'pass'],
    ['a brace explosion as rm target', 'rm ' + '{a,b}'.repeat(20), 'deny'],
    ['a huge sequence', 'rm f{1..1000000}', 'deny'],
    ['bash -c nested 20 deep', 'bash -c '.repeat(20) + 'ls', 'pass'],
    ['an unterminated quote', 'echo "never closed', 'pass'],
    ['an unterminated quote naming a test', 'echo "never closed > tests/a.test.ts', 'deny'],
    ['an unterminated heredoc', 'cat <<EOF > /tmp/x\nno end', 'pass'],
    ['control characters', 'echo \u0000\u0001\u0002\u001b[31m', 'pass'],
    ['lone operators', ';;& | && || ))', 'pass'],
    ['10,000 variable assignments', 'a=1; '.repeat(10_000) + 'echo $a', 'pass'],
    ['30 nested loops', 'for a in 1 2; do '.repeat(30) + 'echo > /tmp/x' + '; done'.repeat(30), 'pass'],
    ['functions that call the next twice, 12 deep', Array.from({ length: 12 }, (_, i) => `f${i}() { f${i + 1}; f${i + 1}; }`).join('; ') + '; f0', 'ask'],
    ['functions that call the next twice, 12 deep, ending at a known program', Array.from({ length: 12 }, (_, i) => `f${i}() { f${i + 1}; f${i + 1}; }`).join('; ') + '; f12() { true; }; f0', 'pass'],
    ['aliases that expand to each other', "alias a='b; b'; alias b='a; a'; a", 'ask'],
  ] as const)('%s', { timeout: 60_000 }, async (_name, command, verdict) => {
    const r = await run(command);
    expect(r.status).toBe(0);
    expect(r.decision, r.reason).toBe(verdict);
  });
});

// Plugin skills are namespaced: `/tdd-gate:tdd` always reaches this plugin's skill, while the short
// `/tdd` may start another plugin's skill of the same name. Every command the README, the docs or
// the skills give a person to type names it in full (a bare `/tdd` may still be mentioned).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FILES = [
  'README.md',
  // docs/e2e.md is left out: it records what the end-to-end scenarios type, the short form among them on purpose.
  ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'e2e.md').map((f) => `docs/${f}`),
  ...readdirSync(path.join(ROOT, 'skills')).map((d) => `skills/${d}/SKILL.md`),
];

/** `/tdd <arguments>` at the start of a code span or of a line: a command to type. */
const SHORT_COMMAND = /(?:^|`)\/tdd (?=\S)/u;

describe('the /tdd skill is given by its full name', () => {
  it.each(FILES)('%s', (rel) => {
    const lines = readFileSync(path.join(ROOT, rel), 'utf8').split('\n');
    const found = lines.flatMap((line, i) => (SHORT_COMMAND.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : []));
    expect(found).toEqual([]);
  });

  it('the pattern finds a short command in a code block and in a code span, and leaves the full name and a bare mention alone', () => {
    const hits = (s: string) => s.split('\n').filter((l) => SHORT_COMMAND.test(l));
    expect(hits('/tdd specs/SPEC-001.md\nrun `/tdd specs/x.md` now')).toHaveLength(2);
    expect(hits('/tdd-gate:tdd specs/SPEC-001.md\nthe short `/tdd` works\n# /tdd — the orchestrator')).toEqual([]);
  });
});

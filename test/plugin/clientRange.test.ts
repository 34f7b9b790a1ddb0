// The Claude Code range the plugin declares: README and the plugin metadata name the same oldest and
// newest tested client, and the oldest is the one the end-to-end suite pins (package.json).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const RANGE = /Claude Code (\d+\.\d+\.\d+) to (\d+\.\d+\.\d+)/u;

function range(text: string, where: string): [string, string] {
  const m = RANGE.exec(text);
  if (!m) throw new Error(`${where} does not state "Claude Code <oldest> to <newest>"`);
  return [m[1]!, m[2]!];
}
const order = (v: string) => v.split('.').map(Number).reduce((n, x) => n * 10_000 + x, 0);

describe('declared client range', () => {
  const pinned = (JSON.parse(read('package.json')) as { devDependencies: Record<string, string> }).devDependencies['@anthropic-ai/claude-code'];
  const readme = range(read('README.md'), 'README.md');

  it('the oldest is the pinned client the suite runs against', () => {
    expect(readme[0]).toBe(pinned);
    expect(order(readme[1])).toBeGreaterThanOrEqual(order(readme[0]));
  });

  it.each(['.claude-plugin/plugin.json', '.claude-plugin/marketplace.json'])('%s states the same range', (rel) => {
    expect(range(read(rel), rel)).toEqual(readme);
  });
});

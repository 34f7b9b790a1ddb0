import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { specHash } from '../../src/state/hash.js';
import { liveSpecHash } from '../../src/spec/specHashCache.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let spec: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tdd-gate-spec-hash-'));
  env = { CLAUDE_PLUGIN_DATA: path.join(dir, 'data') };
  spec = path.join(dir, 'SPEC.md');
  writeFileSync(spec, '# SPEC\n\nthe oracle  \n');
});

afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

const entries = () => (existsSync(path.join(dir, 'data/spec-hash')) ? readdirSync(path.join(dir, 'data/spec-hash')) : []);
const later = () => vi.useFakeTimers({ now: Date.now() + 10_000, toFake: ['Date'] });

describe('liveSpecHash', () => {
  it('is the normalized SPEC hash, remembered or not, and null for a missing SPEC', () => {
    const expected = specHash('# SPEC\n\nthe oracle  \n');
    expect(liveSpecHash(spec, {})).toBe(expected);
    later();
    expect(liveSpecHash(spec, env)).toBe(expected);
    expect(entries()).toHaveLength(1);
    expect(liveSpecHash(spec, env)).toBe(expected);
    expect(liveSpecHash(path.join(dir, 'missing.md'), env)).toBeNull();
  });

  it('does not remember a SPEC changed in the last two seconds', () => {
    liveSpecHash(spec, env);
    expect(entries()).toEqual([]);
  });

  it('sees a same-size change whose modification time was set back', () => {
    later();
    const before = liveSpecHash(spec, env);
    const { atime, mtime } = statSync(spec);
    writeFileSync(spec, '# SPEC\n\nthe oracLE  \n');
    utimesSync(spec, atime, mtime); // same size, same mtime: only the status-change time moved
    expect(liveSpecHash(spec, env)).not.toBe(before);
    expect(liveSpecHash(spec, env)).toBe(specHash('# SPEC\n\nthe oracLE  \n'));
  });

  it('ignores an entry that is not for this file or not a hash', () => {
    later();
    liveSpecHash(spec, env);
    const [name] = entries();
    writeFileSync(path.join(dir, 'data/spec-hash', name!), JSON.stringify({ file: spec, identity: 'x', hash: 'not-a-hash' }));
    expect(liveSpecHash(spec, env)).toBe(specHash('# SPEC\n\nthe oracle  \n'));
  });
});

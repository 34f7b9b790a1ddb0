import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsSealSource, newSealKey, openSeal, pySealSource } from '../../../src/verify/evidence/seal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tdd-seal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the JavaScript writer: begin, the records, and (unless `noEnd`) end. */
function writeJs(key: string, records: string[], noEnd = false): string {
  const keyPath = path.join(dir, 'k');
  const out = path.join(dir, 'report');
  writeFileSync(keyPath, key, { mode: 0o600 });
  const script = `${jsSealSource(keyPath, out)}
const s = tddGateSeal(require('fs'), require('crypto'));
s.begin('run');
for (const r of ${JSON.stringify(records)}) s.record(r);
${noEnd ? '' : "s.end('done');"}`;
  execFileSync(process.execPath, ['-e', script]);
  expect(existsSync(keyPath)).toBe(false);
  return out;
}

function writePy(key: string, records: string[]): string {
  const keyPath = path.join(dir, 'k');
  const out = path.join(dir, 'report');
  writeFileSync(keyPath, key, { mode: 0o600 });
  const script = `import json as _json, hmac as _hmac, hashlib as _hashlib, os as _os
${pySealSource(keyPath, out)}
s = _TddGateSeal()
s.begin("run")
for r in ${JSON.stringify(records)}:
    s.record(r)
s.end("done")
`;
  execFileSync('python3', ['-c', script]);
  expect(existsSync(keyPath)).toBe(false);
  return out;
}

describe('sealed reports', () => {
  const records = ['{"a":1}', 'line with\ttab and “quotes” and \u2028', '\ud800 lone'];

  it('opens what the JavaScript writer sealed, record for record', () => {
    const key = newSealKey();
    const opened = openSeal(readFileSync(writeJs(key, records), 'utf8'), key);
    expect(opened).toEqual({ ok: true, body: records.join('\n'), begin: 'run', end: 'done' });
  });

  it('opens what the Python writer sealed', () => {
    const key = newSealKey();
    const opened = openSeal(readFileSync(writePy(key, records.slice(0, 2)), 'utf8'), key);
    expect(opened).toEqual({ ok: true, body: records.slice(0, 2).join('\n'), begin: 'run', end: 'done' });
  });

  it('refuses a report under another key (a writer that did not have the run’s key)', () => {
    const opened = openSeal(readFileSync(writeJs(newSealKey(), records), 'utf8'), newSealKey());
    expect(opened.ok).toBe(false);
  });

  it('refuses a run that never ended, and a line written by anything else', () => {
    const key = newSealKey();
    const cut = openSeal(readFileSync(writeJs(key, records, true), 'utf8'), key);
    expect(cut).toMatchObject({ ok: false, problem: expect.stringMatching(/saw the run begin but not end/) });
    const out = writeJs(key, records);
    const text = readFileSync(out, 'utf8');
    const lines = text.trimEnd().split('\n');
    const forged = [...lines.slice(0, 2), '{"seal":"record","i":2,"body":"{\\"passed\\":true}"}\tdeadbeef', ...lines.slice(2)].join('\n');
    expect(openSeal(forged, key)).toMatchObject({ ok: false, problem: expect.stringMatching(/not written by the gate/) });
    appendFileSync(out, '{"seal":"record","i":99,"body":"x"}\t00\n');
    expect(openSeal(readFileSync(out, 'utf8'), key).ok).toBe(false);
  });

  it('refuses no report and an unkeyed one', () => {
    expect(openSeal(null, newSealKey())).toMatchObject({ ok: false, problem: expect.stringMatching(/never wrote/) });
    const key = newSealKey();
    const out = path.join(dir, 'report');
    execFileSync(process.execPath, ['-e', `${jsSealSource(path.join(dir, 'missing'), out)}
const s = tddGateSeal(require('fs'), require('crypto')); s.begin(''); s.record('x'); s.end('');`]);
    expect(openSeal(readFileSync(out, 'utf8'), key).ok).toBe(false);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RefusalError } from '../../state/rules/errors.js';
import { parseFlags, requireFlag } from '../args.js';
import { loadStack, openSession, out, transition } from '../session.js';
import { criteriaMissingFromPlan } from '../../spec/spec.js';
import { scanTree } from '../../verify/tree.js';
import { writeBaseline } from '../../verify/baseline.js';
import type { Verb } from '../verb.js';
import { syncHardening } from './harden.js';

const USAGE = 'tdd-gate advance red --plan <path>';

export const advanceRed: Verb = {
  name: 'advance red',
  summary: 'tdd-plan → tdd-red once the test plan exists and is not empty',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseFlags(args, { plan: { type: 'string' } }, USAGE);
    const planArg = requireFlag(values.plan, '--plan', USAGE);
    const s = openSession(io);
    const planRel = path.relative(s.root, path.resolve(io.cwd, planArg)).split(path.sep).join('/');
    let text: string;
    try {
      text = readFileSync(path.join(s.root, planRel), 'utf8');
    } catch {
      throw new RefusalError(`the plan ${planRel} does not exist; write the test plan (under .tdd/plans/) first`);
    }
    if (text.trim() === '') throw new RefusalError(`the plan ${planRel} is empty; write the test plan first`);
    const stack = loadStack(s);
    // What the tests look like before RED: "written in this cycle" is measured against this.
    const tree = scanTree(s.root, stack);
    writeBaseline(s.root, Object.keys(tree.tests));
    const next = await transition(s, 'advance red', ['tdd-plan'], 'tdd-red', (_state, at) => ({ plan_artifact: planRel, baseline: { at, files: tree.tests, sources: tree.sources } }));
    out(s, `tdd-gate: tdd-plan → tdd-red (plan ${planRel}).`);
    const missing = criteriaMissingFromPlan(s.root, next.spec_path, text);
    if (missing.length > 0) io.stderr.write(`tdd-gate advance red: warning: the plan does not name ${missing.join(', ')}; every criterion of the SPEC gets a section headed with its id (the evidence record shows which ones the plan missed)\n`);
    await syncHardening(s);
    out(s, 'next: write failing tests (and STUB:TDD stubs), then `tdd-gate verify red`');
    return 0;
  },
};

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RefusalError } from '../../state/rules/errors.js';
import { sha256Hex, specHash } from '../../state/hash.js';
import { writeSnapshot } from '../../state/snapshots.js';
import { resultDigest } from '../../handoff/rules/digest.js';
import { blockTemplate, parseResult } from '../../handoff/rules/block.js';
import { parseFlags, requireFlag } from '../args.js';
import { loadStack, loadCheckedState, openSession, out, readSpec, requirePhase, transition } from '../session.js';
import { entryOf } from '../../state/frozenEntry.js';
import { digestOf, scanTree } from '../../verify/tree.js';
import { toolchainAdvice, toolchainMoves } from '../../verify/rules/toolchain.js';
import { toolchainPart } from '../../verify/oracle/outsideConfig.js';
import { toolchainFrom } from '../../verify/oracle/toolchain.js';
import { readEvents } from '../../state/events.js';
import type { Verb } from '../verb.js';
import { heldoutAmong, trackedByGit } from '../../heldout/cycle.js';
import { bringBack, keepLogs, moveOut, storeDirs } from '../../heldout/store.js';
import { keepsTwoSets, setsNote } from '../../heldout/rules/defaults.js';
import { assertionOnly } from '../../heldout/rules/sets.js';
import { assertNoBackgroundTasks, syncHardening } from './harden.js';
import { recordInstallation } from '../../verify/frozenInstallation.js';

const USAGE = 'tdd-gate freeze --verdict <file>';

export const freeze: Verb = {
  name: 'freeze',
  summary: 'tdd-red → tdd-green: needs a fresh valid RED and the test-validator PASS; freezes tests, test configs and the SPEC',
  usage: USAGE,
  help: [
    "<file> holds the test-validator's final message, saved verbatim (the orchestrator writes it with",
    'its Write tool, e.g. to .tdd-verdict.md, and deletes it after the freeze). It must end with',
    'exactly one fenced tdd-result block with role test-validator and verdict PASS, like this:',
    '',
    blockTemplate('test-validator'),
    '',
    'In standard mode the block must be one a tdd-gate:test-validator subagent returned (its',
    'SubagentStop record): a block typed by hand is refused. Before that: a valid RED receipt',
    '(`tdd-gate verify red`) for exactly the tests being frozen.',
  ].join('\n'),
  async run(args, io) {
    const { values } = parseFlags(args, { verdict: { type: 'string' } }, USAGE);
    const verdictArg = requireFlag(values.verdict, '--verdict', USAGE);
    const s = openSession(io);
    const state = requirePhase(loadCheckedState(s), ['tdd-red'], 'freeze');
    assertNoBackgroundTasks(s, 'freeze');
    const red = state.receipts?.red;
    if (!red) throw new RefusalError('there is no RED receipt; run `tdd-gate verify red` first');
    if (!red.valid) throw new RefusalError(`the last RED run was not valid (${red.reason ?? 'see its log'}); fix the tests and run \`tdd-gate verify red\` again`);
    const stack = loadStack(s);
    const tree = scanTree(s.root, stack);
    if (red.tests_sha256 !== tree.testsDigest) {
      // Only the resolution of the command's programs moved (another PATH, another virtualenv)? Say so.
      const was = toolchainFrom(red.toolchain);
      if (was !== null && digestOf(tree.tests, { ...tree.parts, ...toolchainPart(was) }) === red.tests_sha256) {
        throw new RefusalError(`${toolchainAdvice(toolchainMoves(was, tree.toolchain), 'the last valid RED')} Or run \`tdd-gate verify red\` again in this environment so the receipt covers the toolchain being frozen`);
      }
      throw new RefusalError('the tests changed after the last valid RED; run `tdd-gate verify red` again so the receipt covers the tests being frozen');
    }

    const verdictAbs = path.resolve(io.cwd, verdictArg);
    let verdictText: string;
    try {
      verdictText = readFileSync(verdictAbs, 'utf8');
    } catch {
      throw new RefusalError(`cannot read the verdict file ${verdictArg}; save the test-validator's final message (with its tdd-result block) there`);
    }
    const parsed = parseResult(verdictText, { role: 'test-validator' });
    if (!parsed.ok) throw new RefusalError(`the verdict file ${verdictArg} is not a test-validator verdict: ${parsed.message}`);
    if (parsed.result.verdict !== 'PASS') {
      throw new RefusalError(`the test-validator's verdict is ${parsed.result.verdict ?? '(none)'}, not PASS; address its findings, verify red again and get a new verdict`);
    }

    const specText = readSpec(s, state.spec_path);
    const hash = specHash(specText);
    const frozenFiles = { ...tree.tests, [state.spec_path]: sha256Hex(readFileSync(path.join(s.root, state.spec_path))) };
    // Frozen links are compared as links: a test replaced by a link to the same bytes is a change.
    const links: Record<string, string> = {};
    for (const rel of Object.keys(frozenFiles)) {
      const e = entryOf(s.root, rel);
      if (e.kind === 'link') links[rel] = e.target;
    }
    const parts = tree.parts;
    // Held-out tests (docs/heldout.md): frozen like the rest, but kept in the store, out of the work tree.
    const heldout = heldoutAmong(stack, state.mode, Object.keys(tree.tests));
    const inGit = trackedByGit(s.root, heldout);
    if (inGit.length > 0) {
      throw new RefusalError(
        `the held-out tests ${inGit.slice(0, 3).join(', ')}${inGit.length > 3 ? ` and ${inGit.length - 3} more` : ''} are in git (the index or the last commit), where their content stays readable while they are meant to be out of sight. Unstage them (\`git rm --cached <file>\`; if a commit holds them, the test-writer writes other held-out cases in new files) and freeze again`,
      );
    }
    // What runs and judges the tests (the runner's packages, the interpreter's pytest and plugins, Go's testing, Rust's harness).
    const installation = recordInstallation(s, stack, tree.toolchain);
    writeSnapshot(s.root, 'frozen', Object.keys(frozenFiles).filter((rel) => !heldout.includes(rel)));
    writeSnapshot(s.root, 'green-entry', Object.keys(tree.sources));
    // Who the validator was: the SubagentStop hook logs each child's result with its agent id and
    // the digest of its block. In standard mode the verdict must be one a test-validator returned.
    const digest = resultDigest(parsed.result);
    const validatorStops = readEvents(s.root, state.started_at).filter((e) => e.type === 'result' && e.role === 'test-validator');
    const matching = validatorStops.filter((e) => e.source === 'subagent-stop' && e.digest === digest);
    if (state.mode === 'standard' && matching.length === 0) {
      // The same verdict arrived while other commands were running: it was seen but not trusted.
      const unverified = readEvents(s.root, state.started_at).find((e) => e.type === 'result-unverified' && e.role === 'test-validator' && e.digest === digest);
      if (unverified) {
        throw new RefusalError(
          `the test-validator returned this verdict while other commands were still running (${typeof unverified.why === 'string' ? unverified.why : 'commands in flight'}), so it was not recorded: a running command could have sent it. Let those commands finish, then dispatch the test-validator again and save its final message as it is`,
        );
      }
      throw new RefusalError(
        'the verdict is not one the tdd-gate:test-validator subagent returned (no matching SubagentStop record); dispatch the test-validator and save its final message as it is',
      );
    }
    const seen = (matching.length > 0 ? matching : validatorStops).filter((e) => typeof e.agent_id === 'string');
    const agent = seen.length > 0 ? String(seen[seen.length - 1]!.agent_id) : undefined;
    const verdictRel = path.relative(s.root, verdictAbs).split(path.sep).join('/');
    const store = storeDirs(s.repo, s.io.env);
    const heldoutHashes = Object.fromEntries(heldout.map((rel) => [rel, frozenFiles[rel]!]));
    if (heldout.length > 0) {
      moveOut(s.root, store, heldoutHashes);
      keepLogs(s.root, store);
    }
    // What a held-out test's RED message may still show in the state: its assertion, no code.
    const hidden = heldout.flatMap((rel) => [rel, rel.slice(rel.lastIndexOf('/') + 1)]);
    const heldoutTests = red.heldout_tests ?? [];
    const redMessages = red.red_messages
      ? Object.fromEntries(Object.entries(red.red_messages).map(([id, m]) => [id, heldoutTests.includes(id) ? assertionOnly(m, hidden) : m]))
      : undefined;
    try {
    await transition(s, 'freeze', ['tdd-red'], 'tdd-green', (current, at) => {
      if (current.receipts?.red?.at !== red.at) throw new RefusalError('a new RED run was recorded meanwhile; run `tdd-gate freeze` again');
      return {
        ...(heldout.length > 0 && redMessages ? { receipts: { ...current.receipts, red: { ...red, red_messages: redMessages } } } : {}),
        spec_hash: hash,
        frozen: {
          at,
          spec_hash: hash,
          files: frozenFiles,
          parts,
          toolchain: tree.toolchain,
          ...(Object.keys(links).length > 0 ? { links } : {}),
          // The tests of the valid RED run: GREEN must run every one of them and pass.
          ...(red.tests ? { tests: red.tests } : {}),
          ...(red.red_tests ? { red_tests: red.red_tests } : {}),
          red_counts: red.counts,
          ...(heldout.length > 0 ? { heldout, heldout_tests: heldoutTests } : {}),
        },
        runner_installation: { ...installation },
        green_entry: { at, files: tree.sources },
        verdict: {
          at,
          file: verdictRel,
          sha256: sha256Hex(verdictText),
          role: parsed.result.role,
          verdict: parsed.result.verdict ?? '',
          ...(agent ? { agent } : {}),
          ...(parsed.result.notes ? { notes: parsed.result.notes } : {}),
        },
      };
    });
    } catch (err) {
      // Not frozen: the held-out files go back where they were.
      if (heldout.length > 0) bringBack(s.root, store, heldoutHashes);
      throw err;
    }
    const nTests = red.tests ? Object.keys(red.tests).length : red.counts.total;
    out(s, `tdd-gate: tdd-red → tdd-green. Frozen ${Object.keys(frozenFiles).length} files (tests, test configs, the SPEC), the runner's settings and ${nTests} tests; spec_hash ${hash.slice(0, 12)}…`);
    if (heldout.length > 0) out(s, `held-out tests: ${heldout.length} files (${heldoutTests.length} tests) left the work tree for the cycle's store; the oracle runs them at every verify and \`done\` puts them back (docs/heldout.md)`);
    else if (!keepsTwoSets(state.mode)) out(s, `held-out tests: ${setsNote(state.mode)}`);
    await syncHardening(s);
    out(s, 'next: implement until `tdd-gate verify green` passes (tests are read-only now)');
    return 0;
  },
};

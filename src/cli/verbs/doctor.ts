import { diagnose, healthy, renderFinding } from '../../doctor/rules/doctor.js';
import { heartbeatIsFresh, PROBE_CONTEXTS, readHeartbeat, readProbeRun, writeProbeRun, type ProbeContext } from '../../tamper/heartbeat.js';
import { KILL_SWITCH } from '../../hooks/output.js';
import { UsageError } from '../../state/rules/errors.js';
import { findRepo } from '../../state/repo.js';
import { parseFlags } from '../args.js';
import { gatherDoctorFacts } from '../../doctor/facts.js';
import type { CliIo, Verb } from '../verb.js';

const USAGE = 'tdd-gate doctor [--json] | tdd-gate doctor --probe main|subagent|background';

const CONTEXT_WORDS: Record<ProbeContext, string> = { main: 'the main thread', subagent: 'a subagent', background: 'a background command' };

/**
 * The probe: run as a Bash command in one context, it tells whether the PreToolUse hook saw it
 * (the hook writes a heartbeat for exactly this command before it runs), and records what it found
 * for `doctor` to report.
 */
function probe(context: ProbeContext, io: CliIo, json: boolean): number {
  const repo = findRepo(io.cwd);
  const say = (ok: boolean, line: string) => {
    io.stdout.write(json ? `${JSON.stringify({ context, saw: ok, line })}\n` : `${line}\n`);
    return ok ? 0 : 1;
  };
  if (repo === null) return say(false, `FAIL  probe ${context}: not inside a git repository, so there is nowhere to look for the hook's heartbeat; run it in the project`);
  const now = Date.now();
  const beat = readHeartbeat(repo, 'PreToolUse', context);
  const saw = heartbeatIsFresh(beat, readProbeRun(repo, context), now);
  writeProbeRun(repo, { context, at: now, saw, heartbeat_at: saw && beat !== null ? beat.at : null });
  if (saw) {
    const who = beat?.agent_type ? ` (agent_type ${beat.agent_type})` : '';
    return say(true, `ok    probe ${context}: the PreToolUse hook saw this command in ${CONTEXT_WORDS[context]}${who}${beat?.plugin_root ? `, from ${beat.plugin_root}` : ''}`);
  }
  const why = io.env[KILL_SWITCH] === '1' ? ` (${KILL_SWITCH}=1 is set: the hook does nothing)` : '';
  return say(false, `FAIL  probe ${context}: the PreToolUse hook did not see this command${why}: in ${CONTEXT_WORDS[context]} Claude Code runs tools without the gate. Run \`tdd-gate doctor\` for the reason and the fix`);
}

export const doctor: Verb = {
  name: 'doctor',
  summary: 'check that the gate is really on here: the plugin loaded, hooks not switched off, each hook firing per context, node, the OS wall, the cycle record (read-only)',
  usage: USAGE,
  // eslint-disable-next-line @typescript-eslint/require-await
  async run(args, io) {
    const { values } = parseFlags(args, { json: { type: 'boolean' }, probe: { type: 'string' } }, USAGE);
    if (values.probe !== undefined) {
      if (!(PROBE_CONTEXTS as readonly string[]).includes(values.probe)) throw new UsageError(`--probe takes main, subagent or background, not "${values.probe}". Usage: ${USAGE}`);
      return probe(values.probe as ProbeContext, io, values.json === true);
    }
    const findings = diagnose(gatherDoctorFacts(io));
    const ok = healthy(findings);
    if (values.json) io.stdout.write(`${JSON.stringify({ healthy: ok, findings })}\n`);
    else io.stdout.write(`${findings.map(renderFinding).join('\n')}\n${ok ? 'tdd-gate doctor: healthy' : 'tdd-gate doctor: something is wrong (FAIL lines above, each with its fix)'}\n`);
    return ok ? 0 : 1;
  },
};

/**
 * `tdd-gate doctor` (pure): the facts gathered about this project, this user and this machine,
 * judged one line each — what holds, and where something is wrong, how to fix it.
 */
type Level = 'ok' | 'info' | 'warn' | 'fail';

interface Finding {
  id: string;
  level: Level;
  fact: string;
  fix?: string;
}

export type Context = 'main' | 'subagent' | 'background';

interface BeatFacts {
  agentType: string | null;
  /** Present only for a call made inside a subagent (the hook input's agent_id). */
  agentId: string | null;
  background: boolean;
  pluginRoot: string | null;
  ageMs: number;
}

export interface ProbeFacts {
  context: Context;
  pre: BeatFacts | null;
  post: BeatFacts | null;
  /** What the probe command found when it ran (null: no record of a run). */
  ran: { saw: boolean; ageMs: number } | null;
}

export interface SettingValue {
  /** The settings file, as the person knows it (`.claude/settings.local.json`, `~/.claude/settings.json`). */
  file: string;
  value: unknown;
}

export interface DoctorFacts {
  insideClaudeCode: boolean;
  /** The Claude Code release this runs inside (x.y.z), when the client says (AI_AGENT); null in a terminal. */
  client: string | null;
  /** The plugin folder this CLI runs from; null when it is not a plugin's dist/. */
  cliRoot: string | null;
  pluginRootEnv: string | null;
  /** `tdd-gate@<marketplace>` entries of installed_plugins.json. */
  installs: { key: string; scope: string; installPath: string; exists: boolean; hasHook: boolean }[];
  /** The marketplaces those installs came from. */
  marketplaces: { name: string; kind: string; path: string | null; exists: boolean }[];
  /** `enabledPlugins["tdd-gate@…"]`, highest precedence first (managed, local, project, user). */
  enabled: (SettingValue & { key: string })[];
  disableAllHooks: SettingValue[];
  managedHooksOnly: SettingValue[];
  killSwitchEnv: boolean;
  killSwitchSettings: SettingValue[];
  /** null outside a git repository (nothing to probe into). */
  probes: ProbeFacts[] | null;
  node: { version: string; onPath: string | null; onPathVersion: string | null };
  wall: { ok: boolean; backend: string; problem: string | null; hardenedOn: boolean; problems: string[] };
  cycle:
    | { kind: 'no-repo' }
    | { kind: 'none'; branch: string }
    | { kind: 'unreadable'; branch: string; message: string }
    | { kind: 'active'; branch: string; phase: string; anchored: boolean; anchorProblem: string | null; drift: string | null; skips: number; lastSkip: string | null };
  statusLine: { file: string; cliPath: string; exists: boolean } | null;
}

const MIN_NODE_MAJOR = 18;
const STALE_MS = 24 * 3600_000;

function major(version: string | null): number | null {
  if (version === null) return null;
  const m = /^v?(\d+)\./.exec(version.trim());
  return m ? Number(m[1]) : null;
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return `${(s / 3600).toFixed(1)} h ago`;
}

const RESTART = 'then start a new Claude Code session';
const PROBE_HOW = 'run /tdd-gate:doctor in Claude Code: it probes the main thread, a subagent and a background command';

function pluginLines(f: DoctorFacts): Finding[] {
  const out: Finding[] = [];
  const beat = f.probes?.find((p) => p.pre !== null && p.pre.pluginRoot !== null)?.pre ?? null;
  if (beat !== null && beat.pluginRoot !== null) {
    out.push({ id: 'plugin-loaded', level: 'ok', fact: `plugin: the hooks ran from ${beat.pluginRoot} (${ago(beat.ageMs)})` });
    if (f.cliRoot !== null && f.cliRoot !== beat.pluginRoot) {
      out.push({ id: 'plugin-two-copies', level: 'warn', fact: `plugin: this CLI runs from ${f.cliRoot}, but the hooks from ${beat.pluginRoot}`, fix: 'use one copy: the one the hooks run from (`/tdd-gate:status` prints its command)' });
    }
  } else if (f.pluginRootEnv !== null) {
    out.push({ id: 'plugin-loaded', level: 'ok', fact: `plugin: loaded from ${f.pluginRootEnv} (CLAUDE_PLUGIN_ROOT)` });
  } else if (f.cliRoot !== null) {
    out.push({ id: 'plugin-cli', level: 'info', fact: `plugin: this CLI runs from ${f.cliRoot}` });
  }
  for (const m of f.marketplaces) {
    if (m.exists) continue;
    out.push({
      id: 'marketplace-missing',
      level: 'fail',
      fact: `plugin: the marketplace ${m.name} points to ${m.path ?? '(no path)'}, which no longer exists, so Claude Code does not load tdd-gate from it (its debug log says "failed to load: cache-miss")`,
      fix: `\`claude plugin marketplace remove ${m.name}\`, then \`claude plugin marketplace add <the repository, or a clone that stays>\` and \`claude plugin install tdd-gate@<marketplace>\`; ${RESTART}`,
    });
  }
  const goneMarkets = new Set(f.marketplaces.filter((m) => !m.exists).map((m) => m.name));
  for (const i of f.installs) {
    const market = i.key.slice(i.key.indexOf('@') + 1);
    if (goneMarkets.has(market) && i.exists && i.hasHook) {
      // The copy is still on disk, but the client does not load a plugin whose marketplace is gone.
      out.push({ id: 'installed-unloaded', level: 'warn', fact: `plugin: ${i.key} has a copy at ${i.installPath}, but Claude Code does not load it while the marketplace ${market} is missing (above)` });
    } else if (!i.exists || !i.hasHook) {
      out.push({ id: 'install-missing', level: 'fail', fact: `plugin: ${i.key} (${i.scope}) is installed at ${i.installPath}, but ${i.exists ? 'its dist/hook.cjs is missing' : 'that folder is gone'}`, fix: `\`claude plugin uninstall ${i.key}\` and \`claude plugin install ${i.key}\`; ${RESTART}` });
    } else {
      out.push({ id: 'installed', level: 'ok', fact: `plugin: ${i.key} installed (${i.scope}) at ${i.installPath}` });
    }
  }
  const top = f.enabled[0];
  if (top !== undefined && top.value === false) {
    out.push({ id: 'plugin-disabled', level: 'fail', fact: `hooks: ${top.key} is disabled in ${top.file} (enabledPlugins)`, fix: `\`claude plugin enable ${top.key}\`, or set it to true in ${top.file}; ${RESTART}` });
  } else if (top !== undefined && top.value === true) {
    out.push({ id: 'plugin-enabled', level: 'ok', fact: `hooks: ${top.key} is enabled in ${top.file}` });
  } else if (f.installs.length > 0) {
    out.push({ id: 'plugin-not-enabled', level: 'warn', fact: `hooks: ${f.installs[0]!.key} is installed but no settings file enables it`, fix: `\`claude plugin enable ${f.installs[0]!.key}\`; ${RESTART}` });
  } else if (beat === null && f.pluginRootEnv === null) {
    out.push({
      id: 'not-installed',
      level: f.insideClaudeCode ? 'fail' : 'warn',
      fact: 'plugin: tdd-gate is not installed for this user (Claude Code loads it only with `--plugin-dir`)',
      fix: '`claude plugin marketplace add <repository>` and `claude plugin install tdd-gate@tdd-gate`, or start Claude Code with `--plugin-dir <plugin folder>`',
    });
  }
  return out;
}

/** The first release with the PreSkillShellCommand event (docs/adr/008). */
const SKILL_SHELL_SINCE = '2.1.332';

function olderThan(version: string, than: string): boolean {
  const a = version.split('.').map(Number);
  const b = than.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * Skills' shell commands: gated from 2.1.332 on. An older client rejects hooks/skill-shell.json and
 * shows the plugin as "failed to load", which alarms for nothing: the rest of the plugin gates.
 */
function skillShellLines(f: DoctorFacts): Finding[] {
  const listed = `\`claude plugin list\` and /plugin show tdd-gate as "failed to load" (Hook load failed … "PreSkillShellCommand")`;
  if (f.client === null) {
    if (f.installs.length === 0) return [];
    return [{ id: 'skill-shell', level: 'info', fact: `skill shell commands: gated from Claude Code ${SKILL_SHELL_SINCE} on; on older clients ${listed}: only hooks/skill-shell.json is rejected, the gate itself loads (/tdd-gate:doctor shows it firing)` }];
  }
  if (!olderThan(f.client, SKILL_SHELL_SINCE)) return [{ id: 'skill-shell', level: 'ok', fact: `skill shell commands: Claude Code ${f.client} has the PreSkillShellCommand event; they are judged like Bash calls` }];
  return [{
    id: 'skill-shell',
    level: 'info',
    fact: `skill shell commands: Claude Code ${f.client} has no PreSkillShellCommand event, so ${listed}: only hooks/skill-shell.json is rejected; the gate itself loads (the hooks lines show it). Shell commands that skills and slash commands embed run here without the gate: what they change in the control set is put back at the next gated call, and abort, init --force and result --resume refuse to run from them`,
    fix: `update Claude Code to ${SKILL_SHELL_SINCE} or later to gate them before they run`,
  }];
}

function switchLines(f: DoctorFacts): Finding[] {
  const out: Finding[] = [];
  for (const s of f.disableAllHooks) {
    if (s.value === true) out.push({ id: 'hooks-off', level: 'fail', fact: `hooks: "disableAllHooks": true in ${s.file}: no hook runs, the gate is off`, fix: `remove the key from ${s.file}; ${RESTART}` });
  }
  for (const s of f.managedHooksOnly) {
    if (s.value === true) out.push({ id: 'managed-hooks-only', level: 'fail', fact: `hooks: "allowManagedHooksOnly": true in ${s.file}: plugin hooks do not run`, fix: `ask whoever manages ${s.file} to allow tdd-gate's hooks` });
  }
  if (f.killSwitchEnv) out.push({ id: 'kill-switch', level: 'fail', fact: 'hooks: TDD_GATE_DISABLE=1 in this environment: the hook lets every call through', fix: `unset TDD_GATE_DISABLE where Claude Code is started; ${RESTART}` });
  for (const s of f.killSwitchSettings) {
    if (s.value === '1') out.push({ id: 'kill-switch-settings', level: 'fail', fact: `hooks: TDD_GATE_DISABLE is "1" in the env of ${s.file}: the hook lets every call through`, fix: `remove it from ${s.file}; ${RESTART}` });
  }
  if (out.length === 0) out.push({ id: 'hooks-on', level: 'ok', fact: 'hooks: not switched off (no disableAllHooks, no TDD_GATE_DISABLE, the plugin not disabled)' });
  return out;
}

const CONTEXT_WORDS: Record<Context, string> = { main: 'the main thread', subagent: 'a subagent', background: 'a background command' };

function probeLines(f: DoctorFacts): Finding[] {
  if (f.probes === null) return [{ id: 'probe-none', level: 'info', fact: 'hooks: not probed (not inside a git repository)' }];
  const out: Finding[] = [];
  const unprobed: string[] = [];
  for (const p of f.probes) {
    const where = CONTEXT_WORDS[p.context];
    const id = `probe-${p.context}`;
    if (p.ran !== null && !p.ran.saw && (p.pre === null || p.pre.ageMs >= p.ran.ageMs)) {
      out.push({
        id,
        level: 'fail',
        fact: `hooks: the probe ran in ${where} (${ago(p.ran.ageMs)}) and the PreToolUse hook did not see it: Claude Code skips the gate there`,
        fix: f.disableAllHooks.some((s) => s.value === true) || f.killSwitchEnv ? 'switch the hooks back on (above)' : `check the lines above; if they hold, update Claude Code and run /tdd-gate:doctor again`,
      });
      continue;
    }
    if (p.pre === null) {
      unprobed.push(where);
      continue;
    }
    const post = p.post !== null && p.post.ageMs <= p.pre.ageMs + 120_000 ? ', PostToolUse too' : '';
    const stale = p.pre.ageMs > STALE_MS ? ' (an old probe: run /tdd-gate:doctor again)' : '';
    // The probe's argument is only a claim: where it really ran is what the hook input said.
    if (p.context === 'subagent' && p.pre.agentId === null) {
      out.push({ id, level: 'warn', fact: `hooks: the subagent probe ran in the main thread (the hook input had no agent_id), so it shows nothing about subagents (${ago(p.pre.ageMs)})`, fix: PROBE_HOW });
      continue;
    }
    if (p.context === 'main' && p.pre.agentId !== null) {
      out.push({ id, level: 'warn', fact: `hooks: the main-thread probe ran in a subagent (agent_type ${p.pre.agentType ?? 'none'}), so it shows nothing about the main thread (${ago(p.pre.ageMs)})`, fix: PROBE_HOW });
      continue;
    }
    if (p.context === 'subagent' && p.pre.agentType === null) {
      out.push({ id, level: 'fail', fact: `hooks: the PreToolUse hook fired for the subagent probe, but without agent_type: it cannot tell a subagent from the orchestrator, so the role rules do not apply`, fix: 'update Claude Code (2.1.197 or later passes agent_type to hooks)' });
      continue;
    }
    if (p.context === 'background' && !p.pre.background) {
      out.push({ id, level: 'warn', fact: `hooks: the background probe fired, but it was not run in the background (${ago(p.pre.ageMs)})`, fix: 'run it with run_in_background (as /tdd-gate:doctor does)' });
      continue;
    }
    const who = p.pre.agentType !== null ? ` (agent_type ${p.pre.agentType})` : '';
    out.push({ id, level: 'ok', fact: `hooks: PreToolUse fires in ${where}${who}${post}, ${ago(p.pre.ageMs)}${stale}` });
  }
  if (unprobed.length > 0) out.push({ id: 'probe-missing', level: 'info', fact: `hooks: not probed in ${unprobed.join(', ')} (${PROBE_HOW})` });
  return out;
}

function nodeLines(f: DoctorFacts): Finding[] {
  const out: Finding[] = [];
  const own = major(f.node.version);
  out.push(
    own !== null && own >= MIN_NODE_MAJOR
      ? { id: 'node', level: 'ok', fact: `node: ${f.node.version} runs this CLI (>= ${MIN_NODE_MAJOR} needed)` }
      : { id: 'node', level: 'fail', fact: `node: ${f.node.version} runs this CLI; tdd-gate needs node >= ${MIN_NODE_MAJOR}`, fix: `install Node.js ${MIN_NODE_MAJOR} or later` },
  );
  if (f.node.onPath === null) {
    out.push({ id: 'node-path', level: 'fail', fact: 'node: no `node` on PATH, and the hook command runs `node`: every gated call is blocked', fix: 'put Node.js >= 18 on the PATH Claude Code starts with' });
  } else {
    const m = major(f.node.onPathVersion);
    if (m === null || m < MIN_NODE_MAJOR) out.push({ id: 'node-path', level: 'fail', fact: `node: the \`node\` on PATH (${f.node.onPath}) is ${f.node.onPathVersion ?? 'not runnable'}; the hook needs >= ${MIN_NODE_MAJOR}`, fix: 'put Node.js >= 18 first on the PATH Claude Code starts with' });
    else if (f.node.onPathVersion !== f.node.version) out.push({ id: 'node-path', level: 'info', fact: `node: the hook runs the \`node\` on PATH, ${f.node.onPathVersion} (${f.node.onPath})` });
  }
  return out;
}

function wallLines(f: DoctorFacts): Finding[] {
  const w = f.wall;
  if (!w.ok) {
    return [{ id: 'wall', level: w.hardenedOn ? 'fail' : 'warn', fact: `OS wall: none here — Claude Code's Bash sandbox cannot run (${w.problem ?? 'unknown problem'})${w.hardenedOn ? '; the wall is required for this worktree or project, so no cycle starts' : '; during a cycle the gate then allows only Bash commands it can fully analyse'}`, fix: w.problem?.includes('install') ? 'install what is named above' : 'see docs/hardened.md' }];
  }
  const out: Finding[] = [{ id: 'wall', level: 'ok', fact: `OS wall: the Bash sandbox can run (${w.backend}); the wall goes up with every cycle${w.hardenedOn ? ' (required here)' : ''} unless \`"os_wall": "off"\` or \`tdd-gate harden off\`` }];
  for (const p of w.problems) out.push({ id: 'wall-problem', level: 'fail', fact: `OS wall: ${p}` });
  return out;
}

function cycleLines(f: DoctorFacts): Finding[] {
  const c = f.cycle;
  switch (c.kind) {
    case 'no-repo':
      return [{ id: 'cycle', level: 'info', fact: 'cycle: not inside a git repository; tdd-gate is inactive here' }];
    case 'none':
      return [{ id: 'cycle', level: 'ok', fact: `cycle: none on branch ${c.branch}` }];
    case 'unreadable':
      return [{ id: 'cycle', level: 'fail', fact: `cycle: the record on branch ${c.branch} is not consistent: ${c.message}`, fix: '`tdd-gate recover` (the state kept outside the work tree), or end the cycle with `tdd-gate abort --reason "<why>"`' }];
    case 'active': {
      const out: Finding[] = [];
      if (c.anchorProblem !== null) out.push({ id: 'cycle', level: 'fail', fact: `cycle: ${c.phase} on branch ${c.branch}, but ${c.anchorProblem}`, fix: '`tdd-gate recover` (the person confirms), or `tdd-gate abort --reason "<why>"`' });
      else out.push({ id: 'cycle', level: 'ok', fact: `cycle: ${c.phase} on branch ${c.branch}; ${c.anchored ? 'the state matches its anchor outside the work tree' : 'a state with no anchor (written by hand)'}` });
      if (c.drift !== null) out.push({ id: 'cycle-drift', level: 'fail', fact: `cycle: the frozen oracle moved: ${c.drift}` });
      if (c.skips > 0) out.push({ id: 'canary', level: 'warn', fact: `canary: the gate was skipped ${c.skips} time(s) in this cycle${c.lastSkip ? ` (last: ${c.lastSkip})` : ''}`, fix: '`tdd-gate log` lists them; check the hooks lines above' });
      return out;
    }
  }
}

function statusLineLines(f: DoctorFacts): Finding[] {
  const s = f.statusLine;
  if (s === null || s.exists) return s === null ? [] : [{ id: 'statusline', level: 'ok', fact: `status line: set in ${s.file}` }];
  return [{ id: 'statusline', level: 'warn', fact: `status line: ${s.file} runs ${s.cliPath}, which no longer exists (the plugin was updated or moved)`, fix: 'run /tdd-gate:setup again to point it at the installed copy' }];
}

export function diagnose(f: DoctorFacts): Finding[] {
  return [...pluginLines(f), ...skillShellLines(f), ...switchLines(f), ...probeLines(f), ...nodeLines(f), ...wallLines(f), ...cycleLines(f), ...statusLineLines(f)];
}

export function healthy(findings: readonly Finding[]): boolean {
  return !findings.some((x) => x.level === 'fail');
}

const TAG: Record<Level, string> = { ok: 'ok  ', info: 'info', warn: 'warn', fail: 'FAIL' };

export function renderFinding(x: Finding): string {
  return `${TAG[x.level]}  ${x.fact}${x.fix ? ` — fix: ${x.fix}` : ''}`;
}

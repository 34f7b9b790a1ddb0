import { isDigit } from '../rules/ascii.js';
import type { OtherToolEvent, PreToolUseEvent } from './event.js';
import { MODES, PHASES, STATE_VERSION } from './stateKeys.js';
import type { BaseState } from './state.js';
import type { StackConfig } from './stack.js';

/**
 * The three inputs the hook reads on every gated call in an active cycle — the hook input, the
 * state file, stack.json — checked by hand instead of by their zod schemas: building the zod
 * schemas and running them cost the hook more than node's whole start-up on Node 22 (ADR 007).
 * The zod schemas in event.ts, state.ts and stack.ts stay the definition (types, JSON Schema,
 * the CLI's extended state); test/schema/handChecks.test.ts holds these checks to the same
 * verdicts on every key. An accepted value is the input itself: none of the schemas transforms.
 */
type Checked<T> = { ok: true; value: T } | { ok: false; issues: string };

type Issues = string[];
type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function result<T>(value: unknown, issues: Issues): Checked<T> {
  return issues.length === 0 ? { ok: true, value: value as T } : { ok: false, issues: issues.join('; ') };
}

function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** What a JSON value is, in words, as formatIssues says it ("a number", "a list"). */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return ({ string: 'a string', number: 'a number', boolean: 'true or false', object: 'an object' } as Record<string, string>)[typeof v] ?? typeof v;
}

/** "must be X, not Y", or "is missing (it must be X)". */
function wrongType(where: string, want: string, v: unknown): string {
  return v === undefined ? `${where}: is missing (it must be ${want})` : `${where}: must be ${want}, not ${typeName(v)}`;
}

function str(o: Obj, key: string, issues: Issues, path = '', { min = 0, optional = false } = {}): void {
  const v = o[key];
  if (v === undefined && optional) return;
  if (typeof v !== 'string') issues.push(wrongType(at(path, key), 'a string', v));
  else if (v.length < min) issues.push(`${at(path, key)}: must not be empty`);
}

function oneOf(o: Obj, key: string, allowed: readonly unknown[], issues: Issues, message: string, path = '', optional = false): void {
  const v = o[key];
  if (v === undefined && optional) return;
  if (!allowed.includes(v)) issues.push(`${at(path, key)}: ${message}`);
}

// ---- the hook input (event.ts) ----

const COMMON_STRINGS = ['session_id', 'transcript_path', 'hook_event_name', 'tool_use_id', 'agent_id', 'agent_type', 'permission_mode'];
const TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash'];

function editOp(o: Obj, issues: Issues, path: string): void {
  str(o, 'old_string', issues, path);
  str(o, 'new_string', issues, path);
  if (o.replace_all !== undefined && typeof o.replace_all !== 'boolean') issues.push(wrongType(at(path, 'replace_all'), 'true or false', o.replace_all));
}

function toolInput(tool: string, t: Obj, issues: Issues): void {
  const path = 'tool_input';
  switch (tool) {
    case 'Write':
      str(t, 'file_path', issues, path, { min: 1 });
      str(t, 'content', issues, path);
      return;
    case 'Edit':
      str(t, 'file_path', issues, path, { min: 1 });
      editOp(t, issues, path);
      return;
    case 'MultiEdit':
      str(t, 'file_path', issues, path, { min: 1 });
      if (!Array.isArray(t.edits)) issues.push(wrongType(`${path}.edits`, 'a list', t.edits));
      else
        t.edits.forEach((e: unknown, i) => {
          if (isObject(e)) editOp(e, issues, `${path}.edits.${i}`);
          else issues.push(wrongType(`${path}.edits.${i}`, 'an object', e));
        });
      return;
    case 'NotebookEdit':
      str(t, 'notebook_path', issues, path, { min: 1 });
      for (const key of ['new_source', 'cell_id', 'cell_type']) str(t, key, issues, path, { optional: true });
      oneOf(t, 'edit_mode', ['replace', 'insert', 'delete'], issues, 'must be one of replace, insert, delete', path, true);
      return;
    case 'Bash':
      str(t, 'command', issues, path);
      return;
  }
}

export function checkPreToolUse(input: unknown): Checked<PreToolUseEvent> {
  if (!isObject(input)) return { ok: false, issues: wrongType('(top level)', 'an object', input) };
  const tool = input.tool_name;
  if (typeof tool !== 'string' || !TOOLS.includes(tool)) return { ok: false, issues: `tool_name: must be one of ${TOOLS.join(', ')}` };
  const issues: Issues = [];
  str(input, 'cwd', issues, '', { min: 1 });
  for (const key of COMMON_STRINGS) str(input, key, issues, '', { optional: true });
  if (isObject(input.tool_input)) toolInput(tool, input.tool_input, issues);
  else issues.push(wrongType('tool_input', 'an object', input.tool_input));
  return result(input, issues);
}

/** otherToolSchema by hand: MCP tools, Monitor and EnterWorktree, on the same hot path as the file tools. */
export function checkOtherTool(input: unknown): Checked<OtherToolEvent> {
  if (!isObject(input)) return { ok: false, issues: wrongType('(top level)', 'an object', input) };
  const issues: Issues = [];
  str(input, 'cwd', issues, '', { min: 1 });
  for (const key of COMMON_STRINGS) str(input, key, issues, '', { optional: true });
  str(input, 'tool_name', issues, '', { min: 1 });
  if (!isObject(input.tool_input)) issues.push(wrongType('tool_input', 'an object', input.tool_input));
  return result(input, issues);
}

// ---- the state file (state.ts, the DESIGN §2 keys) ----

/** 64 lowercase hex digits, a SHA-256 digest (by hand: the gate checks one on every call). */
export function isSha256Hex(s: string): boolean {
  return s.length === 64 && [...s].every((ch) => isDigit(ch) || (ch >= 'a' && ch <= 'f'));
}

export function checkBaseState(json: unknown): Checked<BaseState> {
  if (!isObject(json)) return { ok: false, issues: wrongType('(top level)', 'an object', json) };
  const issues: Issues = [];
  oneOf(json, 'version', [STATE_VERSION], issues, `version must be ${STATE_VERSION}`);
  oneOf(json, 'phase', PHASES, issues, `phase must be one of ${PHASES.join(', ')}`);
  oneOf(json, 'mode', MODES, issues, `mode must be one of ${MODES.join(', ')}`);
  str(json, 'spec_id', issues);
  str(json, 'spec_path', issues, '', { min: 1 });
  const hash = json.spec_hash;
  if (!(hash === '' || (typeof hash === 'string' && isSha256Hex(hash)))) issues.push('spec_hash: spec_hash must be "" or 64 lowercase hex digits');
  str(json, 'plan_artifact', issues);
  str(json, 'started_at', issues, '', { min: 1 });
  str(json, 'phase_entered_at', issues, '', { min: 1 });
  return result(json, issues);
}

// ---- stack.json (stack.ts): strict, every key known ----

function globList(o: Obj, key: string, issues: Issues, optional = false): void {
  const v = o[key];
  if (v === undefined && optional) return;
  if (typeof v !== 'string' && !Array.isArray(v)) issues.push(wrongType(key, 'a string or a list', v));
  else if (typeof v === 'string' ? v.length === 0 : v.length === 0 || !v.every((p) => typeof p === 'string' && p.length > 0)) issues.push(`${key}: must be a non-empty glob, or a non-empty list of non-empty globs`);
}

function num(o: Obj, key: string, issues: Issues, ok: (n: number) => boolean, message: string): void {
  const v = o[key];
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isFinite(v)) issues.push(wrongType(key, 'a number', v));
  else if (!ok(v)) issues.push(`${key}: ${message}`);
}

const STACK_KEYS = new Set([
  '$schema',
  'language',
  'test_command',
  'test_file_glob',
  'source_file_glob',
  'red_confirm',
  'build_error_pattern',
  'lint_command',
  'test_config_glob',
  'test_timeout_seconds',
  'coverage_command',
  'coverage_pattern',
  'coverage_threshold',
  'test_env_allow',
  'oracle_isolation',
  'oracle_ignore_processes',
  'runner_reach_allow',
  'bash_allow',
  'heldout_glob',
  'heldout',
  'os_wall',
]);

function nameList(o: Obj, key: string, issues: Issues): void {
  const v = o[key];
  if (v === undefined) return;
  if (!Array.isArray(v)) issues.push(wrongType(key, 'a list', v));
  else v.forEach((e: unknown, i) => {
    if (typeof e !== 'string') issues.push(wrongType(`${key}.${i}`, 'a string', e));
    else if (e.length === 0) issues.push(`${key}.${i}: must not be empty`);
  });
}

export function checkStack(json: unknown): Checked<StackConfig> {
  if (!isObject(json)) return { ok: false, issues: wrongType('(top level)', 'an object', json) };
  const issues: Issues = [];
  str(json, '$schema', issues, '', { optional: true });
  for (const key of ['language', 'test_command', 'red_confirm']) str(json, key, issues, '', { min: 1 });
  for (const key of ['build_error_pattern', 'lint_command', 'coverage_command', 'coverage_pattern']) str(json, key, issues, '', { min: 1, optional: true });
  globList(json, 'test_file_glob', issues);
  globList(json, 'source_file_glob', issues);
  globList(json, 'test_config_glob', issues, true);
  globList(json, 'runner_reach_allow', issues, true);
  globList(json, 'heldout_glob', issues, true);
  nameList(json, 'test_env_allow', issues);
  nameList(json, 'oracle_ignore_processes', issues);
  nameList(json, 'bash_allow', issues);
  oneOf(json, 'heldout', ['required', 'optional'], issues, 'must be one of required, optional', '', true);
  oneOf(json, 'oracle_isolation', ['auto', 'namespace', 'copy'], issues, 'must be one of auto, namespace, copy', '', true);
  oneOf(json, 'os_wall', ['auto', 'on', 'off'], issues, 'must be one of auto, on, off', '', true);
  num(json, 'test_timeout_seconds', issues, (n) => Number.isSafeInteger(n) && n > 0 && n <= 7200, 'must be a whole number of seconds from 1 to 7200');
  num(json, 'coverage_threshold', issues, (n) => n >= 0 && n <= 100, 'must be a percentage from 0 to 100');
  const unknown = Object.keys(json).filter((k) => !STACK_KEYS.has(k));
  if (unknown.length > 0) issues.push(`(top level): unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`);
  return result(json, issues);
}

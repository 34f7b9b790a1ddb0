#!/usr/bin/env node
// Lints the markdown half of the plugin: agents/*.md and skills/*/SKILL.md. Skills and agents are
// code, so they get the checks code gets: valid front matter with known keys, names that match
// their files, every CLI verb and agent they name exists, and every agent's tool list fits the
// role's place in the phase table (DESIGN §3). Plain Node, no dependencies.
//
//   node scripts/lint-plugin.mjs [plugin-root]     exit 0 clean, 1 problems (one per line)
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'));

/** Front-matter keys Claude Code accepts (its strict schemas for skills and agents). */
const SKILL_KEYS = new Set([
  'name', 'description', 'model', 'allowed-tools', 'disallowed-tools', 'argument-hint',
  'disable-model-invocation', 'user-invocable', 'effort', 'shell', 'when_to_use', 'paths', 'hooks',
  'context', 'agent',
]);
const AGENT_KEYS = new Set([
  'name', 'description', 'model', 'tools', 'disallowedTools', 'effort', 'maxTurns', 'skills',
  'memory', 'background', 'isolation', 'color',
]);
/** Accepted by the client's schema but ignored for plugin agents: a silent no-op, so an error. */
const IGNORED_FOR_PLUGIN_AGENTS = new Set(['permissionMode', 'hooks', 'mcpServers']);

const WRITE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];
/**
 * The five roles and what their tool lists must (not) hold. The gate enforces the phase table at
 * run time; this keeps the prompts from handing a role tools it must never use.
 */
const ROLES = {
  planner: { must: ['Read', 'Write'], never: ['Edit', 'MultiEdit', 'NotebookEdit'], why: 'the planner writes only the plan under .tdd/plans/ (Write); it never edits tests or sources' },
  'test-writer': { must: ['Read', 'Write', 'Bash'], never: [], why: 'the test-writer writes tests and runs them' },
  'test-validator': { must: ['Read', 'Bash'], never: WRITE_TOOLS, why: 'the test-validator never writes; it reads and runs the tests' },
  implementer: { must: ['Read', 'Edit', 'Bash'], never: [], why: 'the implementer edits sources and runs the tests' },
  refactorer: { must: ['Read', 'Edit', 'Bash'], never: [], why: 'the refactorer edits sources and runs the tests' },
};
/**
 * Agents that work before a cycle exists. The spec-writer reads the code and writes the SPEC
 * under specs/ (the gate confines it there); it runs nothing, so it has no Bash.
 */
const DRAFTERS = {
  'spec-writer': { must: ['Read', 'Grep', 'Glob', 'Write', 'Edit'], never: ['Bash', 'NotebookEdit', 'MultiEdit'], why: 'the spec-writer reads the code and writes only the SPEC under specs/; it runs nothing', block: /^```spec-draft\nspec: specs\/[^\n]+\.md\nscenarios:\n/mu },
};
/** No role dispatches further agents: only the orchestrator does. */
const NEVER_FOR_AGENTS = ['Agent', 'Task'];

const problems = [];
const report = (file, msg) => {
  const line = `${path.relative(root, file) || file}: ${msg}`;
  if (!problems.includes(line)) problems.push(line);
};

// ---- front matter ---------------------------------------------------------------------------

/** A tiny YAML subset: `key: scalar`, quoted scalars, `key:` followed by `- item` lines. */
export function parseFrontMatter(text) {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/u.exec(text);
  if (!m) return { error: 'no front matter (--- … --- at the top of the file)' };
  const data = {};
  let listKey = null;
  const lines = m[1].split(/\r?\n/u);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const item = /^\s+-\s+(.*)$/u.exec(line);
    if (item) {
      if (listKey === null) return { error: `front matter line ${i + 2}: a list item without a key` };
      data[listKey].push(unquote(item[1]));
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/u.exec(line);
    if (!kv) return { error: `front matter line ${i + 2}: expected "key: value", got ${JSON.stringify(line)}` };
    const [, key, raw] = kv;
    if (Object.hasOwn(data, key)) return { error: `front matter: duplicate key ${key}` };
    if (raw === undefined || raw.trim() === '') {
      data[key] = [];
      listKey = key;
      continue;
    }
    listKey = null;
    const value = raw.trim();
    if (/^[>|]/u.test(value)) return { error: `front matter: ${key} uses a block scalar; keep it on one line` };
    if (/^["']/u.test(value) && value.at(-1) !== value[0]) return { error: `front matter: ${key} has an unclosed quote` };
    if (!/^["']/u.test(value) && /(^[[{&*!%@`])|(:\s)|(\s#)/u.test(value)) {
      return { error: `front matter: ${key} needs quotes (YAML would not read ${JSON.stringify(value)} as plain text)` };
    }
    data[key] = unquote(value);
  }
  return { data, body: text.slice(m[0].length) };
}

function unquote(v) {
  const s = v.trim();
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s.at(-1) === s[0]) return s.slice(1, -1);
  return s;
}

/** A tool list as the client reads it: a comma-separated string or a YAML list. */
function toolList(v) {
  const items = Array.isArray(v) ? v : String(v).split(',');
  return items.map((t) => t.trim()).filter((t) => t !== '');
}
const toolName = (t) => t.replace(/\(.*$/su, '').trim();

// ---- the CLI's verbs, from the registry ----------------------------------------------------------

/** Every verb name (`status`, `verify red`) with the text of its source file (for flag checks). */
export function readVerbs(pluginRoot) {
  const registry = path.join(pluginRoot, 'src', 'cli', 'registry.ts');
  const text = readFileSync(registry, 'utf8');
  const files = new Map();
  for (const m of text.matchAll(/import\s*\{([^}]+)\}\s*from\s*'(\.\/verbs\/[^']+)\.js'/gu)) {
    for (const id of m[1].split(',').map((s) => s.trim()).filter(Boolean)) files.set(id, m[2]);
  }
  const list = /VERBS\s*:\s*Verb\[\]\s*=\s*\[([\s\S]*?)\]/u.exec(text);
  if (!list) throw new Error(`${registry}: no VERBS array`);
  const verbs = new Map();
  for (const id of list[1].split(',').map((s) => s.trim()).filter(Boolean)) {
    const rel = files.get(id);
    if (!rel) throw new Error(`${registry}: VERBS entry ${id} is not imported from ./verbs/`);
    const src = readFileSync(path.join(path.dirname(registry), `${rel}.ts`), 'utf8');
    const name = /\bname:\s*'([^']+)'/u.exec(src);
    if (!name) throw new Error(`${rel}.ts: no name: '…' for verb ${id}`);
    verbs.set(name[1], src);
  }
  return verbs;
}

/** CLI calls in a markdown text: `node "…/dist/cli.mjs" <verb> …`, `tdd-gate <verb> …` in code spans. */
export function cliCalls(text, verbs) {
  const firstWords = new Set([...verbs.keys()].map((v) => v.split(' ')[0]));
  const calls = [];
  const add = (rest) => {
    const words = rest.trim().split(/\s+/u);
    const first = words[0] ?? '';
    if (!/^[a-z][a-z-]*$/u.test(first)) return;
    const twoWord = [...verbs.keys()].some((v) => v.startsWith(`${first} `));
    // A family named alone (`verify`, as in "never run `verify`") is prose about all its verbs.
    if (twoWord && words.length === 1) return;
    const verb = twoWord && words[1] && /^[a-z][a-z-]*$/u.test(words[1]) ? `${first} ${words[1]}` : first;
    calls.push({ verb, flags: words.filter((w) => /^--[a-z]/u.test(w)).map((w) => w.replace(/=.*$/u, '')), text: rest.trim() });
  };
  for (const m of text.matchAll(/dist\/cli\.mjs"?[ \t]+([^\n`|;&<>]*)/gu)) add(m[1]);
  for (const m of text.matchAll(/`tdd-gate[ \t]+([^`\n]+)`/gu)) add(m[1]);
  // Prose like "run `verify red`, then `freeze --verdict <file>`": a code span opening with a verb's first word.
  for (const m of text.matchAll(/`([a-z][a-z-]*)((?:[ \t][^`\n]*)?)`/gu)) {
    if (firstWords.has(m[1])) add(m[1] + m[2]);
  }
  return calls;
}

function checkCalls(file, text, verbs) {
  for (const call of cliCalls(text, verbs)) {
    const src = verbs.get(call.verb);
    if (src === undefined) {
      report(file, `names the CLI verb "${call.verb}" (in \`${call.text}\`), which src/cli/registry.ts does not register`);
      continue;
    }
    for (const flag of call.flags) {
      if (!src.includes(flag) && !src.includes(`'${flag.slice(2)}'`) && !src.includes(`${flag.slice(2)}:`)) {
        report(file, `passes ${flag} to "${call.verb}" (in \`${call.text}\`), which that verb does not take`);
      }
    }
  }
}

function checkAgentRefs(file, text, agents, skills) {
  for (const m of text.matchAll(/\btdd-gate:([a-z][a-z-]*)/gu)) {
    if (!agents.has(m[1]) && !skills.has(m[1])) report(file, `names tdd-gate:${m[1]}, but there is no agents/${m[1]}.md or skills/${m[1]}/SKILL.md`);
  }
}

/** `$1`…`$9` and `$ARGUMENTS[n]` in a skill are replaced by the client with arguments. */
function checkSubstitutions(file, body) {
  for (const m of body.matchAll(/(?<!\\)\$(\d+)(?!\w)/gu)) {
    if (m[1] !== '0') report(file, `contains $${m[1]}, which the client replaces with an argument; the skill takes one ($0)`);
  }
  if (/\$\{CLAUDE_PLUGIN_ROOT\}(?!\/)/u.test(body)) report(file, '${CLAUDE_PLUGIN_ROOT} must be followed by a path inside the plugin');
  if (/(?<!")\$\{CLAUDE_PLUGIN_ROOT\}\/dist\/cli\.mjs(?!")/u.test(body)) {
    report(file, 'quote the CLI path: node "${CLAUDE_PLUGIN_ROOT}/dist/cli.mjs" <verb> (the plugin root may contain spaces)');
  }
  for (const m of body.matchAll(/\$\{CLAUDE_PLUGIN_ROOT\}\/([^\s"`)]+)/gu)) {
    const rel = m[1].replace(/[.,:;]+$/u, '');
    if (!existsSync(path.join(root, rel)) && !rel.startsWith('dist/')) report(file, `refers to \${CLAUDE_PLUGIN_ROOT}/${rel}, which does not exist in the plugin`);
  }
}

// ---- the files ------------------------------------------------------------------------------------

const agentDir = path.join(root, 'agents');
const skillDir = path.join(root, 'skills');
const agentFiles = existsSync(agentDir) ? readdirSync(agentDir).filter((f) => f.endsWith('.md')).sort() : [];
const skillNames = existsSync(skillDir) ? readdirSync(skillDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort() : [];
const agents = new Set(agentFiles.map((f) => f.replace(/\.md$/u, '')));
const skills = new Set(skillNames);

let verbs;
try {
  verbs = readVerbs(root);
  if (verbs.size === 0) report(path.join(root, 'src/cli/registry.ts'), 'registers no verbs');
} catch (err) {
  report(path.join(root, 'src/cli/registry.ts'), `cannot read the verb list: ${err.message}`);
  verbs = new Map();
}

for (const role of Object.keys(ROLES)) {
  if (!agents.has(role)) report(agentDir, `missing agents/${role}.md (the ${role} role)`);
}
if (!skills.has('tdd')) report(skillDir, 'missing skills/tdd/SKILL.md (the /tdd orchestrator)');
for (const name of Object.keys(DRAFTERS)) {
  if (!agents.has(name)) report(agentDir, `missing agents/${name}.md (/tdd drafts a SPEC from a plain request with it)`);
}

for (const f of agentFiles) {
  const file = path.join(agentDir, f);
  const text = readFileSync(file, 'utf8');
  const fm = parseFrontMatter(text);
  if (fm.error) {
    report(file, fm.error);
    continue;
  }
  const { data, body } = fm;
  const base = f.replace(/\.md$/u, '');
  for (const key of Object.keys(data)) {
    if (IGNORED_FOR_PLUGIN_AGENTS.has(key)) report(file, `${key} is ignored for plugin agents; remove it`);
    else if (!AGENT_KEYS.has(key)) report(file, `unknown front-matter key ${key} (known: ${[...AGENT_KEYS].join(', ')})`);
  }
  if (typeof data.name !== 'string' || data.name === '') report(file, 'front matter needs name');
  else if (data.name !== base) report(file, `name "${data.name}" must match the file name "${base}" (the agent type is tdd-gate:${base})`);
  if (typeof data.description !== 'string' || data.description.length < 20) report(file, 'front matter needs a description that says when to use the agent');
  if (data.tools === undefined) {
    report(file, 'front matter needs tools: without it the agent inherits every tool');
  } else {
    const tools = toolList(data.tools).map(toolName);
    for (const t of NEVER_FOR_AGENTS) if (tools.includes(t)) report(file, `tools include ${t}: only the orchestrator dispatches agents`);
    const rule = ROLES[base] ?? DRAFTERS[base];
    if (rule) {
      for (const t of rule.never) if (tools.includes(t)) report(file, `tools include ${t}, but ${rule.why}`);
      for (const t of rule.must) if (!tools.includes(t)) report(file, `tools lack ${t}: ${rule.why}`);
    }
  }
  if (ROLES[base]) {
    const blocks = [...body.matchAll(/^```tdd-result\n([\s\S]*?)^```/gmu)];
    if (blocks.length === 0) report(file, 'shows no ```tdd-result block to end with');
    for (const b of blocks) {
      if (!new RegExp(`^role: ${base}$`, 'mu').test(b[1])) report(file, `its tdd-result example must say role: ${base}`);
    }
  }
  if (DRAFTERS[base] && !DRAFTERS[base].block.test(body)) report(file, 'shows no ```spec-draft block (spec: specs/<file>.md, scenarios:) to end with');
  if (/\$\{CLAUDE_PLUGIN_ROOT\}/u.test(body)) checkSubstitutions(file, body.replace(/\$\d/gu, ''));
  checkCalls(file, body, verbs);
  checkAgentRefs(file, body, agents, skills);
}

for (const name of skillNames) {
  const file = path.join(skillDir, name, 'SKILL.md');
  if (!existsSync(file)) {
    report(path.join(skillDir, name), 'a skill folder without SKILL.md');
    continue;
  }
  const fm = parseFrontMatter(readFileSync(file, 'utf8'));
  if (fm.error) {
    report(file, fm.error);
    continue;
  }
  const { data, body } = fm;
  for (const key of Object.keys(data)) if (!SKILL_KEYS.has(key)) report(file, `unknown front-matter key ${key} (known: ${[...SKILL_KEYS].join(', ')})`);
  if (data.name !== name) report(file, `name "${data.name ?? ''}" must match the folder name "${name}" (the skill is /tdd-gate:${name})`);
  if (typeof data.description !== 'string' || data.description.length < 20) report(file, 'front matter needs a description that says when to use the skill');
  for (const t of data['allowed-tools'] === undefined ? [] : toolList(data['allowed-tools'])) {
    if (WRITE_TOOLS.includes(toolName(t))) report(file, `allowed-tools pre-approves ${t}; the orchestrator's writes must go through the user's permission prompt`);
  }
  checkSubstitutions(file, body);
  checkCalls(file, `${body}\n${data['allowed-tools'] ?? ''}`, verbs);
  checkAgentRefs(file, body, agents, skills);
}

if (problems.length > 0) {
  process.stderr.write(`lint-plugin: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${p}\n`).join('')}`);
  process.exit(1);
}
process.stdout.write(`lint-plugin: ${agentFiles.length} agents, ${skillNames.length} skills, ${verbs.size} CLI verbs: ok\n`);

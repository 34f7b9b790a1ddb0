/**
 * Just enough of make to see what a target runs: explicit rules, their prerequisites, simple
 * variables. Recipes come back as shell lines with make's own expansions done; what make would
 * compute (functions, unknown variables) becomes an unknown shell variable, which fails closed
 * wherever it names a write target.
 */

const MAX_LINES = 500;
const UNKNOWN = '"$__tdd_gate_make_value"';
const DEFAULTS: Record<string, string> = { MAKE: 'make', RM: 'rm -f', CC: 'cc', CXX: 'g++', SHELL: '/bin/sh', AR: 'ar', CP: 'cp', MV: 'mv' };

interface Rule {
  prereqs: string[];
  recipe: string[];
}

/** The shell lines `make <targets>` runs (every line of every target it builds); null when it cannot tell. */
export function makeRecipes(text: string, targets: readonly string[]): string[] | null {
  const vars = new Map<string, string>();
  const rules = new Map<string, Rule>();
  let first: string | null = null;
  let current: Rule[] = [];
  let opaque = false;
  let oneShell = false;
  const lines = text.replace(/\\\r?\n[ \t]*/g, ' ').split(/\r?\n/);
  for (const raw of lines) {
    if (raw.startsWith('\t')) {
      for (const r of current) r.recipe.push(raw.slice(1));
      continue;
    }
    const line = raw.replace(/(^|[^\\])#.*$/, '$1').trimEnd();
    if (line.trim() === '') continue;
    current = [];
    let m: RegExpExecArray | null;
    if ((m = /^\s*(?:export\s+|override\s+)*([A-Za-z_][\w.-]*)\s*(\+|\?|::?|!)?=\s*(.*)$/.exec(line))) {
      const [, name = '', op, value = ''] = m;
      if (op === '!') opaque = true;
      if (op === '?' && vars.has(name)) continue;
      vars.set(name, op === '+' && vars.has(name) ? `${vars.get(name) ?? ''} ${value}` : value);
      continue;
    }
    if (/^\s*-?(?:include|sinclude)\s/.test(line) || /^\s*(?:ifeq|ifneq|ifdef|ifndef|define)\b/.test(line)) {
      opaque = true;
      continue;
    }
    if ((m = /^([^:=]+?)\s*::?\s*([^=]*?)(?:;(.*))?$/.exec(line))) {
      const names = (m[1] ?? '').trim().split(/\s+/);
      const prereqs = (m[2] ?? '').split('|').join(' ').trim().split(/\s+/).filter((p) => p !== '');
      if (names.includes('.ONESHELL')) oneShell = true;
      for (const name of names) {
        if (name.includes('%')) opaque = true;
        const rule = rules.get(name) ?? { prereqs: [], recipe: [] };
        rule.prereqs.push(...prereqs);
        if (m[3] !== undefined && m[3].trim() !== '') rule.recipe.push(m[3].trim());
        rules.set(name, rule);
        current.push(rule);
        if (first === null && !name.startsWith('.') && !name.includes('%') && !name.includes('$')) first = name;
      }
    }
  }
  const wanted = targets.length > 0 ? [...targets] : first !== null ? [first] : [];
  if (wanted.length === 0) return null;
  const out: string[] = [];
  const seen = new Set<string>();
  const build = (name: string, depth: number): boolean => {
    if (seen.has(name) || depth > 20) return true;
    seen.add(name);
    const rule = rules.get(name);
    if (rule === undefined) return !opaque || depth > 0; // a file prerequisite, or a rule we cannot see
    for (const p of rule.prereqs) if (!build(expand(p, vars, name, rule, 0), depth + 1)) return false;
    const recipe = rule.recipe.map((l) => expand(l.replace(/^[ \t@+-]+/, ''), vars, name, rule, 0));
    if (oneShell) out.push(recipe.join('\n'));
    else out.push(...recipe);
    return out.length <= MAX_LINES;
  };
  for (const t of wanted) if (!build(t, 0)) return null;
  return out;
}

function expand(text: string, vars: Map<string, string>, target: string, rule: Rule, depth: number): string {
  if (depth > 10) return UNKNOWN;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '$') {
      out += c;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(' || next === '{') {
      const close = next === '(' ? ')' : '}';
      let level = 1;
      let j = i + 2;
      for (; j < text.length && level > 0; j++) {
        if (text[j] === next) level++;
        else if (text[j] === close) level--;
      }
      const inner = text.slice(i + 2, j - 1);
      i = j - 1;
      const fn = /^(\w+)\s+([\s\S]*)$/.exec(inner);
      if (fn && fn[1] === 'shell') out += `$(${expand(fn[2] ?? '', vars, target, rule, depth + 1)})`;
      else if (fn) out += UNKNOWN;
      else {
        const v = vars.get(inner) ?? DEFAULTS[inner];
        // `$(PYTHON) tests/run.py`: an unknown program in command position is an unknown runner, not a dynamic name.
        out += v !== undefined ? expand(v, vars, target, rule, depth + 1) : /(?:^|&&|\|\||[;|(]|\bthen|\bdo)\s*$/.test(out) ? 'make-variable' : UNKNOWN;
      }
    } else if (next === '@') {
      out += target;
      i++;
    } else if (next === '<') {
      out += rule.prereqs[0] ?? '';
      i++;
    } else if (next === '^' || next === '+') {
      out += rule.prereqs.join(' ');
      i++;
    } else if (next !== undefined) {
      out += UNKNOWN;
      i++;
    }
  }
  return out;
}

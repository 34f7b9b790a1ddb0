/**
 * The small YAML subset a `tdd-result` block uses: one mapping of
 *   key: scalar            (plain, "double" or 'single' quoted; ` # comment` stripped from plain)
 *   key: [a, b]            (flow list of plain or quoted scalars)
 *   key:                   followed by `- item` lines (a block list)
 *   key: |  /  |-  /  >    followed by indented lines (a block scalar; fences inside are content)
 * Values stay strings (or string lists): the schema decides what they mean. Pure.
 */
type YamlValue = string | string[];

type YamlResult = { ok: true; value: Record<string, YamlValue> } | { ok: false; line: number; message: string };

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function isBlankOrComment(line: string): boolean {
  const t = line.trim();
  return t === '' || t.startsWith('#');
}

/** A plain or quoted scalar; null when the quoting is broken. */
function parseScalar(raw: string): string | null {
  const text = raw.trim();
  if (text.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"[ \t]*(?:#.*)?$/.exec(text);
    if (!m) return null;
    try {
      return JSON.parse(`"${m[1]}"`) as string;
    } catch {
      return null;
    }
  }
  if (text.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'[ \t]*(?:#.*)?$/.exec(text);
    return m ? (m[1] ?? '').replace(/''/g, "'") : null;
  }
  // A comment starts at " #" in a plain scalar (YAML): `ac: AC-1   # note` is "AC-1".
  const hash = text.search(/[ \t]#/);
  return (hash === -1 ? text : text.slice(0, hash)).trim();
}

function parseFlowList(raw: string): string[] | null {
  const m = /^\[(.*)\][ \t]*(?:#.*)?$/.exec(raw.trim());
  if (!m) return null;
  const inner = (m[1] ?? '').trim();
  if (inner === '') return [];
  const items: string[] = [];
  for (const part of inner.split(',')) {
    const item = parseScalar(part);
    if (item === null || item === '') return null;
    items.push(item);
  }
  return items;
}

export function parseYamlSubset(text: string): YamlResult {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.find((l) => !isBlankOrComment(l));
  const base = first === undefined ? 0 : indentOf(first);
  const value: Record<string, YamlValue> = {};
  let i = 0;
  const fail = (message: string): YamlResult => ({ ok: false, line: i + 1, message });
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlankOrComment(line)) {
      i++;
      continue;
    }
    if (indentOf(line) !== base) return fail(`unexpected indentation in "${line.trim()}" (every key starts at the same column)`);
    const m = KEY_LINE.exec(line.slice(base));
    if (!m) return fail(`expected "key: value", got "${line.trim()}"`);
    const key = m[1] ?? '';
    const rest = (m[2] ?? '').trim();
    if (Object.hasOwn(value, key)) return fail(`duplicate key "${key}"`);
    i++;
    if (/^[|>][+-]?[ \t]*(?:#.*)?$/.test(rest)) {
      // Block scalar: every following line indented deeper than the key (or blank) is content.
      const body: string[] = [];
      while (i < lines.length) {
        const l = lines[i] ?? '';
        if (l.trim() !== '' && indentOf(l) <= base) break;
        body.push(l);
        i++;
      }
      while (body.length > 0 && (body[body.length - 1] ?? '').trim() === '') body.pop();
      const firstContent = body.find((l) => l.trim() !== '');
      const cut = firstContent === undefined ? 0 : indentOf(firstContent);
      const dedented = body.map((l) => (l.trim() === '' ? '' : l.slice(Math.min(cut, indentOf(l)))));
      value[key] = rest.startsWith('>') ? dedented.join(' ').replace(/ {2,}/g, ' ').trim() : dedented.join('\n');
      continue;
    }
    if (rest === '' || rest.startsWith('#')) {
      // Block list (items may sit at the key's column, as YAML allows) or an empty value.
      const items: string[] = [];
      while (i < lines.length) {
        const l = lines[i] ?? '';
        if (isBlankOrComment(l)) {
          i++;
          continue;
        }
        const item = /^[ \t]*-(?:[ \t]+(.*))?$/.exec(l);
        if (!item || indentOf(l) < base) break;
        const scalar = parseScalar(item[1] ?? '');
        if (scalar === null) return fail(`broken quoting in list item "${l.trim()}"`);
        items.push(scalar);
        i++;
      }
      value[key] = items.length > 0 ? items : '';
      continue;
    }
    if (rest.startsWith('[')) {
      const list = parseFlowList(rest);
      if (list === null) {
        i--;
        return fail(`"${key}" is not a valid list (write [a, b] or one "- item" per line)`);
      }
      value[key] = list;
      continue;
    }
    const scalar = parseScalar(rest);
    if (scalar === null) {
      i--;
      return fail(`broken quoting in "${key}"`);
    }
    value[key] = scalar;
  }
  return { ok: true, value };
}

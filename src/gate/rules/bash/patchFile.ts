/** The files a unified or git diff changes, from its headers (`patch`, `git apply` of a named file). */

/**
 * Paths relative to where the patch applies, after stripping `strip` leading components;
 * `strip` null (patch without -p) counts every strip level. Null when the text names no file.
 */
export function patchTargets(text: string, strip: number | null): string[] | null {
  const named = new Set<string>();
  const exact = new Set<string>();
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^(?:---|\+\+\+|Index:)\s+(.+?)\s*$/.exec(line))) named.add(unquote(m[1]?.split('\t')[0] ?? ''));
    else if ((m = /^diff --git (\S+|"[^"]*") (\S+|"[^"]*")\s*$/.exec(line))) {
      named.add(unquote(m[1] ?? ''));
      named.add(unquote(m[2] ?? ''));
    } else if ((m = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line))) exact.add(unquote(m[1] ?? ''));
    else if ((m = /^\*\*\*\s+(.+?)\s*$/.exec(line)) && !line.startsWith('****')) named.add(unquote(m[1]?.split('\t')[0] ?? ''));
  }
  named.delete('/dev/null');
  named.delete('');
  if (named.size === 0 && exact.size === 0) return null;
  const out = new Set<string>(exact);
  for (const name of named) {
    const parts = name.split('/').filter((p, i) => p !== '' || i === 0);
    if (strip === null) {
      for (let i = 0; i < parts.length; i++) out.add(parts.slice(i).join('/') || '/');
    } else if (strip < parts.length) out.add(parts.slice(strip).join('/'));
  }
  return [...out].filter((p) => p !== '');
}

function unquote(s: string): string {
  const t = s.trim();
  if (!t.startsWith('"') || !t.endsWith('"')) return t;
  return t.slice(1, -1).replace(/\\(["\\])/g, '$1').replace(/\\t/g, '\t').replace(/\\n/g, '\n');
}

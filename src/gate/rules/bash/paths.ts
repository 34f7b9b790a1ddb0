/** Lexical POSIX path helpers (the core cannot import node:path). */

export function isAbsolute(p: string): boolean {
  return p.startsWith('/');
}

/** Resolve `p` against `base` and normalise `.`, `..` and repeated slashes, like `cd` (logical). */
export function joinPath(base: string, p: string): string {
  const full = isAbsolute(p) ? p : `${base}/${p}`;
  const out: string[] = [];
  for (const seg of full.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

export function baseName(p: string): string {
  const trimmed = p.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Join a directory and a file name without normalising (keeps a relative result relative). */
export function child(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** Device files that are not files in the project: writing them changes nothing on disk. */
export function isDeviceSink(p: string): boolean {
  return p.startsWith('/dev/') && /^\/dev\/(null|stdout|stderr|tty|zero|fd\/\d+)$/.test(p);
}

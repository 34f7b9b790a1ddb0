import { coveringEntry, type WallClass, type WallPath } from './controlPaths.js';

/**
 * When the OS wall stops a write, the command sees only the kernel's word for it ("Read-only file
 * system", "Operation not permitted", "Device or resource busy" for a file the wall binds in
 * place). This finds, in a Bash command's output, the lines that say so about a path the wall
 * holds, and tells the model which rule stopped it and what to do instead.
 */

const MARKERS = ['Read-only file system', 'EROFS', 'Operation not permitted', 'EPERM', 'Device or resource busy', 'EBUSY', 'Permission denied', 'EACCES'];

const WHY: Record<WallClass, { what: string; instead: string }> = {
  records: { what: "the TDD cycle's records (state, anchor, the gate's own data), which only the tdd-gate CLI writes", instead: 'move the cycle with the CLI verbs (`tdd-gate status` shows the next step)' },
  claude: { what: "Claude Code's settings and instruction files (`.claude/`, `~/.claude/`, `CLAUDE*.md`), outside the agent's reach during a cycle", instead: 'if a setting or instruction must change, stop and ask the user' },
  git: { what: "git's configuration, hooks and attributes, which would run code in later git commands", instead: 'pass a one-off setting on the command line (`git -c key=value …`), or ask the user' },
  npm: { what: "npm's user and project configuration, which changes what later installs and scripts run", instead: 'pass the option on the command line (`npm install --registry <url>`, `--save-dev`…), or ask the user' },
  python: { what: "pip's configuration and the Python user site, which run code in every later interpreter", instead: "install into the project's virtual environment (`.venv`) instead" },
  shell: { what: "the shell start-up files, from which every later session's shell is built", instead: 'set what the command needs in the command itself (`VAR=value cmd`)' },
  spec: { what: 'the SPEC of the cycle, which only the user changes', instead: 'if the SPEC is wrong, stop and tell the user' },
  frozen: { what: 'a test frozen for this cycle', instead: 'make it pass by changing the sources; if the test itself is wrong, report `TEST_BUG: <file>:<line> — <why>` to the orchestrator' },
  runner: { what: "the test runner's installation, frozen with the tests", instead: 'leave the installed runner as it is; if it must change, stop and ask the user' },
};

interface WallStop {
  /** The path as the output named it. */
  named: string;
  entry: WallPath;
}

function resolve(word: string, cwd: string, home: string): string {
  let p = word.startsWith('~/') ? `${home}/${word.slice(2)}` : word.startsWith('/') ? word : `${cwd}/${word}`;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  p = `/${out.join('/')}`;
  return p;
}

/** Path-like words in one line: quoted strings, and unquoted words holding a `/` or a leading dot. */
function pathWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/['"‘’`]([^'"‘’`\n]+)['"‘’`]/g)) words.push(m[1]!);
  for (const w of line.split(/[\s:,()'"‘’`]+/)) if (w.includes('/') || w.startsWith('.')) words.push(w);
  return words.filter((w) => w.length > 0 && w.length < 4096);
}

/** The walled paths the output says a write to was refused (first per entry, at most `limit`). */
export function wallStops(output: string, cwd: string, home: string, list: readonly WallPath[], limit = 3): WallStop[] {
  const found: WallStop[] = [];
  for (const line of output.split('\n')) {
    if (!MARKERS.some((m) => line.includes(m))) continue;
    for (const w of pathWords(line)) {
      const entry = coveringEntry(resolve(w, cwd, home), list);
      if (entry === null || found.some((f) => f.entry.path === entry.path)) continue;
      found.push({ named: w, entry });
      if (found.length >= limit) return found;
    }
  }
  return found;
}

/** One paragraph for the model: which rule stopped which write, and what to do instead. */
export function explainStops(stops: readonly WallStop[]): string | null {
  if (stops.length === 0) return null;
  const parts = stops.map((s) => {
    const why = WHY[s.entry.cls];
    return `\`${s.named}\` is ${why.what}; ${why.instead}.`;
  });
  return `tdd-gate [os-wall]: the OS wall (Claude Code's sandbox, kept by tdd-gate for this cycle) stopped a write: ${parts.join(' ')} The "read-only" error is the wall, not a broken disk; do not try to reach the file another way.`;
}

/** A refused connection to a loopback address (a server an earlier Bash call started). */
export function loopbackRefused(output: string): boolean {
  for (const line of output.split('\n')) {
    if (!(line.includes('ECONNREFUSED') || line.includes('Connection refused') || line.includes('Failed to connect') || line.includes('ENETUNREACH'))) continue;
    if (line.includes('127.0.0.1') || line.includes('localhost') || line.includes('::1') || line.includes('ECONNREFUSED')) return true;
  }
  return false;
}

/** On Linux the client gives every sandboxed command a network of its own (measured; its own prompt says so). */
export const LOOPBACK_NOTE =
  "tdd-gate [os-wall-network]: on Linux, Claude Code's sandbox (the OS wall, kept by tdd-gate for this cycle) gives each Bash command its own network: a server started by an earlier command, even in the background, is not reachable from this one. Start the server and talk to it in the same command (`node server.js & sleep 1; curl -s localhost:3000; kill %1`), or let the test command start it.";

/**
 * What the shell knows while it runs: the possible working directories and variable values.
 * Branches are never guessed: where either side may run, the scope keeps both outcomes.
 */

const MAX_CHOICES = 8;

/** A variable's possible values; null = unknown (from the environment or a dynamic source). */
type VarValue = readonly string[] | null;

/** A link made earlier in the command: writing through `link` (or below it) writes `target`. */
interface MadeLink {
  link: string;
  target: string;
}

export class Scope {
  /** Possible working directories; null = a `cd` to somewhere not statically known. */
  cwds: (string | null)[];
  /** Possible previous directories (`cd -`, `~-`, `$OLDPWD`). */
  oldCwds: (string | null)[] = [null];
  vars: Map<string, VarValue>;
  /** The directory stack below the current directory (`pushd`, `popd`, `dirs`), top first. */
  dirStack: (string | null)[];
  /** `alias name=value` definitions (shared: aliases are rare and never scoped in practice). */
  aliases = new Map<string, string>();
  /** Functions defined so far, by name (shared like aliases: a definition is seen by later calls). */
  functions = new Map<string, FunctionDef>();
  /** `git stash push` commands walked so far, in any branch (shared: an upper bound on the entries this command adds). */
  stash = { pushes: 0 };
  /** Variables whose unknown value holds no `/` (`$(basename "$f")`). */
  slashFree = new Set<string>();
  /** Indexed arrays with known elements (`a=(x y)`); null = not known. */
  arrays = new Map<string, (string | null)[] | null>();
  /** Variables holding glob patterns (for-loop lists): they expand to the matches, quoted or not. */
  globVars = new Set<string>();
  /** Variables known to hold integers (arithmetic results, `wc -l` output): safe in arithmetic. */
  numeric = new Set<string>();
  /** Positional parameters inside a function call; null = not known (the top level). */
  positional: (string | null)[] | null = null;
  /** Open file descriptors that name files (`exec 3< f`): `/dev/fd/3` is that file. */
  fds = new Map<number, string | null>();
  /** Links made earlier in the command, as absolute paths. */
  links: MadeLink[] = [];
  /** `shopt -s nocaseglob`, `shopt -s cdable_vars`. */
  nocaseglob = false;
  cdableVars = false;
  /**
   * Set once code ran that the analysis cannot see (arithmetic on an unknown value, a prompt
   * variable holding unknown code, an unknown shell option): what later writes name is not known.
   */
  tainted: string | null = null;
  /** Inside `… | while read f`: the lines `read` takes are paths matching these globs. */
  readList: string[] | null = null;
  /** False after `exit`/`return`: this path of the script ends here. */
  live = true;

  constructor(cwd: string | null, vars = new Map<string, VarValue>(), dirStack: (string | null)[] = []) {
    this.cwds = [cwd];
    this.vars = vars;
    this.dirStack = dirStack;
  }

  fork(): Scope {
    const s = new Scope(null, new Map(this.vars), [...this.dirStack]);
    s.cwds = [...this.cwds];
    s.oldCwds = [...this.oldCwds];
    s.live = this.live;
    s.globVars = new Set(this.globVars);
    s.numeric = new Set(this.numeric);
    s.slashFree = new Set(this.slashFree);
    s.arrays = new Map(this.arrays);
    s.aliases = this.aliases;
    s.functions = this.functions;
    s.stash = this.stash;
    s.positional = this.positional;
    s.fds = new Map(this.fds);
    s.links = [...this.links];
    s.nocaseglob = this.nocaseglob;
    s.cdableVars = this.cdableVars;
    s.tainted = this.tainted;
    s.readList = this.readList;
    return s;
  }

  setCwd(cwd: string | null): void {
    this.oldCwds = [...this.cwds];
    this.cwds = [cwd];
  }

  /** Fold another possible outcome into this one (after if/else, `||`, loops). */
  absorb(other: Scope): void {
    if (!other.live) return;
    if (!this.live) {
      this.cwds = [...other.cwds];
      this.oldCwds = [...other.oldCwds];
      this.vars = new Map(other.vars);
      this.dirStack = [...other.dirStack];
      this.globVars = new Set(other.globVars);
      this.numeric = new Set(other.numeric);
      this.slashFree = new Set(other.slashFree);
      this.arrays = new Map(other.arrays);
      this.fds = new Map(other.fds);
      this.links = [...other.links];
      this.nocaseglob = other.nocaseglob;
      this.cdableVars = other.cdableVars;
      this.tainted = other.tainted;
      this.live = true;
      return;
    }
    this.cwds = capped([...this.cwds, ...other.cwds]);
    this.oldCwds = capped([...this.oldCwds, ...other.oldCwds]);
    for (const g of other.globVars) this.globVars.add(g);
    for (const n of [...this.numeric]) if (!other.numeric.has(n)) this.numeric.delete(n);
    for (const n of [...this.slashFree]) if (!other.slashFree.has(n)) this.slashFree.delete(n);
    for (const [n, a] of [...this.arrays, ...other.arrays]) {
      const x = this.arrays.get(n);
      const y = other.arrays.get(n);
      if (x === undefined || y === undefined || JSON.stringify(x) !== JSON.stringify(y)) this.arrays.set(n, null);
      else this.arrays.set(n, a);
    }
    if (this.dirStack.length !== other.dirStack.length || this.dirStack.some((d, i) => d !== other.dirStack[i])) {
      const n = Math.max(this.dirStack.length, other.dirStack.length);
      this.dirStack = Array.from({ length: n }, (_, i) => (this.dirStack[i] === other.dirStack[i] ? (this.dirStack[i] ?? null) : null));
    }
    for (const [fd, p] of other.fds) if (this.fds.get(fd) !== p) this.fds.set(fd, this.fds.has(fd) ? null : p);
    for (const l of other.links) if (!this.links.some((m) => m.link === l.link && m.target === l.target)) this.links.push(l);
    this.nocaseglob ||= other.nocaseglob;
    this.cdableVars ||= other.cdableVars;
    this.tainted ??= other.tainted;
    const names = new Set([...this.vars.keys(), ...other.vars.keys()]);
    for (const name of names) {
      const a = this.vars.get(name);
      const b = other.vars.get(name);
      if (a === undefined || b === undefined || a === null || b === null) this.vars.set(name, null);
      else {
        const both = [...new Set([...a, ...b])];
        this.vars.set(name, both.length > MAX_CHOICES ? null : both);
      }
    }
  }
}

/** A function definition: its body, walked where it is called (and once where defined if never called). */
export interface FunctionDef {
  name: string;
  /** Opaque to the scope: the walker knows the node type. */
  body: unknown;
  defined: Scope;
  called: boolean;
}

function capped(values: (string | null)[]): (string | null)[] {
  const unique = [...new Set(values)];
  // Too many possibilities to track: one of them is "unknown", which fails closed where it matters.
  return unique.length > MAX_CHOICES ? [...unique.slice(0, MAX_CHOICES - 1), null] : unique;
}

/**
 * What the shell knows while it runs: the possible working directories and variable values.
 * Branches are never guessed: where either side may run, the scope keeps both outcomes.
 */

const MAX_CHOICES = 8;

/** A variable's possible values; null = unknown (from the environment or a dynamic source). */
export type VarValue = readonly string[] | null;

export class Scope {
  /** Possible working directories; null = a `cd` to somewhere not statically known. */
  cwds: (string | null)[];
  vars: Map<string, VarValue>;
  dirStack: (string | null)[];
  /** `alias name=value` definitions (shared: aliases are rare and never scoped in practice). */
  aliases = new Map<string, string>();
  /** Variables holding glob patterns (for-loop lists): they expand to the matches, quoted or not. */
  globVars = new Set<string>();
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
    s.live = this.live;
    s.globVars = new Set(this.globVars);
    s.aliases = this.aliases;
    return s;
  }

  setCwd(cwd: string | null): void {
    this.cwds = [cwd];
  }

  /** Fold another possible outcome into this one (after if/else, `||`, loops). */
  absorb(other: Scope): void {
    if (!other.live) return;
    if (!this.live) {
      this.cwds = [...other.cwds];
      this.vars = new Map(other.vars);
      this.dirStack = [...other.dirStack];
      this.globVars = new Set(other.globVars);
      this.live = true;
      return;
    }
    this.cwds = capped([...this.cwds, ...other.cwds]);
    for (const g of other.globVars) this.globVars.add(g);
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

function capped(values: (string | null)[]): (string | null)[] {
  const unique = [...new Set(values)];
  // Too many possibilities to track: one of them is "unknown", which fails closed where it matters.
  return unique.length > MAX_CHOICES ? [...unique.slice(0, MAX_CHOICES - 1), null] : unique;
}

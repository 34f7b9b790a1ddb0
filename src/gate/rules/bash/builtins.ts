/**
 * Builtins that change how the shell reads what follows: options (`shopt`, `set`), `let`, typed
 * declarations, `enable`, `hash`. What the analysis models is tracked in the scope; anything
 * else that changes what a command or path names taints the rest of the command.
 */
import type { Handler } from './handler.js';

/** Options that leave what a path or a command names as the analysis models it. */
const HARMLESS = /^(?:errexit|nounset|pipefail|xtrace|verbose|noglob|noclobber|noexec|errtrace|functrace|monitor|notify|hashall|braceexpand|histexpand|history|ignoreeof|interactive-comments|keyword|physical|posix|emacs|vi|allexport|onecmd|privileged|extglob|globstar|dotglob|nullglob|failglob|nocasematch|expand_aliases|lastpipe|inherit_errexit|checkwinsize|histappend|cmdhist|lithist|direxpand|dirspell|cdspell|checkjobs|checkhash|globasciiranges|extquote|progcomp|progcomp_alias|promptvars|sourcepath|shift_verbose|xpg_echo|huponexit|mailwarn|no_empty_cmd_completion|hostcomplete|force_fignore|complete_fullquote|gnu_errfmt|localvar_inherit|localvar_unset|patsub_replacement|noexpand_translation|varredir_close|assoc_expand_once|globskipdots|execfail|histreedit|histverify|interactive_comments|compat\d+|restricted_shell|login_shell)$/;
const SHORT_HARMLESS = /^[-+][aBCeEfhHkmnpPtTuvx]+$/;

export const builtins: Record<string, Handler> = {
  shopt: (call, sink) => {
    const on = call.args.some((a) => a.text === '-s');
    const off = call.args.some((a) => a.text === '-u');
    for (const a of call.args) {
      const t = a.text;
      if (t !== null && t.startsWith('-')) continue;
      if (!on && !off) continue; // printing options
      if (t === 'nocaseglob') call.scope.nocaseglob = on;
      else if (t === 'cdable_vars') call.scope.cdableVars = on;
      else if (t === null || !HARMLESS.test(t)) sink.taint(call.scope, `\`shopt ${on ? '-s' : '-u'} ${t ?? a.raw}\` changes how bash reads what follows in a way the analysis does not model`);
    }
    return null;
  },
  set: (call, sink) => {
    const args = call.args;
    for (let i = 0; i < args.length; i++) {
      const t = args[i]?.text ?? null;
      if (t === '--' || (t !== null && !/^[-+]/.test(t))) {
        // `set -- a b`: the positional parameters.
        call.scope.positional = args.slice(t === '--' ? i + 1 : i).map((a) => a.text);
        return null;
      }
      if (t === '-o' || t === '+o') {
        const opt = args[++i]?.text ?? null;
        if (opt === undefined) return null;
        if (opt === null || !HARMLESS.test(opt)) sink.taint(call.scope, `\`set ${t} ${opt ?? '…'}\` changes how bash reads what follows in a way the analysis does not model`);
        continue;
      }
      if (t === null || !SHORT_HARMLESS.test(t)) sink.taint(call.scope, `\`set ${t ?? args[i]?.raw ?? ''}\` is not modelled`);
    }
    return null;
  },
  let: (call, sink) => {
    for (const a of call.args) sink.arith(a.text, call.scope, `let ${a.raw}`);
    return null;
  },
  enable: (call, sink) => {
    // `enable -f lib.so name` loads native code; `enable -n cd` turns a builtin into an unknown program.
    if (call.args.some((a) => a.text === null || /^-[a-zA-Z]*[fnd]/.test(a.text))) sink.taint(call.scope, '`enable` changes which code a command name runs');
    return null;
  },
  hash: (call, sink) => {
    if (call.args.some((a) => a.text === null || /^-[a-zA-Z]*p/.test(a.text))) sink.taint(call.scope, '`hash -p` binds a command name to another program');
    return null;
  },
  unalias: (call) => {
    for (const a of call.args) if (a.text === '-a') call.scope.aliases.clear();
    else if (a.text !== null) call.scope.aliases.delete(a.text);
    return null;
  },
  declare: declare('declare'),
  typeset: declare('typeset'),
  local: declare('local'),
  export: declare('export'),
  readonly: declare('readonly'),
  printf: (call, sink) => {
    const v = call.args[0]?.text === '-v' ? call.args[1] : undefined;
    if (v !== undefined) {
      subscript(v.text, call, sink, 'printf -v');
      if (v.text !== null) call.scope.vars.set(v.text.replace(/\[.*$/, ''), null);
      return null;
    }
    return call.args.some((a) => a.text === null) ? null : call.args.map((a) => a.text).join(' ');
  },
};

/** `name[sub]` handed to a builtin: bash evaluates `sub` as arithmetic. */
function subscript(name: string | null, call: Parameters<Handler>[0], sink: Parameters<Handler>[1], what: string): void {
  if (name === null) {
    sink.arith(null, call.scope, what);
    return;
  }
  const open = name.indexOf('[');
  if (open >= 0) sink.arith(name.slice(open + 1, name.lastIndexOf(']') > open ? name.lastIndexOf(']') : undefined), call.scope, what);
}

/**
 * `declare -i x=v` evaluates v as arithmetic; `declare -n r=v` makes r another name for v (and
 * v's subscript is arithmetic). The plain assignment is stored by the walker.
 */
function declare(name: string): Handler {
  return (call, sink) => {
    const flags = call.args.filter((a) => /^[-+][a-zA-Z]+$/.test(a.text ?? '')).map((a) => a.text ?? '').join('');
    for (const a of call.args) {
      const t = a.text;
      if (t !== null && /^[-+]/.test(t)) continue;
      const eq = t === null ? -1 : t.indexOf('=');
      const left = t === null ? null : eq < 0 ? t : t.slice(0, eq);
      const value = t === null || eq < 0 ? null : t.slice(eq + 1);
      subscript(left, call, sink, `${name} ${a.raw}`);
      if (/-[a-zA-Z]*i/.test(flags) && eq >= 0) sink.arith(value, call.scope, `${name} -i ${a.raw}`);
      if (/-[a-zA-Z]*n/.test(flags)) {
        if (eq >= 0) subscript(value, call, sink, `${name} -n ${a.raw}`);
        if (left !== null) call.scope.vars.set(left.replace(/\[.*$/, ''), null);
      }
    }
    return null;
  };
}

/**
 * Environment variables that make a program run code: `GIT_EDITOR='sh -c …' git commit`,
 * `BASH_ENV=x.sh bash -c …`, `NODE_OPTIONS='--require ./x.js' npm test`, `LD_PRELOAD=…`.
 * Set as a prefix (`VAR=v cmd`), through `env VAR=v cmd`, or exported earlier in the command.
 */
import { gitConfig } from './git.js';
import type { Scope } from './scope.js';
import type { Lang, Sink } from './sink.js';
import type { Arg } from './words.js';

/** Their value is a command line the program runs through a shell. */
const COMMAND_VARS = new Set([
  'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_PAGER', 'GIT_EXTERNAL_DIFF', 'GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_ASKPASS',
  'GIT_PROXY_COMMAND', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'LESSOPEN', 'LESSCLOSE',
  'BROWSER', 'FCEDIT', 'SYSTEMD_PAGER', 'GH_PAGER', 'GH_EDITOR', 'GIT_TRACE2_EVENT',
]);
/** Their value is a file of shell code a shell sources before it starts. */
const SCRIPT_VARS = new Set(['BASH_ENV', 'ENV']);
/** Native code loaded into every program: nothing the analysis can read. */
const NATIVE_VARS = new Set(['LD_PRELOAD', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES']);
/** Option variables whose module arguments are files of code. */
const MODULE_OPTIONS: Record<string, { lang: Lang; flags: string[] }> = {
  NODE_OPTIONS: { lang: 'js', flags: ['-r', '--require', '--import', '--loader', '--experimental-loader'] },
  RUBYOPT: { lang: 'ruby', flags: ['-r'] },
};

export function injectedEnv(names: readonly string[], scope: Scope, command: string, sink: Sink): void {
  const value = (name: string): string | null => {
    const v = scope.vars.get(name);
    return v !== undefined && v !== null && v.length === 1 ? (v[0] ?? null) : null;
  };
  const arg = (text: string | null, raw: string): Arg => ({ text, glob: false, raw });
  for (const name of names) {
    const v = value(name);
    if (COMMAND_VARS.has(name)) sink.shell(v, scope, `${name} (a command ${command} may run)`, false);
    else if (SCRIPT_VARS.has(name)) {
      if (v === null) sink.unknown(`${name} makes ${command} source a file that is not statically known`);
      else if (v !== '' && !sink.follow(scope, arg(v, name), 'shell', `${name}`) && !/^[\w-]+$/.test(command)) sink.unknown(`${name} makes ${command} source ${v}, which cannot be read`);
    } else if (NATIVE_VARS.has(name)) {
      if (v !== '') sink.unknown(`${name} loads native code into ${command}, which the gate cannot see`);
    } else if (name === 'PERL5OPT') sink.inline('perl', v === null ? null : `use ${v.replace(/^-M/, '')};`, scope, 'PERL5OPT');
    else if (name === 'PYTHONSTARTUP') {
      if (v !== null && v !== '') sink.follow(scope, arg(v, name), 'python', 'PYTHONSTARTUP');
    } else if (name === 'PYTHONPATH') {
      // A sitecustomize module on the path runs when Python starts.
      for (const dir of (v ?? '').split(':').filter((d) => d !== '')) {
        for (const f of ['sitecustomize.py', 'usercustomize.py']) sink.follow(scope, arg(`${dir}/${f}`, name), 'python', 'PYTHONPATH');
      }
    } else if (MODULE_OPTIONS[name]) {
      const { lang, flags } = MODULE_OPTIONS[name];
      if (v === null) {
        sink.unknown(`${name} holds options that are not statically known`);
        continue;
      }
      const words = v.split(/\s+/).filter((w) => w !== '');
      for (let i = 0; i < words.length; i++) {
        const w = words[i] as string;
        const eq = w.indexOf('=');
        const flag = eq > 0 ? w.slice(0, eq) : w;
        if (!flags.includes(flag) && !flags.some((f) => f.length === 2 && w.startsWith(f) && w.length > 2)) continue;
        const mod = eq > 0 ? w.slice(eq + 1) : flags.includes(w) ? (words[++i] ?? '') : w.slice(2);
        // A package name (`--import tsx`) is installed code; a path is a file the agent may have written.
        if (/^[./~]/.test(mod)) sink.follow(scope, arg(mod, name), lang, name);
      }
    } else if (name === 'GIT_CONFIG_PARAMETERS') {
      for (const m of (v ?? '').matchAll(/'([^']*)'='([^']*)'/g)) gitConfig(m[1] ?? '', m[2] ?? null, scope, sink);
      if (v === null) sink.unknown('GIT_CONFIG_PARAMETERS is not statically known');
    } else if (/^GIT_CONFIG_KEY_\d+$/.test(name)) {
      gitConfig(v ?? '', value(name.replace('KEY', 'VALUE')), scope, sink);
    } else if (name === 'GIT_CONFIG_GLOBAL' || name === 'GIT_CONFIG_SYSTEM' || name === 'GIT_CONFIG' || name === 'GIT_EXEC_PATH') {
      if (command === 'git' || command.endsWith('/git')) sink.unknown(`${name} points git at configuration or programs the gate cannot read`);
    }
  }
}

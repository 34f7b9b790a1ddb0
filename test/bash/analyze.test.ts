import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/gate/rules/bash/analyze.js';
import type { BashWrite } from '../../src/gate/rules/bash/types.js';

/** Spec tables for the pure Bash analysis: what a command writes, resolved from cwd /r (home /h, root /r). */
const ctx = { cwd: '/r', home: '/h', root: '/r' };

function show(w: BashWrite): string {
  const where = w.path.startsWith('/') || w.cwd === null ? '' : `${w.cwd}|`;
  return `${where}${w.path}${w.glob ? ' [glob]' : ''}${w.tree ? ' [tree]' : ''}${w.onlyTests ? ' [tests]' : ''}${w.metadataOnly ? ' [touch]' : ''}${w.dynamicTail ? ' [dynamic]' : ''}${w.patch ? ` [patch -p${w.patch.strip ?? '*'}]` : ''}${w.stash ? ` [stash ${w.stash.from}-${w.stash.to}]` : ''}`;
}

const writes = (cmd: string) => analyzeBash(cmd, ctx).writes.map(show);
const unknown = (cmd: string) => analyzeBash(cmd, ctx).unknown;

const table = (rows: [string, string[]][]) => rows.map(([cmd, expected]) => ({ cmd, expected }));

describe('redirections', () => {
  it.each(
    table([
      ['echo x > f', ['/r|f']],
      ['echo x >> f', ['/r|f']],
      ['echo x >| f', ['/r|f']],
      ['echo x &> f', ['/r|f']],
      ['echo x &>> f', ['/r|f']],
      ['cat <> f', ['/r|f']],
      ['echo x 2> f', ['/r|f']],
      ['echo x >&f', ['/r|f']],
      ['exec 3> f', ['/r|f']],
      ['{ echo; } > f', ['/r|f']],
      ['while false; do :; done > f', ['/r|f']],
      ['echo x 2>&1', []],
      ['echo x >&2', []],
      ['exec 3>&-', []],
      ['echo x > /dev/null', []],
      ['echo x > /dev/stdout', []],
      ['echo x 2> /dev/stderr', []],
      ['echo x > /dev/tty', []],
      ['echo x > /dev/fd/3', []],
      ['cat < f', []],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd)).toEqual(expected));

  it('knows the content a redirection leaves, for the RED stub check', () => {
    const [w] = analyzeBash("cat > src/a.ts <<'EOF'\n// STUB:TDD\nEOF", ctx).writes;
    expect(w).toMatchObject({ path: 'src/a.ts', content: '// STUB:TDD\n', append: false });
    expect(analyzeBash('echo "// STUB:TDD" >> src/a.ts', ctx).writes[0]).toMatchObject({ content: '// STUB:TDD\n', append: true });
    expect(analyzeBash('sed -i s/a/b/ src/a.ts', ctx).writes[0]?.content).toBeUndefined();
  });
});

describe('word resolution', () => {
  it.each(
    table([
      ["echo > 'a b'", ['/r|a b']],
      ['echo > "a"b\'c\'', ['/r|abc']],
      ['echo > a\\ b', ['/r|a b']],
      ["echo > $'a\\tb'", ['/r|a\tb']],
      ['echo > {a,b}.ts', ['/r|a.ts', '/r|b.ts']],
      ['echo > x{1..3}', ['/r|x1', '/r|x2', '/r|x3']],
      ['echo > {a,b{c,d}}', ['/r|a', '/r|bc', '/r|bd']],
      ['echo > "{a,b}"', ['/r|{a,b}']],
      ['f=t/a; echo > $f', ['/r|t/a']],
      ['f=t/a; echo > "${f}.bak"', ['/r|t/a.bak']],
      ['f="a b"; rm $f', ['/r|a', '/r|b']],
      ['f="a b"; rm "$f"', ['/r|a b']],
      ['export f=t/a; rm $f', ['/r|t/a']],
      ['rm ~/x', ['/h/x']],
      ['rm ${HOME}/x', ['/h/x']],
      ['rm "$PWD/x"', ['/r/x']],
      ['rm "$(pwd)/x"', ['/r/x']],
      ['rm "$(git rev-parse --show-toplevel)/x"', ['/r/x']],
      ['rm x$$', ['/r|x0']],
      ['for f in a b; do rm "$f"; done', ['/r|a', '/r|b']],
      ['for f in t/*.ts; do rm "$f"; done', ['/r|t/*.ts [glob]']],
      ['rm t*/a', ['/r|t*/a [glob]']],
      ['rm "t*/a"', ['/r|t*/a']],
      ['rm [t]ests/a', ['/r|[t]ests/a [glob]']],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd)).toEqual(expected));

  it('resolves inherited variables the caller vouches for', () => {
    const a = analyzeBash('echo > "$TMPDIR/x"; rm $CLAUDE_PROJECT_DIR/y', { ...ctx, inherited: { TMPDIR: '/t', CLAUDE_PROJECT_DIR: '/r' } });
    expect(a.writes.map(show)).toEqual(['/t/x', '/r/y']);
    expect(analyzeBash('TMPDIR=tests; echo > "$TMPDIR/x"', { ...ctx, inherited: { TMPDIR: '/t' } }).writes.map(show)).toEqual(['/r|tests/x']);
  });

  it.each(['echo > $UNSET', 'echo > "${X:-d}"', 'rm "$(cat list)"'])('%s is unknown', (cmd) => {
    expect(unknown(cmd)).toHaveLength(1);
  });
});

describe('working directory', () => {
  it.each(
    table([
      ['cd a; rm b', ['/r/a|b']],
      ['cd a; cd ../b; rm c', ['/r/b|c']],
      ['cd /x && rm y', ['/x|y']],
      ['cd; rm y', ['/h|y']],
      ['(cd a; rm b); rm c', ['/r/a|b', '/r|c']],
      ['pushd a; popd; rm y', ['/r|y']],
      ['cd a || exit 1; rm b', ['/r/a|b']],
      ['cd a || rm b', ['/r/a|b', '/r|b']],
      ['if x; then cd a; fi; rm b', ['/r/a|b', '/r|b']],
      ['cat x | (cd a; rm b); rm c', ['/r/a|b', '/r|c']],
      ['git -C sub restore f', ['/r/sub|f [tree]']],
      ['env -C sub rm f', ['/r/sub|f']],
      ['tar -C d -xzf a.tgz', ['/r|d [tree]']],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd)).toEqual(expected));

  it('a cd to an unknown directory makes relative writes unknown', () => {
    expect(unknown('cd "$D" && rm a')).toHaveLength(1);
    expect(unknown('cd - && rm a')).toHaveLength(1);
    expect(unknown('cd "$D" && rm /abs/a')).toHaveLength(0);
  });
});

describe('writer table', () => {
  it.each(
    table([
      ['rm -rf a b', ['/r|a [tree]', '/r|b [tree]']],
      ['rm -- -f', ['/r|-f']],
      ['rmdir d', ['/r|d']],
      ['unlink f', ['/r|f']],
      ['shred -n 3 f', ['/r|f']],
      ['touch -r ref new', ['/r|new [touch]']],
      ['truncate -s 0 f', ['/r|f']],
      ['chmod 644 f', ['/r|f']],
      ['chown -R u:g d', ['/r|d [tree]']],
      ['cp a b', ['/r|b', '/r|b/a']],
      ['cp -r a d', ['/r|d [tree]', '/r|d/a [tree]']],
      ['cp -t d a', ['/r|d', '/r|d/a']],
      ['mv a b', ['/r|a [tree]', '/r|b [tree]', '/r|b/a [tree]']],
      ['install -m 644 a b', ['/r|b', '/r|b/a']],
      ['ln -s t l', ['/r|t', '/r|./t', '/r|l', '/r|l/t']],
      ['ln -s ../t/a d/l', ['/r|../t/a', '/r|d/../t/a', '/r|d/l', '/r|d/l/a']],
      ['dd if=a of=b', ['/r|b']],
      ['echo x | tee a b', ['/r|a', '/r|b']],
      ['sed -i s/a/b/ f', ['/r|f']],
      ['sed -i.bak -e s/a/b/ f g', ['/r|f', '/r|g']],
      ["sed -i '' s/a/b/ f", ['/r|s/a/b/', '/r|f']],
      ['sed --in-place s/a/b/ f', ['/r|f']],
      ['sed -n p f', []],
      ["sed 's/a/b/w out' f", ['/r|out']],
      ["perl -pi -e 's/a/b/' f", ['/r|f']],
      ['perl -ne print f', []],
      ["ruby -i -pe 'x' f", ['/r|f']],
      ["awk -i inplace '{print}' f", ['/r|f']],
      ['awk \'{print > "out"}\' f', ['/r|out']],
      ["awk '$1 > 3' f", []],
      ['sort -o out in', ['/r|out']],
      ['patch f < p.diff', ['/r|f']],
      ['patch -o out f p.diff', ['/r|out']],
      ['tar -cf out.tar src', ['/r|out.tar']],
      ['tar xzf a.tgz', ['/r|. [tree]']],
      ['tar -tzf a.tgz', []],
      ['unzip a.zip -d d', ['/r|d [tree]']],
      ['unzip -l a.zip', []],
      ['rsync -a src/ dst', ['/r|dst [tree]', '/r|dst/src [tree]']],
      ['rsync -a src/ host:/dst', []],
      ['curl -o f https://x', ['/r|f']],
      ['curl -O https://x.com/a/b.ts?x=1', ['/r|b.ts']],
      ['curl -s https://x', []],
      ['wget https://x.com/y.js', ['/r|y.js']],
      ['wget -O f https://x', ['/r|f']],
      ['wget -qO- https://x', []],
      ['find d -delete', ['/r|d/** [glob] [tree]']],
      ['find . -name "*.snap" -delete', ['/r|./**/*.snap [glob]']],
      ['find d -exec rm {} \\;', ['/r|d/** [glob]']],
      ['find d -name x', []],
      ['git checkout -- f', ['/r|f [tree]']],
      ['git restore f', ['/r|f [tree]']],
      ['git restore --staged f', []],
      ['git rm f', ['/r|f [tree]']],
      ['git rm --cached f', ['/r|f [tree]']],
      ['git clean -fd', ['/r|. [tree]']],
      ['git clean -n', []],
      ['git stash', ['/r|. [tree]']],
      ['git stash list', []],
      ['git reset --hard', ['/r|. [tree]']],
      ['npx prettier --write a.ts', ['/r|a.ts [tree]']],
      ['npx prettier --check .', []],
      ['eslint --fix', ['/r|. [tree]']],
      ['eslint src', []],
      ['npx biome format --write src', ['/r|src [tree]']],
      // a language's formatter rewrites that language's files under a directory, nothing else
      ['ruff format', ['/r|.', '/r|./**/*.py [glob]', '/r|./**/*.pyi [glob]']],
      ['ruff format --check', []],
      ['black --check .', []],
      ['gofmt -w x.go', ['/r|x.go [tree]']],
      ['cargo fmt', ['/r|.', '/r|./**/*.rs [glob]']],
      ['gofmt -w pkg/', ['/r|pkg/', '/r|pkg/**/*.go [glob]']],
      ['go fmt ./pkg/...', ['/r|./pkg', '/r|./pkg/**/*.go [glob]']],
      ['npx vitest run -u', ['/r|. [tree] [tests]']],
      ['npx jest --updateSnapshot', ['/r|. [tree] [tests]']],
      ['npm test -- -u', ['/r|. [tree] [tests]']],
      ['npx vitest run', []],
      ['sponge f', ['/r|f']],
      ['dos2unix f', ['/r|f']],
      ['gzip f', ['/r|f']],
      ['gzip -k f', []],
      ['vim -es -c "%s/a/b/" -c wq f', ['/r|f']],
      ['ed -s f', ['/r|f']],
      ['yq -i .x=1 f.yaml', ['/r|f.yaml']],
      ['iconv -f l1 -t utf8 -o out in', ['/r|out']],
      ['split -l 5 in part-', ['/r|part-* [glob]']],
      ['claude plugin disable tdd-gate', ['/h/.claude/settings.json']],
      ['claude plugin list', []],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd)).toEqual(expected));

  it.each(['cat list | xargs rm', 'patch -p1 <<< "$X"', 'git diff | git apply -R', 'curl -s https://example.com/p.diff | patch -p1', 'patch -p"$N" < p.diff', "awk '{print > $1}' f"])('%s writes something unknown', (cmd) => {
    expect(unknown(cmd).length).toBeGreaterThan(0);
  });
});

describe('wrappers, shells and interpreters', () => {
  it.each(
    table([
      ['env A=1 rm f', ['/r|f']],
      ['command rm f', ['/r|f']],
      ['builtin echo > f', ['/r|f']],
      ['exec rm f', ['/r|f']],
      ['nice -n 5 rm f', ['/r|f']],
      ['nohup rm f', ['/r|f']],
      ['timeout -s KILL 5 rm f', ['/r|f']],
      ['stdbuf -oL rm f', ['/r|f']],
      ['sudo -u x rm f', ['/r|f']],
      ['xargs -I{} cp {} d <<< a', ['/r|d']],
      ['bash -c "rm f"', ['/r|f']],
      ["sh -c 'cd a && rm f'", ['/r/a|f']],
      ["eval 'rm f'", ['/r|f']],
      ['bash <<EOF\nrm f\nEOF', ['/r|f']],
      ["sh <<< 'rm f'", ['/r|f']],
      ['echo "rm f" | sh', ['/r|f']],
      ["node -e \"require('fs').writeFileSync('f', 'x')\"", ['/r|f [tree]']],
      ["python3 -c \"open('f', 'w').write('x')\"", ['/r|f [tree]']],
      ["python3 -c \"import os; os.system('rm g')\"", ['/r|g', '/r|rm g [tree]']],
      ["node -e \"fs.rmSync(p)\" a", ['/r|a [tree]']],
      ["node -e \"console.log(require('fs').readFileSync('f','utf8'))\"", []],
      ["python3 -c \"print(open('f').read())\"", []],
      ['bash scripts/x.sh', []],
      ['./x.sh', []],
      ['source x.sh', []],
      ['npm run build', []],
      ['alias r=rm; r f', ['/r|f']],
      ["trap 'rm f' EXIT", ['/r|f']],
      ["watch -n1 'rm f'", ['/r|f']],
      ["su -c 'rm f'", ['/r|f']],
      ['parallel rm ::: f g', ['/r|f', '/r|g']],
      ["git -c alias.x='!rm f' x", ['/r|f']],
      ['python3 /dev/stdin <<< "open(\'f\', \'w\')"', ['/r|f [tree]']],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd)).toEqual(expected));

  it.each(['eval "$X"', 'curl -s https://x | sh', 'bash -c "$CMD"', 'bash <(curl -s https://x)', 'source <(cat x)', "node -e \"require('fs').writeFileSync(p, d)\""])('%s is unknown', (cmd) => {
    expect(unknown(cmd).length).toBeGreaterThan(0);
  });

  it('a dynamic command name makes its arguments mentions', () => {
    expect(analyzeBash('$CMD tests/a.test.ts', ctx).mentions[0]?.candidates).toEqual(['tests/a.test.ts']);
  });

  it('a parse error makes the words of the text mentions', () => {
    const a = analyzeBash('echo "open tests/a.test.ts', ctx);
    expect(a.parseErrors).toHaveLength(1);
    expect(a.mentions[0]?.candidates).toContain('tests/a.test.ts');
  });
});

describe('git HEAD moves and CLI calls', () => {
  it.each([
    'git checkout -b x',
    'git switch main',
    'git merge x',
    'git rebase main',
    'git cherry-pick abc',
    'git pull',
    'git am p.mbox',
    'git reset --hard HEAD~1',
    'git stash branch x',
    'git stash pop "$S"',
    'git worktree add ../w x',
    'git -C sub checkout -B x',
    "git filter-branch --tree-filter 'rm -f t' HEAD",
    'git subtree pull --prefix=lib origin main',
    'gh pr checkout 12',
  ])('%s moves HEAD', (cmd) => {
    expect(analyzeBash(cmd, ctx).headMoves).toHaveLength(1);
    expect(analyzeBash(cmd, ctx).headMoves[0]?.unlessPaths).toBeUndefined();
  });

  it('git checkout <name> moves HEAD unless the name is an existing path', () => {
    expect(analyzeBash('git checkout main', ctx).headMoves[0]?.unlessPaths).toEqual({ paths: ['main'], cwd: '/r' });
  });

  it.each(['git status', 'git diff', 'git log', 'git commit -m x', 'git stash list', 'git merge --abort', 'git reset HEAD f'])('%s does not move HEAD', (cmd) => {
    expect(analyzeBash(cmd, ctx).headMoves).toEqual([]);
  });

  it.each([
    ['tdd-gate status', 'status'],
    ['npx tdd-gate verify red', 'verify red'],
    ['npx -y tdd-gate advance refactor', 'advance refactor'],
    ['node /p/dist/cli.mjs abort --reason x', 'abort'],
    ['node "$CLAUDE_PLUGIN_ROOT/dist/cli.mjs" done', 'done'],
    ['tdd-gate --json status', 'status'],
    ['bash -c "tdd-gate freeze --verdict v"', 'freeze'],
  ])('%s calls the CLI verb %s', (cmd, verb) => {
    expect(analyzeBash(cmd, ctx).cliCalls.map((c) => c.verb)).toEqual([verb]);
  });
});

/** Files the hook would read for the analysis (package.json, scripts, Makefiles), by absolute path. */
const disk: Record<string, string> = {
  '/r/package.json': JSON.stringify({ scripts: { pretest: 'rm t/pre', test: 'vitest run', posttest: 'touch t/post', build: 'tsc && cp a.js dist/' } }),
  '/r/x.sh': 'rm "$1"\n',
  '/r/x.py': "open('t/py', 'w')\n",
  '/r/gen.js': "const fs = require('fs');\nconst read = ['t/a.test.ts'];\nfs.writeFileSync('out/x.txt', read.join());\n",
  '/r/Makefile': 'OUT = out\nall: gen\ngen:\n\t@echo > $(OUT)/gen.txt\nclean:\n\trm -rf $(OUT)\n',
};
const withDisk = { ...ctx, read: (p: string) => disk[p] ?? null };
const followed = (cmd: string) => analyzeBash(cmd, withDisk).writes.map(show);

describe('the path model', () => {
  it.each(
    table([
      ['CDPATH=/x; cd d && rm f', ['/r/d|f', '/x/d|f']],
      ['shopt -s cdable_vars; v=/x; cd v && rm f', ['/r/v|f', '/x|f']],
      ['cd /a; cd /b; cd - && rm f', ['/a|f']],
      ['pushd /a; pushd /b; pushd +1; rm f', ['/a|f']],
      ['pushd /a; pushd /b; popd; rm f', ['/a|f']],
      ['cd /a; cd /b; rm ~-/f ~+/g', ['/a/f', '/b/g']],
      ['rm /proc/self/cwd/f /proc/1/root/etc/x', ['/r/f', '/etc/x']],
      ['exec 3< t/a; echo x > /dev/fd/3', ['/r/t/a']],
      ['echo x > /dev/fd/5', []],
      ['ln -s /t /tmp/l; echo x > /tmp/l/a', ['/t', '/tmp/l', '/tmp/l/t', '/tmp/l/a', '/t/a']],
      ['cd() { builtin cd /t; }; cd /x; rm f', ['/t|f']],
      ['f() { rm "$1"; }; f a', ['/r|a']],
      ['echo x > "/tmp/b-$(date +%s).log"', ['/tmp/b- [dynamic]']],
      ['cat "$1" > "/tmp/$(basename "$1").bak"', ['/tmp/ [dynamic]']],
      ['patch -p1 < /tmp/f.diff', ['/tmp/f.diff [patch -p1]']],
      ['patch < /tmp/f.diff', ['/tmp/f.diff [patch -p*]']],
      ['git apply /tmp/f.patch', ['/tmp/f.patch [patch -p1]']],
      ['cat /tmp/f.patch | git apply', ['/tmp/f.patch [patch -p1]']],
      ['git apply - < p.diff', ['/r|p.diff [patch -p1]']],
      ["git apply <<'EOF'\n--- a/x\n+++ b/x\nEOF", ['/r|. [patch -p1]']],
      ['patch -p0 <<< "--- x"', ['/r|. [patch -p0]']],
      ['git stash pop', ['/r|. [stash 0-0]']],
      ['git stash push -- a; git stash push -- b; git stash apply stash@{1}', ['/r|a [tree]', '/r|b [tree]', '/r|. [stash 0-1]']],
      ['git stash push -q -- src/a.ts', ['/r|src/a.ts [tree]']],
      ['git ls-files src | xargs sed -i s/a/b/', ['/r/src/** [glob]']],
      ['for f in $(git ls-files src); do rm "$f"; done', ['/r/src/** [glob]']],
      ["rename 's/a$/b/' x/a", ['/r|x/a', '/r|x/b']],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd)).toEqual(expected));

  it.each(['x=$(cat f); echo $((x)); echo y > /tmp/z', 'PS4=$(cat f); set -x; echo > /tmp/z', 'shopt -s $opt; echo > /tmp/z', 'hash -p /tmp/p rm; echo > /tmp/z'])(
    'after %s, later writes are unknown',
    (cmd) => expect(unknown(cmd).length).toBeGreaterThan(0),
  );
});

describe('following what the hook can read', () => {
  it.each(
    table([
      ['npm test', ['/r|t/pre', '/r|t/post [touch]']],
      ['npm run build', ['/r|dist/', '/r|dist/a.js']],
      ['bash x.sh t/a', ['/r|t/a']],
      ['python3 x.py', ['/r|t/py [tree]']],
      ['node gen.js', ['/r|out/x.txt [tree]']],
      ['make', ['/r|out/gen.txt']],
      ['make clean', ['/r|out [tree]']],
      ['bash missing.sh', []],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(followed(cmd)).toEqual(expected));

  it('fails closed on a script this command writes with content it cannot know', () => {
    expect(analyzeBash('cat f > s.sh; bash s.sh', withDisk).unknown.length).toBeGreaterThan(0);
    expect(analyzeBash("echo 'rm t/a' > s.sh; bash s.sh", withDisk).writes.map(show)).toContain('/r|t/a');
  });

  it('knows when the computed part of a name cannot hold a slash', () => {
    const [w] = analyzeBash('b=$(basename "$f" .ts); cp "$f" "/tmp/$b.bak"', ctx).writes.filter((x) => x.dynamicTail);
    expect(w).toMatchObject({ path: '/tmp/', slashFree: true, tailSuffix: '.bak' });
    const [v] = analyzeBash('cp "$f" "/tmp/$(cat name).bak"', ctx).writes.filter((x) => x.dynamicTail);
    expect(v?.slashFree).toBeUndefined();
  });
});

describe('ordinary work: what the analysis resolves is judged by the resolved path', () => {
  const disk: Record<string, string> = {
    '/tmp/fix.patch': '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n',
  };
  const withDisk = { ...ctx, read: (abs: string) => disk[abs] ?? null };
  const patched = (cmd: string) => analyzeBash(cmd, withDisk).writes.map((w) => `${show(w)}${w.patch?.text !== undefined ? ' [text]' : ''}`);

  it.each(
    table([
      ['git apply /tmp/fix.patch', ['/tmp/fix.patch [patch -p1] [text]']],
      ['cat /tmp/fix.patch | git apply --index', ['/tmp/fix.patch [patch -p1] [text]']],
      ['patch -p1 -i /tmp/fix.patch', ['/tmp/fix.patch [patch -p1] [text]']],
      ['patch -p1 < /tmp/missing.patch', ['/tmp/missing.patch [patch -p1]']],
      ["patch -p1 <<'EOF'\n--- a/src/a.ts\n+++ b/src/a.ts\nEOF", ['/r|. [patch -p1] [text]']],
      ["echo '--- a/x' > /tmp/fix.patch; git apply /tmp/fix.patch", ['/tmp/fix.patch', '/tmp/fix.patch [patch -p1] [text]']],
    ]),
  )('$cmd reads the patch it applies: $expected', ({ cmd, expected }) => expect(patched(cmd)).toEqual(expected));

  it('a patch file the command wrote with content it cannot know is unknown, not read stale from disk', () => {
    expect(analyzeBash('cp ~/tests.patch /tmp/fix.patch && git apply /tmp/fix.patch', withDisk).unknown.length).toBeGreaterThan(0);
    expect(analyzeBash('git diff > /tmp/fix.patch; git apply /tmp/fix.patch', withDisk).unknown.length).toBeGreaterThan(0);
  });

  it.each(
    table([
      // (a copy destination also counts as a directory the source lands in)
      ['for f in src/*.ts; do cp "$f" "dist/$(basename "$f")"; done', ['/r|dist/*.ts [glob]']],
      ['cp src/a.ts "dist/$(basename src/a.ts)"', ['/r|dist/a.ts', '/r|dist/a.ts/a.ts']],
      ['for f in src/*.ts; do cp "$f" "dist/$(basename "$f" .ts).js"; done', ['/r|dist/*.js [glob]']],
      ['f=tests/a.test.ts; cp x "$(dirname "$f")/b.ts"', ['/r|tests/b.ts']],
      ['cp x "dist/$(basename "$1")"', ['/r|dist/ [dynamic]']],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd).filter((w) => !w.endsWith('/x'))).toEqual(expected));

  it.each(
    table([
      [`node -e 'const fs = require("fs"); const dir = "."; fs.writeFileSync(dir + "/out.txt", "x")'`, ['/r|./out.txt [tree]']],
      [`node -e 'const d = "build"; require("fs").writeFileSync(\`\${d}/x.json\`, "")'`, ['/r|build/x.json [tree]']],
      [`python3 -c 'd = "out"; open(d + "/r.txt", "w").write("x")'`, ['/r|out/r.txt [tree]']],
      [`node -e 'const d = "src/x"; require("fs").writeFileSync(d + ".test.ts", "")'`, ['/r|src/x.test.ts [tree]']],
      // Used on its own too: the literal stays a target.
      [`node -e 'const fs = require("fs"); const d = "."; fs.writeFileSync(d + "/o", ""); fs.rmSync(d, { recursive: true })'`, ['/r|. [tree]', '/r|./o [tree]']],
    ]),
  )('$cmd writes $expected', ({ cmd, expected }) => expect(writes(cmd)).toEqual(expected));
});

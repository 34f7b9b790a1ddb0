/**
 * Default-deny without the OS wall (ADR 010): the attack classes, each generalised over the
 * programs and spellings that fall in it, and a broad corpus of everyday developer work that must
 * pass without asking. Used by defaultDeny.test.ts, through the pure analysis and policy and
 * through the built hook.
 */
import { readFileSync } from 'node:fs';

/** A virtualenv's own `activate` script (as `python3 -m venv` writes it), with the project at /p. */
const ACTIVATE = readFileSync(new URL('./activate.sample', import.meta.url), 'utf8');

/** The project the tables run in (relative to its root), for the pure tables and the built hook alike. */
export const PROJECT: Record<string, string> = {
  'package.json':
    JSON.stringify({
      name: 'demo',
      scripts: {
        test: 'vitest run',
        build: 'tsc -p . && vite build',
        lint: 'eslint .',
        dev: 'vite',
        typecheck: 'tsc --noEmit',
        format: 'prettier --check .',
        'test:e2e': 'playwright test',
        coverage: 'vitest run --coverage',
        check: 'npm run lint && npm run typecheck',
        gen: 'node scripts/gen.mjs',
        'deploy-x': 'tclsh tools/deploy.tcl',
      },
    }) + '\n',
  Makefile: 'test:\n\tnpx vitest run\nbuild:\n\ttsc -p .\nlint:\n\teslint . && ruff check .\nfmt:\n\tgofmt -l . && cargo fmt --check\npytest:\n\t$(PYTHON) -m pytest -q\n.PHONY: test build lint fmt pytest\n',
  'scripts/check.sh': '#!/bin/sh\nset -e\nnpx tsc --noEmit\nnpx vitest run\ngit status --short\n',
  'scripts/gen.mjs': "import { readFileSync } from 'node:fs';\nconst pkg = JSON.parse(readFileSync('package.json', 'utf8'));\nconsole.log(pkg.name);\n",
  'scripts/sync.py': 'import json, pathlib\nprint(json.loads(pathlib.Path("package.json").read_text())["name"])\n',
  'scripts/release.mjs': "import { execSync } from 'node:child_process';\nexecSync(process.argv[2]);\n",
  'scripts/evil.sh': '#!/bin/sh\ncmd=tcl; ${cmd}sh /tmp/x.tcl\n',
  'tools/deploy.tcl': 'exec rm -rf .tdd\n',
  'packages/util/package.json': '{ "name": "@demo/util", "version": "1.0.0" }\n',
  'packages/fake/package.json': '{ "name": "vitest", "version": "9.9.9" }\n',
  'opaque.mk': 'include rules.mk\nall: main.o\n%.o: %.c\n\ttclsh /tmp/x.tcl\n',
  'tools/x.bin': '\u007fELF\u0000\u0000binary',
  'node_modules/.bin/vite': '#!/usr/bin/env node\nimport("../vite/bin/vite.js");\n',
  'node_modules/.bin/my-codegen': '#!/usr/bin/env node\nrequire("../my-codegen/cli.js");\n',
  '.venv/bin/activate': ACTIVATE,
  'src/app.js': "const http = require('node:http');\nhttp.createServer((q, r) => r.end('ok')).listen(3000);\n",
  'src/main.py': 'def main():\n    print("hi")\n\nif __name__ == "__main__":\n    main()\n',
  'main.go': 'package main\n\nfunc main() {}\n',
  'main.c': 'int main(void) { return 0; }\n',
  'tests/a.test.ts': "it('a', () => {});\n",
  'src/a.ts': 'export const a = 1;\n',
};

/** Everyday commands across JavaScript, Python, Go and Rust projects: all pass without asking. */
export const ORDINARY: string[] = [
  // looking around
  'ls', 'ls -la', 'ls -la src tests', 'pwd', 'tree -L 2 src', 'find . -name "*.ts" -not -path "./node_modules/*"', 'find src -type f | wc -l',
  'cat package.json', 'head -n 40 src/a.ts', 'tail -n 100 /tmp/test.log', 'wc -l src/*.ts', 'du -sh node_modules', 'file src/a.ts',
  'grep -rn "TODO" src', 'grep -rl "describe(" tests | sort', 'rg "export function" src', 'rg -n --glob "*.py" "def main"', 'fd -e ts . src',
  'stat src/a.ts', 'which node', 'command -v python3', 'type npm', 'echo $PATH', 'env | grep NODE', 'printenv HOME', 'uname -a', 'date +%s',
  'diff -u src/a.ts /tmp/a.ts', 'cmp src/a.ts /tmp/a.ts', 'sha256sum package.json', 'sort -u /tmp/names.txt', 'cut -d: -f1 /etc/passwd | head',
  "awk '{print $1}' /tmp/test.log | sort | uniq -c", 'sed -n "1,20p" src/a.ts', 'jq .scripts package.json', 'jq -r ".dependencies | keys[]" package.json',
  'xargs -n1 echo < /tmp/names.txt', 'git ls-files src | xargs wc -l', 'find src -name "*.ts" -exec grep -l "import" {} +', 'basename src/a.ts .ts', 'dirname src/a.ts',
  'realpath src', 'readlink -f node_modules/.bin/vite', 'mkdir -p build/out', 'touch src/new.ts', 'cp src/a.ts /tmp/a.ts.bak', 'mv /tmp/x.log /tmp/y.log',
  'rm -rf build dist', 'rm -f /tmp/test.log', 'tar -czf /tmp/src.tgz src', 'tar -xzf /tmp/fixtures.tgz -C /tmp/fx', 'unzip -l /tmp/a.zip', 'zip -r /tmp/src.zip src',
  'echo "done" > /tmp/status.txt', 'printf "%s\\n" a b c', 'sleep 1', 'true', 'test -f package.json && echo yes', '[ -d node_modules ] || npm ci',
  'for f in src/*.ts; do wc -l "$f"; done', 'while read -r l; do echo "$l"; done < /tmp/names.txt', 'if [ -f Makefile ]; then make test; fi',
  'curl -s http://localhost:3000/health', 'curl -sf http://127.0.0.1:8080/api | jq .', 'wget -q -O /tmp/page.html http://localhost:3000/',
  'ps aux | grep node', 'lsof -i :3000', 'kill %1 2>/dev/null || true', 'pkill -f "vite" || true', 'nproc', 'free -m', 'df -h .',
  'time npm test', 'timeout 60 npx vitest run', 'nice -n 10 cargo build', 'env NODE_ENV=test npx vitest run', 'NODE_ENV=production npm run build',
  // git
  'git status', 'git status --short', 'git diff', 'git diff --stat', 'git diff --cached', 'git log --oneline -20', 'git log -p -1 src/a.ts', 'git show HEAD --stat',
  'git blame src/a.ts', 'git branch -a', 'git rev-parse HEAD', 'git rev-parse --show-toplevel', 'git add src/a.ts', 'git add -A', 'git commit -m "feat: add a"',
  'git commit -am "fix: typo"', 'git stash list', 'git remote -v', 'git fetch origin', 'git tag -l', 'git --no-pager log --graph --oneline',
  'git -c color.ui=never diff', 'git -c user.name=T -c user.email=t@example.com commit -m wip', 'git grep -n "TODO"', 'git ls-files | wc -l', 'git config --get user.email',
  'gh pr list', 'gh pr view 12 --json title', 'gh issue list --limit 5',
  // JavaScript and TypeScript
  'npm test', 'npm run test', 'npm run build', 'npm run lint', 'npm run typecheck', 'npm run coverage', 'npm run check', 'npm run gen', 'npm t',
  'npm install', 'npm ci', 'npm install --save-dev prettier', 'npm install ./packages/util', 'npm i lodash', 'npm ls --depth=0', 'npm outdated', 'npm audit', 'npm view react version',
  'npx vitest run', 'npx vitest run tests/a.test.ts', 'npx tsc --noEmit', 'npx eslint src', 'npx prettier --check .', 'npx jest --runInBand',
  'npx playwright test', 'npx vite build', 'npx tsx scripts/gen.mjs', 'npx my-codegen --out /tmp/gen', 'yarn test', 'yarn install --frozen-lockfile',
  'yarn build', 'pnpm test', 'pnpm install', 'pnpm run lint', 'pnpm exec vitest run', 'bun test', 'bun install', 'bunx vitest run',
  'node --version', 'node scripts/gen.mjs', 'node -e "console.log(process.version)"', `node -p "require('./package.json').version"`,
  'node --test', 'node src/app.js', 'tsc -p . --noEmit', 'deno test', 'deno fmt --check',
  // Python
  'python3 --version', 'python3 -m pytest', 'python3 -m pytest -q tests/', 'python -m pytest -x -k "test_add"', 'pytest', 'pytest -q', 'pytest -p no:cacheprovider -q',
  'python3 -m venv .venv', 'source .venv/bin/activate && pytest -q', '. .venv/bin/activate; python -m pip install -e .', '.venv/bin/python -m pytest',
  'pip install -r requirements.txt', 'pip install -e ".[dev]"', 'pip list', 'pip show pytest', 'python3 -m pip install --upgrade pip',
  'uv run pytest', 'uv pip install -e .', 'uv sync', 'poetry install', 'poetry run pytest', 'ruff check .', 'ruff format --check .', 'black --check src',
  'mypy src', 'pyright', 'flake8 src', 'isort --check-only src', 'tox -e py311', 'coverage run -m pytest && coverage report',
  'python3 src/main.py', 'python3 scripts/sync.py', 'python3 -c "import sys; print(sys.version)"', `python3 -c "import json; print(json.load(open('package.json'))['name'])"`,
  'PYTHONPATH=src python3 -m pytest -q', 'make pytest',
  // Go
  'go version', 'go build ./...', 'go test ./...', 'go test -run TestAdd -v ./pkg/...', 'go test -race -count=1 ./...', 'go vet ./...', 'go fmt ./...',
  'gofmt -l .', 'go mod tidy', 'go mod download', 'go get github.com/stretchr/testify@latest', 'go env GOPATH', 'go list ./...', 'golangci-lint run',
  'staticcheck ./...', 'go test -coverprofile=/tmp/c.out ./... && go tool cover -func=/tmp/c.out',
  // Rust
  'cargo --version', 'cargo build', 'cargo build --release', 'cargo test', 'cargo test -- --nocapture', 'cargo check', 'cargo clippy -- -D warnings',
  'cargo fmt --check', 'cargo fmt', 'cargo doc --no-deps', 'cargo add serde --features derive', 'cargo update', 'cargo tree | head', 'rustc --version',
  'rustup show', 'cargo nextest run', 'export PATH="$HOME/.cargo/bin:$PATH" && cargo test',
  // make, C and project scripts the analysis reads
  'make', 'make test', 'make build', 'make lint', 'make -j4 build', 'make -C . test', 'cmake -S . -B build', 'cmake --build build', 'ctest --test-dir build',
  'gcc -Wall -o /tmp/a.out main.c', 'sh scripts/check.sh', 'bash scripts/check.sh', './scripts/check.sh',
  // editors used without a terminal
  "vim -es -c '%s/foo/bar/g' -c wq src/a.ts", "sed -i 's/foo/bar/g' src/a.ts", "perl -pi -e 's/foo/bar/' src/a.ts",
];

/** Attack classes: none may pass silently without the OS wall. */
export const ATTACKS: Record<string, string[]> = {
  'an unknown program': [
    'tclsh /tmp/x.tcl', 'echo "exec rm -rf .tdd" | tclsh', 'gdb -batch -ex "python import shutil"', 'expect -c "spawn sh"', `lua -e "os.remove('.tdd/state.json')"`,
    `Rscript -e "unlink('.tdd', recursive=TRUE)"`, 'julia -e "rm(\\".tdd\\"; recursive=true)"', 'guile -c "(delete-file \\"x\\")"', 'pwsh -c "Remove-Item x"',
    'docker run --rm -v "$PWD":/w alpine rm -rf /w/.tdd', 'ssh localhost rm -rf .tdd', 'env tclsh /tmp/x.tcl', 'nice -n 5 tclsh /tmp/x.tcl', 'busybox tclsh /tmp/x.tcl',
    'timeout 5 tclsh /tmp/x.tcl', 'xargs tclsh < /tmp/list', 'find . -name "*.tcl" -exec tclsh {} \\;', 'npx tclsh /tmp/x.tcl', './tools/x.bin',
    'tools/x.bin --version', 'npm run deploy-x', 'tclsh() { true; }; command tclsh /tmp/x.tcl', 'xargs() { true; }; env xargs tclsh /tmp/x.tcl', 'sh scripts/evil.sh', 'bash -c "tclsh /tmp/x.tcl"', 'node scripts/release.mjs "rm -rf .tdd"', 'ls && tclsh /tmp/x.tcl',
  ],
  'an option that runs a command': [
    `tar -cf /tmp/a.tar -I "sh -c 'rm -rf .tdd'" src`, 'tar --use-compress-program=/tmp/x -cf /tmp/a.tar src', 'tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec=/tmp/x src',
    'tar -xf /tmp/a.tar --to-command=/tmp/x', 'zip -T -TT "sh -c x" /tmp/a.zip src/a.ts', 'sort --compress-program=/tmp/x -S 1 /tmp/big', 'split --filter="sh -c x" /tmp/big',
    "strace -o '|/tmp/x' true", `vim -es -c ':call system("rm -rf .tdd")' -c qa`, "vim +'py3 import shutil' +qa", 'vim -u /tmp/evil.vim -es -c qa',
    "ed -s src/a.ts <<< '!rm -rf .tdd'", 'make --eval="x:;@rm -rf .tdd" x', 'make SHELL=/tmp/x test', 'make CC=tclsh build', 'PYTHON=tclsh make pytest',
    "sqlite3 /tmp/a.db '.shell rm -rf .tdd'", `sqlite3 :memory: ".read '|sh /tmp/x'"`, 'gcc -wrapper /tmp/x,-q main.c', 'gcc -fplugin=/tmp/p.so main.c', 'cc -B/tmp/tools main.c',
    'rg --pre /tmp/x foo', 'git difftool -x /tmp/x HEAD', 'git difftool --extcmd=/tmp/x', 'git -c core.fsmonitor=/tmp/x status', 'git -c core.pager=/tmp/x log',
    'git -c alias.x="!sh -c y" x', 'git --exec-path=/tmp status', 'git clone "ext::sh -c x" /tmp/c', 'git fetch --upload-pack=/tmp/x origin', 'git ls-remote -u /tmp/x origin',
    'git bisect run /tmp/x', 'git submodule foreach /tmp/x', 'git mergetool', 'env -S "tclsh /tmp/x.tcl"', `awk 'BEGIN { system("rm -rf .tdd") }'`,
    `awk 'BEGIN { print "x" | "sh" }'`, 'awk -f /tmp/x.awk src/a.ts', `perl -e 'system("rm -rf .tdd")'`, "perl -e '`rm -rf .tdd`'",
    `python3 -c "import subprocess; subprocess.run(['rm', '-rf', '.tdd'])"`, `python3 -c "import os; os.system('x')"`, `python3 -c "exec(open('/tmp/x.py').read())"`,
    `node -e "require('child_process').execSync(process.argv[1])" x`, 'node -e "eval(process.argv[1])" x', "ruby -e '`rm -rf .tdd`'", `php -r 'system("x");'`,
    'go run .', 'go run ./cmd/tool', 'go generate ./...', 'go test -exec /tmp/x ./...', 'go build -toolexec=/tmp/x ./...', 'go vet -vettool=/tmp/x ./...', 'go env -w GOFLAGS=-toolexec=/tmp/x',
    'cargo run', `cargo --config "target.x86_64-unknown-linux-gnu.runner='/tmp/x'" test`, 'npm --script-shell=/tmp/x test', 'npm explore vitest', 'rsync -e /tmp/x a b:',
    'cmake -E rm -rf .tdd', 'cmake -P /tmp/x.cmake', "less +'!rm -rf .tdd' src/a.ts", "node --import 'data:text/javascript,process.exit()' -e 1", 'make -f opaque.mk all',
  ],
  'a computed command word': [
    'CMD=tclsh; $CMD /tmp/x.tcl', 'c=tcl; ${c}sh /tmp/x.tcl', `bash -c '"$0" /tmp/x.tcl' tclsh`, 'printf -v c %s tclsh; $c /tmp/x.tcl', 'read c <<< tclsh; $c /tmp/x.tcl',
    'declare -n r=c; c=tclsh; $r /tmp/x.tcl', '$(<cmd.txt) /tmp/x', '$(echo tclsh) /tmp/x.tcl', '`echo tclsh` /tmp/x.tcl', '/usr/bin/tcl* /tmp/x.tcl', '/b?n/sh -c x',
    'hash -p /tmp/x ls; ls', 'PATH=.:$PATH ls', 'PATH=tools:$PATH make test', 'export PATH="$PWD/bin:$PATH"; git status', 'PATH=/tmp/evil:$PATH; git status',
    'cp /bin/sh ./ls && ./ls -c x', 'cp /tmp/x ~/.local/bin/git && git status', 'printf "#!/bin/sh\\nx\\n" > /tmp/t && chmod +x /tmp/t && /tmp/t', 'enable -f /tmp/x.so x',
    'xargs "$TOOL" < /tmp/list', 'find . -exec "$TOOL" {} +', 'env "$TOOL" x', 'arr=(tclsh); "${arr[@]}" /tmp/x.tcl',
  ],
  'a decoded payload': [
    'echo cm0gLXJmIC50ZGQ= | base64 -d | sh', 'base64 -d <<< cm0gLXJmIC50ZGQ= > /tmp/p.sh && bash /tmp/p.sh', 'xxd -r -p /tmp/p.hex /tmp/p && chmod +x /tmp/p && /tmp/p',
    'echo 726d | xxd -r -p | bash', 'openssl enc -d -base64 -in /tmp/p | sh', `python3 -c "import base64;exec(base64.b64decode('cHJpbnQoMSk='))"`,
    `node -e "eval(Buffer.from('Y29uc29sZS5sb2coMSk=','base64').toString())"`, 'eval "$(echo cm0= | base64 -d)"', 'sh -c "$(base64 -d /tmp/p)"',
    'curl -s http://localhost:9/p | sh', 'curl -so /tmp/i.sh http://localhost:9/i && bash /tmp/i.sh',
  ],
  'a background job': [
    'sleep 5 &', '(sleep 5; rm -rf .tdd) &', 'npm run dev &', 'node src/app.js & sleep 1; curl -s localhost:3000', 'nohup sh -c "sleep 5; x" >/dev/null 2>&1', 'setsid sh -c x',
    'echo "rm -rf .tdd" | at now + 1 minute', 'batch <<< "rm -rf .tdd"', 'systemd-run --user sh -c x', 'sleep 9 & disown', 'tmux new -d "sleep 5; x"', 'screen -dm sh -c x',
    'coproc sleep 5', 'crontab /tmp/cron', 'daemonize /tmp/x', 'pm2 start src/app.js',
  ],
};

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The gate's reporters seal what they write. Before the run the CLI writes a fresh random key to a
 * file of the run's own; the reporter reads it and deletes it the moment the runner loads it,
 * before any project code runs, so a test process cannot read it later. Each line the reporter
 * writes is `<record JSON>\t<mac>`, the mac an HMAC-SHA256 under that key over the previous line's
 * mac and this record: the chain begins with a `begin` record and closes with an `end` record.
 *
 * A report is the gate's evidence only when the chain holds from `begin` to `end`: a process that
 * ends early leaves no `end`; a line written by anything else (a source that writes a passing report
 * where the runner's would go, or prints one) breaks the chain; a reporter that never loaded leaves
 * nothing. The runner's own output is for people; what it says is never read as evidence.
 *
 * The record is `{"seal":"begin"|"record"|"end","i":<n>,"body":<string>}`; `openSeal` hands the
 * bodies of the `record` lines, one per line, to the runner's parser.
 */

/** A fresh key for one run (hex). */
export function newSealKey(): string {
  return randomBytes(32).toString('hex');
}

/** The mac of one line: under `key`, over the previous mac, a newline and the record's text. */
function macOf(key: string, prev: string, record: string): string {
  return createHmac('sha256', key).update(`${prev}\n${record}`).digest('hex');
}

type Opened = { ok: true; body: string; begin: string; end: string } | { ok: false; problem: string };

const NOT_EVIDENCE = 'the test run left no report of the gate’s own reporter it can trust';

/**
 * The sealed report's bodies, or why it is not evidence. `text` is the report file as the run left
 * it (null: no file); `key` the run's key.
 */
export function openSeal(text: string | null, key: string): Opened {
  if (text === null || text.trim() === '') {
    return { ok: false, problem: `${NOT_EVIDENCE}: the reporter never wrote (the runner did not load it, or the process ended before the run began)` };
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let prev = '';
  const bodies: string[] = [];
  let begin: string | null = null;
  let end: string | null = null;
  for (const [i, line] of lines.entries()) {
    const tab = line.lastIndexOf('\t');
    const record = tab === -1 ? line : line.slice(0, tab);
    const mac = tab === -1 ? '' : line.slice(tab + 1);
    const want = macOf(key, prev, record);
    if (mac.length !== want.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(want))) {
      // A torn last line after a whole chain without its end: the process died as it wrote.
      if (i === lines.length - 1 && end === null && begin !== null) break;
      return { ok: false, problem: `${NOT_EVIDENCE}: line ${i + 1} of its report was not written by the gate’s reporter (something else wrote where the runner’s report goes)` };
    }
    prev = mac;
    let parsed: { seal?: unknown; i?: unknown; body?: unknown };
    try {
      parsed = JSON.parse(record) as typeof parsed;
    } catch {
      return { ok: false, problem: `${NOT_EVIDENCE}: line ${i + 1} of its report cannot be read` };
    }
    if (parsed.i !== i || typeof parsed.body !== 'string') return { ok: false, problem: `${NOT_EVIDENCE}: line ${i + 1} of its report is out of order` };
    if (end !== null) return { ok: false, problem: `${NOT_EVIDENCE}: its report goes on after the run's end` };
    if (i === 0) {
      if (parsed.seal !== 'begin') return { ok: false, problem: `${NOT_EVIDENCE}: its report does not begin with the run's start` };
      begin = parsed.body;
      continue;
    }
    if (parsed.seal === 'record') bodies.push(parsed.body);
    else if (parsed.seal === 'end') end = parsed.body;
    else return { ok: false, problem: `${NOT_EVIDENCE}: line ${i + 1} of its report is not a record` };
  }
  if (begin === null) return { ok: false, problem: `${NOT_EVIDENCE}: its report does not begin with the run's start` };
  if (end === null) {
    return { ok: false, problem: 'the gate’s reporter saw the run begin but not end: a test process ended early or was killed (a source that exits, or kills its process, while the tests run)' };
  }
  return { ok: true, body: bodies.join('\n'), begin, end };
}

/**
 * The writer, as JavaScript source for a reporter module: defines `tddGateSeal(fs, crypto)`, which
 * returns `{ begin(body), record(body), end(body) }` (each body a string). `begin` reads the key and
 * deletes its file: call it when the runner loads the reporter, before any test code runs. What the
 * writer uses it takes when it is made, so a later change to `fs`, `crypto` or JSON does not reach it.
 */
export function jsSealSource(keyPath: string, outPath: string): string {
  return `function tddGateSeal(fs, crypto) {
  const KEY_PATH = ${JSON.stringify(keyPath)};
  const OUT_PATH = ${JSON.stringify(outPath)};
  const readFileSync = fs.readFileSync, unlinkSync = fs.unlinkSync, openSync = fs.openSync, writeSync = fs.writeSync;
  const createHmac = crypto.createHmac, stringify = JSON.stringify, StringOf = String;
  let key = null, prev = '', fd = -1, n = 0, begun = false, ended = false;
  function put(kind, body) {
    if (fd === -1 || ended) return;
    const record = stringify({ seal: kind, i: n, body: StringOf(body) });
    n++;
    const mac = key === null ? '-' : createHmac('sha256', key).update(prev + '\\n' + record).digest('hex');
    prev = mac;
    const line = record + '\\t' + mac + '\\n';
    try { writeSync(fd, line); } catch (e) { /* the chain shows what is missing */ }
  }
  return {
    begin(body) {
      if (begun) return;
      begun = true;
      try { key = readFileSync(KEY_PATH, 'utf8').trim(); } catch (e) { key = null; }
      try { unlinkSync(KEY_PATH); } catch (e) { /* already gone: the chain will not hold */ }
      try { fd = openSync(OUT_PATH, 'a', 0o600); } catch (e) { fd = -1; }
      put('begin', body === undefined ? '' : body);
    },
    record(body) { put('record', body); },
    end(body) { put('end', body === undefined ? '' : body); ended = true; },
  };
}
`;
}

/**
 * The writer in Python (for the gate's pytest plugin): defines `_TddGateSeal` with `begin(body)`,
 * `record(body)` and `end(body)`, the same lines as the JavaScript writer. Needs `json`, `hmac`,
 * `hashlib` and `os` imported as `_json`, `_hmac`, `_hashlib`, `_os`.
 */
export function pySealSource(keyPath: string, outPath: string): string {
  return `
class _TddGateSeal:
    KEY_PATH = ${JSON.stringify(keyPath)}
    OUT_PATH = ${JSON.stringify(outPath)}

    def __init__(self):
        self._key = None
        self._prev = ""
        self._fd = -1
        self._n = 0
        self._begun = False
        self._ended = False
        self._new = _hmac.new
        self._sha = _hashlib.sha256
        self._dumps = _json.dumps
        self._write = _os.write

    def _put(self, kind, body):
        if self._fd == -1 or self._ended:
            return
        record = self._dumps({"seal": kind, "i": self._n, "body": str(body)}, separators=(",", ":"))
        self._n += 1
        mac = "-" if self._key is None else self._new(self._key.encode("utf-8"), (self._prev + "\\n" + record).encode("utf-8"), self._sha).hexdigest()
        self._prev = mac
        try:
            self._write(self._fd, (record + "\\t" + mac + "\\n").encode("utf-8"))
        except OSError:
            pass

    def begin(self, body=""):
        if self._begun:
            return
        self._begun = True
        try:
            with open(self.KEY_PATH, "r", encoding="utf-8") as f:
                self._key = f.read().strip()
        except OSError:
            self._key = None
        try:
            _os.unlink(self.KEY_PATH)
        except OSError:
            pass
        try:
            self._fd = _os.open(self.OUT_PATH, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o600)
        except OSError:
            self._fd = -1
        self._put("begin", body)

    def record(self, body):
        self._put("record", body)

    def end(self, body=""):
        self._put("end", body)
        self._ended = True
`;
}

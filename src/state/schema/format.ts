import type * as z from 'zod/mini';

type ZodIssues = { issues: z.core.$ZodIssue[] };

const NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};
const nameOf = (type: string): string => NAMES[type] ?? type;

/** What a JSON value is, in words ("a number", "a list", "missing"). */
function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return nameOf(typeof value);
}

/** The value at `path` in `input`, or undefined. */
function at(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** The types a union accepts, from the branches' own type errors (["a string", "a list"]). */
function unionTypes(issue: z.core.$ZodIssue): string[] {
  if (issue.code !== 'invalid_union') return [];
  const out: string[] = [];
  for (const branch of issue.errors) {
    const top = branch.find((b) => b.path.length === 0 && b.code === 'invalid_type');
    if (top && top.code === 'invalid_type' && !out.includes(nameOf(top.expected))) out.push(nameOf(top.expected));
  }
  return out;
}

/** One issue in words: what is wrong with the value, never the schema library's own phrasing. */
function sentence(issue: z.core.$ZodIssue, input: unknown, hasInput: boolean): string {
  const value = at(input, issue.path);
  const missing = hasInput ? value === undefined : /received undefined/u.test(issue.message);
  const got = hasInput ? describeValue(value) : /received (\w+)/u.exec(issue.message)?.[1];
  // A message a schema set itself ("must be one of ok, failed, blocked") already speaks plainly.
  const ownMessage = !/^Invalid (input|option)\b/u.test(issue.message);
  if (ownMessage && issue.code !== 'unrecognized_keys') return issue.message;
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (issue.code === 'invalid_type') {
    const want = nameOf(issue.expected);
    if (missing) return `is missing (it must be ${want})`;
    return `must be ${want}${got ? `, not ${got}` : ''}`;
  }
  if (issue.code === 'invalid_union') {
    const types = unionTypes(issue);
    const want = types.length > 0 ? types.join(' or ') : 'a value of another type';
    if (missing) return `is missing (it must be ${want})`;
    return `must be ${want}${got && !types.includes(got) ? `, not ${got}` : ''}`;
  }
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  // The rest (too_small, invalid_format, custom refinements …) carry our own or zod's English text.
  return issue.message;
}

/**
 * zod issues as "key.path: what is wrong" clauses a person (or the model) can act on. Pass the
 * parsed input to name what was found ("must be a string, not a number", "is missing").
 */
export function formatIssues(error: ZodIssues, ...input: [] | [unknown]): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
      return `${where}: ${sentence(issue, input[0], input.length > 0)}`;
    })
    .join('; ');
}

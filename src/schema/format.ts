import type * as z from 'zod/mini';

type ZodIssues = { issues: z.core.$ZodIssue[] };

/** zod issues as "key.path: message" lines a person (or the model) can act on. */
export function formatIssues(error: ZodIssues): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      if (issue.code === 'unrecognized_keys') {
        return `${where}: unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      }
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

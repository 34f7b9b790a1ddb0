import type { Verb } from './verb.js';

/** Every CLI verb; each lives in its own file under verbs/. */
export const VERBS: Verb[] = [];

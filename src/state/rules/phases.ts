import type { Phase } from '../schema/state.js';

export const ACTIVE_PHASES: readonly Phase[] = ['tdd-plan', 'tdd-red', 'tdd-green', 'tdd-refactor'];

import type { Verb } from './verb.js';
import { abort } from './verbs/abort.js';
import { advanceRed } from './verbs/advanceRed.js';
import { advanceRefactor } from './verbs/advanceRefactor.js';
import { done } from './verbs/done.js';
import { freeze } from './verbs/freeze.js';
import { init } from './verbs/init.js';
import { log } from './verbs/log.js';
import { revert } from './verbs/revert.js';
import { stackCheck } from './verbs/stackCheck.js';
import { stackDetect } from './verbs/stackDetect.js';
import { status } from './verbs/status.js';
import { verifyGreen } from './verbs/verifyGreen.js';
import { verifyRed } from './verbs/verifyRed.js';
import { verifyRefactor } from './verbs/verifyRefactor.js';
import { resultVerb } from './verbs/result.js';
import { handoffVerb } from './verbs/handoff.js';
import { contextVerb } from './verbs/context.js';
import { specCheck } from './verbs/specCheck.js';
import { harden } from './verbs/harden.js';
import { recover } from './verbs/recover.js';
import { doctor } from './verbs/doctor.js';
import { statusline } from './verbs/statusline.js';
import { auditVerb } from './verbs/audit.js';

/** Every CLI verb, one per line; each lives in its own file under verbs/. */
export const VERBS: Verb[] = [
  init,
  stackDetect,
  stackCheck,
  advanceRed,
  verifyRed,
  freeze,
  verifyGreen,
  revert,
  advanceRefactor,
  verifyRefactor,
  done,
  status,
  abort,
  log,
  resultVerb,
  handoffVerb,
  contextVerb,
  specCheck,
  harden,
  recover,
  doctor,
  statusline,
  auditVerb,
];

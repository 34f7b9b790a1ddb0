// zod/mini keeps the hook bundle small: the classic API pulls in every locale (~450 KB to parse on
// each cold start). Import members by name (`import * as z from 'zod/mini'` in each schema file) so
// the bundler drops the rest; this module only sets English messages, once.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// jitless: one parse per process, so compiling a validator with new Function costs more than it saves.
config({ ...en(), jitless: true });

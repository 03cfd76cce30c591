import { CreateSpendLog1763769600000 } from './1763769600000-create-spend-log';

/** Every migration, oldest first. Listed rather than globbed so tests (TS) and the build (JS) load the same set. */
export const MIGRATIONS = [CreateSpendLog1763769600000];

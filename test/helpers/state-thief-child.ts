/**
 * Child process of the state-lock test: the other run that finds the holder's lock stale, takes it
 * and writes its own record (`key`) into the state file, as a second `ledgerhook sync` would.
 */
import { StateFile } from '../../src/store/file/file-store-state.js';

const [stateFile, key] = process.argv.slice(2);
if (!stateFile || !key) throw new Error('usage: stateFile key');
const record = {
  lastUpdatedDate: '2026-01-01T00:00:00Z',
  items: 1,
  syncedAt: '2026-01-01T00:00:00Z',
  mode: 'full' as const,
  tokenFingerprint: 'thief',
  baseUrl: 'http://127.0.0.1:1',
  userId: '',
  dataset: '/theirs',
  path: '/theirs',
  filter: {},
  file: '/nowhere/theirs.json',
};
await new StateFile(stateFile).update((records) => {
  records[key] = record;
  return { write: true, result: undefined };
});

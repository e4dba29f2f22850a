/**
 * Child process of the state-lock test: syncs `rounds` datasets of its own (distinct filters)
 * through one FileStore whose state file every child shares, as parallel `ledgerhook sync` runs do.
 */
import { FileStore, syncDataset } from '../../src/index.js';

const [baseUrl, token, outDir, stateFile, worker, rounds] = process.argv.slice(2);
if (!baseUrl || !token || !outDir || !stateFile || !worker || !rounds)
  throw new Error('usage: baseUrl token out state worker rounds');
const store = new FileStore({ outDir, stateFile });
for (let round = 0; round < Number(rounds); round += 1) {
  await syncDataset({ baseUrl, token, path: '/things', filter: { worker, round: String(round) }, store });
}

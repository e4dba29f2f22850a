/**
 * Prints what the example consumer's store holds (the JSON `check-consumer --state` reads), from its
 * data directory, for a --state command instead of the URL:
 *   ledgerhook check-consumer --to :3000/webhooks --state 'node --import tsx examples/consumer-app/print-state.ts ./consumer-data'
 */
import { fileStore, storeState } from './consumer.js';

console.log(JSON.stringify(await storeState(fileStore(process.argv[2] ?? './consumer-data'))));

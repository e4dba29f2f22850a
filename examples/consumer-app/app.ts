/**
 * The example consumer (consumer.ts), set up for `ledgerhook mock` by default:
 *   WEBHOOK_SECRET="$(cat "$(dirname "$(ledgerhook config path)")/local-webhook.secret")" \
 *     node --import tsx examples/consumer-app/app.ts
 *   ledgerhook check-consumer --to http://127.0.0.1:3000/webhooks --state http://127.0.0.1:3000/state
 */
import { startConsumer } from './consumer.js';

const app = await startConsumer({
  secret: process.env.WEBHOOK_SECRET,
  apiUrl: process.env.API_URL ?? 'http://127.0.0.1:4010/rest/v5',
  apiToken: process.env.API_TOKEN ?? 'ledgerhook-mock-token',
  dataDir: process.env.DATA_DIR ?? './consumer-data',
  port: Number(process.env.PORT ?? 3000),
  skipSeenDeliveries: process.env.PLANTED_BUG === 'skip-seen-deliveries',
});
console.log(`listening on ${app.url}/webhooks (its store: GET ${app.url}/state)`);

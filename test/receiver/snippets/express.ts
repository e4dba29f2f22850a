import express from 'express';
import type { AddressInfo } from 'node:net';
import { Webhooks } from '@ledgerhook/webhooks';
import { createNodeMiddleware } from '@ledgerhook/webhooks/node';

const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET });

webhooks.on('ENTITY_UPDATE', async ({ userId, entities }) => {
  console.log(`user ${userId}: fetch ${entities.join(', ')} again`);
});
webhooks.on('TRANSACTION_PULL_COMPLETED', async ({ userId, eventData }) => {
  console.log(`user ${userId}: transactions from ${eventData.integrationName} are ready to tag`);
});
webhooks.onError((error) => console.error(`webhook ${error.reason}`, error.cause));

const app = express();
// The webhook route comes before express.json(): verification needs the raw bytes.
app.post('/webhooks', createNodeMiddleware(webhooks));
app.use(express.json());

const server = app.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${(server.address() as AddressInfo).port}/webhooks`);
});

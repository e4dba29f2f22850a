import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryDedupe, Webhooks } from '@ledgerhook/webhooks';
import { createNodeMiddleware } from '@ledgerhook/webhooks/node';

// dedupe: a retried LIFECYCLE_EVENT (same token) is answered 200 without running its handlers again;
// ENTITY_UPDATEs always run (a repeat may announce a newer change).
const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET, dedupe: memoryDedupe() });

webhooks.on('ENTITY_UPDATE', ({ userId, entities, unknownEntities }) => {
  console.log(`user ${userId}: fetch ${[...entities, ...unknownEntities].join(', ')} again`);
});
webhooks.on('LIFECYCLE_EVENT', (event) => console.log(`user ${event.userId}: ${event.event}`));

const server = createServer(createNodeMiddleware(webhooks, { path: '/webhooks' }));
server.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${(server.address() as AddressInfo).port}/webhooks`);
});

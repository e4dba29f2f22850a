import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createWebMiddleware, Webhooks } from '@ledgerhook/webhooks';

const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET });

webhooks.on('INVOICE_VIEWED', async ({ userId }) => {
  console.log(`user ${userId}: a client opened an invoice`);
});
webhooks.onAny((delivery) => console.log(`${delivery.body.type} for user ${delivery.body.userId}`));

const handleWebhook = createWebMiddleware(webhooks);
const app = new Hono();
app.post('/webhooks', (c) => handleWebhook(c.req.raw));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) }, (info) => {
  console.log(`listening on http://localhost:${info.port}/webhooks`);
});

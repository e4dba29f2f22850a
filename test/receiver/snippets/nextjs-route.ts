// app/webhooks/route.ts
import { createWebMiddleware, Webhooks } from '@ledgerhook/webhooks';

const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET });

webhooks.on(['EXPENSE_ADDED', 'REVENUE_ADDED'], async ({ userId, event }) => {
  console.log(`user ${userId}: ${event}, new transactions to tag`);
});

export const POST = createWebMiddleware(webhooks);

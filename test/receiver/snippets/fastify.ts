import Fastify from 'fastify';
import { Webhooks } from '@ledgerhook/webhooks';

const webhooks = new Webhooks({ secret: process.env.WEBHOOK_SECRET });

webhooks.on('ENTITY_UPDATE', async ({ userId, entities }) => {
  console.log(`user ${userId}: fetch ${entities.join(', ')} again`);
});

const app = Fastify();
app.register(async (scope) => {
  // The two lines: in this scope only, every body stays raw bytes, so it can be verified.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  scope.post('/webhooks', async (request, reply) => {
    const answer = await webhooks.verifyAndReceive({ headers: request.headers, body: request.body as Buffer });
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
});

const address = await app.listen({ port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${address}/webhooks`);

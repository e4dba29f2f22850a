/** checkConsumer in process against the consumer written from the spec, over real HTTP on loopback. */
import {
  type CheckConsumerOptions,
  type CheckConsumerReport,
  checkConsumer,
} from '../../src/consumer-check/check-consumer.js';
import { type SpecConsumerOptions, startSpecConsumer } from './spec-consumer.js';

export const SPEC_CONSUMER_SECRET = 'whsec_spec_consumer_test';

/** Starts the consumer (with a bug or a behaviour), runs the check against it, and stops it. */
export async function checkSpecConsumer(
  consumerOptions: Omit<SpecConsumerOptions, 'secret'>,
  options: Partial<CheckConsumerOptions>,
): Promise<CheckConsumerReport> {
  const consumer = await startSpecConsumer({ secret: SPEC_CONSUMER_SECRET, ...consumerOptions });
  try {
    return await checkConsumer({
      to: new URL(consumer.url),
      signing: { secret: SPEC_CONSUMER_SECRET },
      state: { read: async () => consumer.state(), label: 'the spec consumer' },
      mock: { port: 0 },
      onProgress: (event) => {
        if (event.type === 'started') consumer.setApi(event.apiUrl, event.token);
      },
      ...options,
    });
  } finally {
    await consumer.close();
  }
}

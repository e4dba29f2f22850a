import { Agent, request } from 'undici';

/**
 * Deliveries per second into `url`: `concurrency` workers POST the same signed delivery back to
 * back for `seconds`. Anything but a 200 stops the run (a benchmark of refusals measures nothing).
 */
export async function deliveryLoad(
  url: string,
  body: string,
  token: string,
  seconds: number,
  concurrency: number,
): Promise<number> {
  const dispatcher = new Agent({ connections: concurrency });
  let count = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const response = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'service-verification': token },
        dispatcher,
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
      count += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const rate = count / ((performance.now() - started) / 1000);
  await dispatcher.close();
  return rate;
}

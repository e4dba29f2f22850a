import type { Dispatcher } from 'undici';
import { postWebhook, type PostWebhookOptions } from '../delivery/post-webhook.js';
import type { ForwardEdge } from './handle-delivery.js';

/** An app's answer is relayed to the sender up to this size; a larger one is not relayed at all (never cut). */
export const MAX_RELAYED_ANSWER_BYTES = 64 * 1024;

/** The real forward edge: POSTs the delivery byte-exact to the developer's app with undici. */
export function postForwardEdge(
  url: URL,
  options: { timeoutMs?: number | undefined; dispatcher?: Dispatcher | undefined } = {},
): ForwardEdge {
  return {
    url: url.href,
    async send(body, headers) {
      const post: PostWebhookOptions = { url, body, headers, maxBodyBytes: MAX_RELAYED_ANSWER_BYTES };
      // postWebhook's options predate exactOptionalPropertyTypes: absent stays absent.
      if (options.timeoutMs !== undefined) post.timeoutMs = options.timeoutMs;
      if (options.dispatcher !== undefined) post.dispatcher = options.dispatcher;
      const response = await postWebhook(post);
      return {
        status: response.status,
        latencyMs: response.latencyMs,
        ...(response.bodyComplete
          ? { body: response.bodyBytes, contentType: response.contentType }
          : { bodyTooLarge: true }),
      };
    },
  };
}

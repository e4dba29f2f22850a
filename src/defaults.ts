/**
 * Every default that both the library and the CLI's option definitions use, in one module: help texts
 * and behaviour can never disagree. Those of receiving and verifying webhooks are @ledgerhook/webhooks'.
 */
export {
  DEFAULT_HEADER_NAME,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TOLERANCE_SECONDS,
} from '@ledgerhook/webhooks';
export { DIAGNOSE_MAX_BODY_BYTES } from '@ledgerhook/webhooks/advanced';
/** check-receiver: how far sender and receiver clocks may differ at the tolerance's edges. */
export const DEFAULT_RECEIVER_SKEW_SECONDS = 5;
/** spec 4.3 rule 3 / 8: recommended page size. */
export const DEFAULT_PAGE_LIMIT = 100;
export const DEFAULT_LISTEN_PORT = 4000;
/** sync, listen --sync, history: where the JSON files go unless --out says otherwise. */
export const DEFAULT_OUT_DIR = './ledgerhook-data';
export const DEFAULT_MOCK_PORT = 4010;
export const DEFAULT_INSPECTOR_PORT = 4020;
export const DEFAULT_RECORD_PORT = 4030;
/** The inspector: bodies held in memory at most (the page keeps the newest deliveries within it). */
export const DEFAULT_INSPECTOR_HELD_BODY_BYTES = 128 * 1024 * 1024;
/** listen: a connection that sends nothing for this long is closed. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 30;
/** listen: connections held at once; more are closed on arrival. */
export const DEFAULT_MAX_CONNECTIONS = 512;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
export const DEFAULT_MOCK_TOKEN = 'ledgerhook-mock-token';
/** No single request waits longer than this for its answer unless told otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** A bigger answer is refused, not buffered: a list page is never anywhere near it. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** An endless chain of cursors ends here rather than filling the disk. */
export const DEFAULT_MAX_PAGES = 100_000;
/**
 * How far a server's lastUpdatedDate may be ahead of its own clock (its Date header, else ours)
 * before a sync refuses it (a day: a clock that is a little off passes, a year 9999 does not).
 */
export const DEFAULT_MAX_STAMP_AHEAD_MS = 24 * 3_600_000;
/** check-consumer: how long each case waits for the consumer's store to equal the service. */
export const DEFAULT_CONSUMER_SETTLE_MS = 10_000;
/** check-consumer: deliveries of the burst case. */
export const DEFAULT_CONSUMER_BURST = 500;
/** check-consumer: a state document is read whole into memory; a mock's few hundred items are ~100 KB. */
export const DEFAULT_MAX_STATE_BYTES = 32 * 1024 * 1024;
/** check-consumer: how long one read of the consumer's state may take. */
export const DEFAULT_STATE_TIMEOUT_MS = 10_000;
/**
 * Answers to the cursor of a resumed full read that mean the server no longer accepts it, so the read
 * starts again from page 1 (spec 7 shows no error statuses: a guess, the `expiredCursorStatuses`
 * setting). Counting one too many costs a read from page 1; one too few fails the run, saying so.
 */
export const DEFAULT_EXPIRED_CURSOR_STATUSES: readonly number[] = [400, 404, 410, 422];

/** Days of per-item change history a store keeps; current tombstones are kept regardless. */
export const DEFAULT_HISTORY_DAYS = 90;

/** listen --capture: refused (forged) records written per second at most, in bursts of ten seconds' worth. */
export const DEFAULT_CAPTURE_REFUSED_PER_SECOND = 10;
/** listen --capture: bytes of refused records one run writes at most; past it they are counted, not written. */
export const DEFAULT_CAPTURE_REFUSED_MAX_BYTES = 64 * 1024 * 1024;

/** listen --retry: forwards waiting for their next attempt (each holds its body); past it new deliveries get 503. */
export const DEFAULT_MAX_PENDING_FORWARDS = 1000;
export const DEFAULT_MAX_PENDING_FORWARD_BYTES = 64 * 1024 * 1024;
/** mock --webhook-retries: webhooks waiting for their next attempt; past it a failed one is not retried. */
export const DEFAULT_MAX_PENDING_MOCK_WEBHOOKS = 1000;
/** probe: requests it makes at most against the service, unless told otherwise. */
export const DEFAULT_PROBE_MAX_REQUESTS = 60;

/** record: the timeline file stops growing here (a recording of a million items is ~500 MB). */
export const DEFAULT_MAX_RECORDING_BYTES = 1024 * 1024 * 1024;
/** record: an answer larger than this is forwarded but not recorded (a capture line stays far below its cap). */
export const DEFAULT_MAX_RECORDED_BODY_BYTES = 8 * 1024 * 1024;
/** mock --from: a recording is served from memory (a few times its size once parsed); a larger one is refused before it is read. */
export const DEFAULT_MAX_REPLAYED_RECORDING_BYTES = 128 * 1024 * 1024;

/** A dataset's queued sync runs start at least this far apart while webhooks keep coming (queue/run-spacing.ts). */
export const DEFAULT_RUN_SPACING_MS = 1000;

/**
 * How often a resumable read into Postgres writes its checkpoint with the pages since the last one:
 * once this many bytes or pages are owed, or this long after the last write began (the first page's
 * at once). A crash re-reads at most that much; fewer, larger writes cost the read less.
 */
export const DEFAULT_CHECKPOINT_CADENCE = { bytes: 1024 * 1024, pages: 8, ms: 1000 } as const;

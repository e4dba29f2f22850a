import { readRecording } from '../record/read-recording.js';
import { type MockSenderOptions, mockWebhookSender, serveMock } from './mock-server.js';
import {
  type DeletedIdsOn,
  type Granularity,
  MOCK_BASE_PATH,
  type MockFaults,
  type SinceBoundary,
} from './mock-types.js';
import { buildHistory, type RecordedHistory } from './recorded-history.js';
import { RecordedMockService } from './recorded-service.js';
import { createStory, type StoryEvent, type StoryTimer } from './recorded-story.js';

/**
 * The recorded webhooks are sent again to `webhookUrl` only, whatever the recording holds, signed with
 * `webhookSecret` (the caller gives the local one: never a secret of the service's).
 */
export interface RecordedMockOptions extends MockSenderOptions {
  /** The recording directory (`ledgerhook record --out`). */
  from: string;
  port?: number | undefined;
  host?: string | undefined;
  token?: string | undefined;
  /** The recorded 429s, 5xx and dropped connections, at their place. */
  recordedFaults?: boolean | undefined;
  faults?: MockFaults | undefined;
  deletedIdsOn?: DeletedIdsOn | undefined;
  since?: SinceBoundary | undefined;
  /** Default: the recording's own precision. */
  granularity?: Granularity | undefined;
  /** 10 plays the recording ten times faster. */
  speed?: number | undefined;
  /** A recording larger than this is refused before it is read. */
  maxRecordingBytes?: number | undefined;
  now?: (() => number) | undefined;
  timer?: StoryTimer | undefined;
  onStory?: ((event: StoryEvent) => void) | undefined;
}

export interface RunningRecordedMock {
  /** The API root, e.g. http://127.0.0.1:4010/rest/v5 */
  url: string;
  token: string;
  history: RecordedHistory;
  /** Resolves once every step of the recording was taken (webhooks sent, changes visible). */
  storyDone(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `mock --from`: a recording served as the API it was recorded from, its story told again: the
 * datasets' changes become visible and the webhooks are re-sent in the recorded order and rhythm.
 * The story starts with the first API request when the recording began with a read (as the
 * consumer began), else at once.
 */
export async function startRecordedMock(options: RecordedMockOptions): Promise<RunningRecordedMock> {
  const recording = await readRecording(options.from, { maxBytes: options.maxRecordingBytes });
  const history = buildHistory(recording, { since: options.since, granularity: options.granularity });
  const sender = mockWebhookSender(options);
  let service: RecordedMockService | undefined;
  const story = createStory({
    history,
    show: (key, version) => service?.show(key, version),
    readsOf: (key) => service?.readsOf(key) ?? 0,
    send: sender ? (step) => sender.resend(step.parsed, step.body) : undefined,
    speed: options.speed,
    now: options.now,
    timer: options.timer,
    onEvent: options.onStory,
  });
  service = new RecordedMockService({
    history,
    token: options.token,
    recordedFaults: options.recordedFaults,
    faults: options.faults,
    deletedIdsOn: options.deletedIdsOn,
    now: options.now,
    onRequest: () => story.start(),
    onRead: () => story.read(),
  });
  const served = await serveMock(service, options);
  if (!history.startsWithRead) story.start();
  return {
    url: `${served.origin}${MOCK_BASE_PATH}`,
    token: service.token,
    history,
    storyDone: () => story.done(),
    async close() {
      story.stop();
      sender?.stop();
      await sender?.idle();
      await served.close();
    },
  };
}

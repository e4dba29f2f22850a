import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CaptureRecord } from '../../src/capture/capture-record.js';
import type { LedgerhookError } from '../../src/errors.js';
import type { MockRequest, MockResponse } from '../../src/mock/mock-types.js';
import { buildHistory } from '../../src/mock/recorded-history.js';
import { RecordedMockService } from '../../src/mock/recorded-service.js';
import { createStory, type StoryEvent, type StoryTimer } from '../../src/mock/recorded-story.js';
import { readRecording, type Recording } from '../../src/record/read-recording.js';
import type { RecordedExchange, RecordingHeader } from '../../src/record/recording-format.js';
import { tempDir } from '../helpers/cli.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const HEADER: RecordingHeader = {
  kind: 'recording',
  format: 1,
  startedAt: new Date(T0).toISOString(),
  baseUrl: 'https://sandbox.example/rest/v5',
  basePath: '/rest/v5',
  redaction: { keyId: 'abc', fields: [] },
};

function exchange(
  seq: number,
  path: string,
  request: RecordedExchange['request'],
  status: number,
  body?: unknown,
  headers = {},
): RecordedExchange {
  const [pathname = path, query = ''] = path.split('?');
  return {
    kind: 'exchange',
    seq,
    at: new Date(T0 + seq * 100).toISOString(),
    ms: 1,
    method: 'GET',
    path: pathname,
    query,
    request,
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body,
    bodyBytes: 10,
    redacted: 0,
  };
}

const recordingOf = (exchanges: RecordedExchange[], deliveries: Recording['deliveries'] = []): Recording => ({
  dir: 'memory',
  header: HEADER,
  exchanges,
  deliveries,
  warnings: [],
});

const item = (id: number, extra: Record<string, unknown> = {}) => ({ id, amount: id, ...extra });
const TOKEN = 'tok';
const get = (url: string, headers: Record<string, string> = {}): MockRequest => ({
  method: 'GET',
  url: `/rest/v5${url}`,
  headers: { authorization: `Bearer ${TOKEN}`, ...headers },
});

/**
 * A service that caps pages at 3, answers its own error bodies, ends reads with `cursor: null`, writes
 * whole-second dates, put deletedIds on the last page of an incremental read, and once answered 429.
 */
const QUIRKY = recordingOf([
  exchange(0, '/things', { limit: '5' }, 200, {
    data: [item(1), item(2), item(3)],
    lastUpdatedDate: '2026-01-01T00:00:10Z',
    cursor: 'c1',
  }),
  exchange(1, '/things', { limit: '5', cursor: 'c1' }, 429, { code: 'SLOW' }, { 'retry-after': '2' }),
  exchange(2, '/things', { limit: '5', cursor: 'c1' }, 200, {
    data: [item(4), item(5)],
    lastUpdatedDate: '2026-01-01T00:00:10Z',
    cursor: null,
  }),
  exchange(3, '/missing', {}, 404, { code: 'NO_SUCH_LIST' }),
  exchange(4, '/things', { limit: '1', lastUpdatedDate: '2026-01-01T00:00:10Z' }, 200, {
    data: [item(2, { amount: 99 })],
    lastUpdatedDate: '2026-01-01T00:00:12Z',
    cursor: 'd1',
  }),
  exchange(5, '/things', { limit: '1', cursor: 'd1' }, 200, {
    data: [item(7)],
    lastUpdatedDate: '2026-01-01T00:00:12Z',
    cursor: null,
    deletedIds: [3, 99],
  }),
  exchange(6, '/things', {}, 401, { code: 'AUTH', detail: 'token refused' }),
]);

async function read(service: RecordedMockService, path: string, headers: Record<string, string> = {}) {
  const pages: Array<Record<string, any>> = [];
  let cursor: string | undefined;
  do {
    const answer: MockResponse = await service.handle(get(path, { ...headers, ...(cursor ? { cursor } : {}) }));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const body = answer.body as Record<string, any>;
    pages.push(body);
    cursor = typeof body.cursor === 'string' ? body.cursor : undefined;
  } while (cursor);
  return pages;
}

describe('mock --from: a recording paged by the mock rules, with its quirks', () => {
  const history = buildHistory(QUIRKY);

  it('learns the quirks the pages show', () => {
    const { quirks } = history;
    assert.deepEqual(
      [quirks.maxPageSize, quirks.endMarker, quirks.deletedIdsOn, history.granularity],
      [3, 'null', 'last', 's'],
    );
    assert.deepEqual([...quirks.errorBodies.keys()].sort(), [401, 404]);
  });

  it('a full read: pages capped as recorded, the whole-second date as written, cursor: null on the last page', async () => {
    const service = new RecordedMockService({ history, token: TOKEN });
    const pages = await read(service, '/things', { limit: '5' });
    assert.deepEqual(
      pages.map((page) => page.data.map((entry: { id: number }) => entry.id)),
      [
        [1, 2, 3],
        [4, 5],
      ],
    );
    assert.deepEqual(
      pages.map((page) => page.lastUpdatedDate),
      ['2026-01-01T00:00:10Z', '2026-01-01T00:00:10Z'],
    );
    assert.equal(pages[1]?.cursor, null);
    assert.ok('cursor' in (pages[1] as object));
  });

  it('an incremental read from the first read reproduces the recorded one: changed items, then deletedIds (one never seen) on the last page', async () => {
    const service = new RecordedMockService({ history, token: TOKEN });
    await read(service, '/things', { limit: '5' });
    const pages = await read(service, '/things', { limit: '1', lastupdateddate: '2026-01-01T00:00:10Z' });
    assert.deepEqual(
      pages.map((page) => [page.data, page.deletedIds, page.lastUpdatedDate]),
      [
        [[item(2, { amount: 99 })], undefined, '2026-01-01T00:00:12Z'],
        [[item(7)], [3, 99], '2026-01-01T00:00:12Z'],
      ],
    );
    const after = await read(service, '/things', { limit: '5' });
    assert.deepEqual(
      after.flatMap((page) => page.data.map((entry: { id: number }) => entry.id)),
      [1, 2, 4, 5, 7],
    );
  });

  it('--faults recorded: the 429 at its place among the dataset requests, with its Retry-After and body', async () => {
    const faulty = new RecordedMockService({ history, token: TOKEN, recordedFaults: true });
    assert.equal((await faulty.handle(get('/things', { limit: '5' }))).status, 200);
    const limited = await faulty.handle(get('/things', { limit: '5' }));
    assert.deepEqual([limited.status, limited.headers['retry-after'], limited.body], [429, '2', { code: 'SLOW' }]);
    assert.equal((await faulty.handle(get('/things', { limit: '5' }))).status, 200);
    const plain = new RecordedMockService({ history, token: TOKEN });
    assert.equal((await plain.handle(get('/things'))).status, 200);
    assert.equal((await plain.handle(get('/things'))).status, 200);
  });

  it("answers errors with the service's own bodies: a path it refused, a path it never saw, a bad token", async () => {
    const service = new RecordedMockService({ history, token: TOKEN });
    assert.deepEqual(await service.handle(get('/missing')), {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: { code: 'NO_SUCH_LIST' },
    });
    assert.deepEqual((await service.handle(get('/never'))).body, { code: 'NO_SUCH_LIST' });
    const refused = await service.handle({ ...get('/things'), headers: { authorization: 'Bearer nope' } });
    assert.deepEqual([refused.status, refused.body], [401, { code: 'AUTH', detail: 'token refused' }]);
    assert.equal((await service.handle({ ...get('/things'), method: 'POST' })).status, 405);
    assert.equal((await service.handle(get('/things', { cursor: 'forged.cursor' }))).status, 400);
  });
});

/** A timer the test fires: the story never waits for real time. */
function fakeTime() {
  let clock = 0;
  const timers = new Set<{ at: number; callback: () => void }>();
  const timer: StoryTimer = {
    set(callback, ms) {
      const entry = { at: clock + ms, callback };
      timers.add(entry);
      return entry;
    },
    clear: (handle) => timers.delete(handle as { at: number; callback: () => void }),
  };
  return {
    timer,
    now: () => clock,
    advance(ms: number) {
      clock += ms;
      for (const entry of [...timers].sort((a, b) => a.at - b.at))
        if (entry.at <= clock) {
          timers.delete(entry);
          entry.callback();
        }
    },
  };
}

function delivery(id: string, at: number, body: object, valid: boolean | null = true): Recording['deliveries'][number] {
  const text = JSON.stringify(body);
  const record: CaptureRecord = {
    id,
    receivedAt: new Date(at).toISOString(),
    method: 'POST',
    path: '/',
    headers: {},
    headerName: 'service-verification',
    body: Buffer.from(text).toString('base64'),
    bodyBytes: text.length,
    verdict: { valid, status: valid ? 200 : 400 },
  };
  return { seq: 0, at: record.receivedAt, record };
}

/** A full read, a webhook a second later announcing a change, then the incremental read that saw it. */
function announced() {
  const webhook = delivery('dlv_1', T0 + 1000, { userId: 'u', type: 'ENTITY_UPDATE', entities: ['expense'] });
  webhook.seq = 1;
  const forged = delivery('dlv_2', T0 + 1100, { userId: 'u', type: 'ENTITY_UPDATE', entities: ['expense'] }, false);
  forged.seq = 1.5;
  const first = exchange(0, '/expenses/expenses', {}, 200, {
    data: [item(1)],
    lastUpdatedDate: '2026-01-01T00:00:00.000Z',
  });
  const later = exchange(2, '/expenses/expenses', { lastUpdatedDate: '2026-01-01T00:00:00.000Z' }, 200, {
    data: [item(1, { amount: 5 })],
    lastUpdatedDate: '2026-01-01T00:00:01.500Z',
  });
  later.at = new Date(T0 + 1500).toISOString();
  return buildHistory(recordingOf([first, later], [webhook, forged]));
}

function storyOf(history: ReturnType<typeof buildHistory>, speed = 1) {
  const time = fakeTime();
  const events: string[] = [];
  const sent: string[] = [];
  let service: RecordedMockService | undefined;
  const story = createStory({
    history,
    show: (key, version) => service?.show(key, version),
    readsOf: (key) => service?.readsOf(key) ?? 0,
    send: async (step) => {
      sent.push(step.record.id);
      events.push(`sent ${step.record.id}`);
    },
    speed,
    now: time.now,
    timer: time.timer,
    readWaitMs: 5000,
    onEvent: (event: StoryEvent) => events.push(event.type),
  });
  service = new RecordedMockService({
    history,
    token: TOKEN,
    onRequest: () => story.start(),
    onRead: () => story.read(),
  });
  return { time, events, sent, story, service };
}

describe('mock --from: the story (changes and webhooks in the recorded order and rhythm)', () => {
  it('only webhooks verified at receipt are sent again; the change is visible just before the webhook that announced it', async () => {
    const history = announced();
    assert.equal(history.skippedDeliveries, 1);
    const { time, events, service } = storyOf(history);
    const first = await read(service, '/expenses/expenses');
    assert.deepEqual(first[0]?.data, [item(1)]);
    time.advance(999);
    assert.deepEqual(events, ['story-started']);
    time.advance(1);
    await Promise.resolve();
    assert.deepEqual(events, ['story-started', 'change-visible', 'sent dlv_1', 'story-done']);
    const again = await read(service, '/expenses/expenses', { lastupdateddate: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual(
      [again[0]?.data, again[0]?.lastUpdatedDate],
      [[item(1, { amount: 5 })], '2026-01-01T00:00:01.500Z'],
    );
  });

  it('--speed 10 plays the same story in a tenth of the time', () => {
    const { time, events, service } = storyOf(announced(), 10);
    void service.handle(get('/expenses/expenses'));
    time.advance(100);
    assert.deepEqual(events.slice(0, 2), ['story-started', 'change-visible']);
  });

  it('a change waits for the read the recording shows before it (bounded), so that a full read never sees it early', async () => {
    const { time, events, story, service } = storyOf(announced());
    story.start();
    time.advance(1000);
    assert.deepEqual(events, ['story-started', 'waiting-for-read']);
    const pages = await read(service, '/expenses/expenses');
    assert.deepEqual(pages[0]?.data, [item(1)], 'the read the change waited for sees the data before it');
    assert.deepEqual(events.slice(2, 4), ['change-visible', 'sent dlv_1']);

    const late = storyOf(announced());
    late.story.start();
    late.time.advance(1000);
    late.time.advance(5000);
    assert.deepEqual(late.events.slice(0, 4), ['story-started', 'waiting-for-read', 'read-not-seen', 'change-visible']);
  });

  it('a change no webhook announced is visible to the read that revealed it, whenever the consumer makes it', async () => {
    const history = buildHistory(
      recordingOf([
        exchange(0, '/things', {}, 200, { data: [item(1)], lastUpdatedDate: '2026-01-01T00:00:00.000Z' }),
        exchange(9, '/things', { lastUpdatedDate: '2026-01-01T00:00:00.000Z' }, 200, {
          data: [],
          deletedIds: [1],
          lastUpdatedDate: '2026-01-01T00:00:05.000Z',
        }),
      ]),
    );
    const service = new RecordedMockService({ history, token: TOKEN });
    await read(service, '/things');
    const next = await read(service, '/things', { lastupdateddate: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual([next[0]?.data, next[0]?.deletedIds], [[], [1]]);
  });
});

describe('a recording is a file someone else may have written', () => {
  function writeRecording(lines: string[], deliveries?: string[]): string {
    const dir = join(tempDir(), 'recording');
    mkdirSync(dir);
    writeFileSync(join(dir, 'recording.jsonl'), lines.join('\n'));
    if (deliveries) writeFileSync(join(dir, 'deliveries.jsonl'), deliveries.join('\n'));
    return dir;
  }
  const good = exchange(0, '/things', {}, 200, { data: [item(1)], lastUpdatedDate: '2026-01-01T00:00:00Z' });

  it('lines of another shape are skipped with a warning: control characters, a status past 599, a torn last line, ids that are not numbers', async () => {
    const dir = writeRecording([
      JSON.stringify(HEADER),
      JSON.stringify(good),
      JSON.stringify({ ...good, seq: 1, path: '/things\u001b[31m' }),
      JSON.stringify({ ...good, seq: 2, status: 999 }),
      'not json',
      JSON.stringify({
        ...good,
        seq: 3,
        body: { data: [{ id: 'x' }, item(2)], lastUpdatedDate: '2026-01-01T00:00:01Z' },
      }),
      '{"kind":"exchange","seq":4',
    ]);
    const recording = await readRecording(dir);
    assert.deepEqual(
      recording.exchanges.map((entry) => entry.seq),
      [0, 3],
    );
    assert.equal(recording.warnings.length, 4, recording.warnings.join('\n'));
    assert.match(recording.warnings.at(-1) ?? '', /incomplete/);
    const history = buildHistory(recording);
    assert.ok(history.warnings.some((warning) => /numeric id/.test(warning)));
  });

  it('a directory without a recording, a first line that is not a header, or one past the size bound is refused, naming it', async () => {
    const refusedWith = (reason: string) => (error: LedgerhookError) => error.details.reason === reason;
    await assert.rejects(readRecording(tempDir()), refusedWith('recording_unreadable'));
    await assert.rejects(readRecording(writeRecording([JSON.stringify(good)])), /not a recording header/);
    await assert.rejects(
      readRecording(writeRecording([JSON.stringify(HEADER), JSON.stringify(good)]), { maxBytes: 100 }),
      /more than the 100 a replay reads/,
    );
  });
});

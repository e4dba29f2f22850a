import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memorySource } from '../../src/inspector/inspector-source.js';
import { captureRecord } from '../helpers/capture-file.js';

describe('inspector memory source', () => {
  it('feeds subscribers, finds by id, and stays bounded by count and by body bytes', async () => {
    const body = JSON.stringify({ userId: 'u', type: 'ENTITY_UPDATE', entities: ['expense'] });
    const records = await Promise.all(
      Array.from({ length: 6 }, (_, index) => captureRecord(body, { id: `dlv_${index}` })),
    );
    const cases = [
      { limits: { maxDeliveries: 4 }, kept: ['dlv_2', 'dlv_3', 'dlv_4', 'dlv_5'] },
      { limits: { maxBodyBytes: records[0]!.body.length * 2 }, kept: ['dlv_4', 'dlv_5'] },
      // The newest is kept even when it alone is over the budget.
      { limits: { maxBodyBytes: 1 }, kept: ['dlv_5'] },
    ];
    for (const { limits, kept } of cases) {
      const source = memorySource([], limits);
      const seen: string[] = [];
      const unsubscribe = source.subscribe((delivery) => seen.push(delivery.id));
      for (const record of records) source.push(record);
      assert.deepEqual(
        source.snapshot().map((delivery) => delivery.id),
        kept,
        JSON.stringify(limits),
      );
      unsubscribe();
      source.push(await captureRecord(body, { id: 'dlv_after' }));
      assert.deepEqual(
        seen,
        records.map((record) => record.id),
      );
      assert.equal(source.snapshot().at(-1)?.id, 'dlv_after');
      assert.equal(source.find('dlv_0'), undefined);
      assert.equal(source.find('dlv_after')?.index, 6);
    }
  });

  it('attaches sync results to the latest delivery of that user naming that entity', async () => {
    const source = memorySource([
      await captureRecord(JSON.stringify({ userId: 'a', type: 'ENTITY_UPDATE', entities: ['expense'] }), { id: 'one' }),
      await captureRecord(JSON.stringify({ userId: 'a', type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] }), {
        id: 'two',
      }),
      await captureRecord(JSON.stringify({ userId: 'b', type: 'ENTITY_UPDATE', entities: ['expense'] }), {
        id: 'three',
      }),
    ]);
    source.addSync('a', 'expense', { entity: 'expense', ok: true, summary: 'incremental, 2 upserted' });
    source.addSync('a', 'vendor', { entity: 'vendor', ok: true, summary: 'nobody asked' });
    assert.deepEqual(source.syncsOf('two'), [{ entity: 'expense', ok: true, summary: 'incremental, 2 upserted' }]);
    assert.deepEqual(source.syncsOf('one'), []);
    assert.deepEqual(source.syncsOf('three'), []);
  });
});

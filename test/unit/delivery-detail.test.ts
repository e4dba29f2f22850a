import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { deliveryDetail } from '../../src/inspector/delivery-detail.js';
import { fromCaptureRecord } from '../../src/inspector/inspector-delivery.js';
import { captureRecord } from '../helpers/capture-file.js';

describe('delivery detail: the body', () => {
  const cases: Array<{ name: string; bytes: Buffer; utf8: boolean; pretty: boolean }> = [
    {
      name: 'JSON',
      bytes: Buffer.from('{"userId":"ü","type":"ENTITY_UPDATE","entities":[]}'),
      utf8: true,
      pretty: true,
    },
    { name: 'text, not JSON', bytes: Buffer.from('hello\n'), utf8: true, pretty: false },
    {
      name: 'bytes that are not UTF-8',
      bytes: Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]),
      utf8: false,
      pretty: false,
    },
  ];
  for (const { name, bytes, utf8, pretty } of cases)
    it(name, async () => {
      const record = await captureRecord('{}', { id: 'dlv_1' });
      record.body = bytes.toString('base64');
      record.bodyBytes = bytes.length;
      const { body } = await deliveryDetail(fromCaptureRecord(record, 0));
      assert.equal(body.utf8, utf8);
      assert.equal(body.pretty !== null, pretty);
      assert.equal(body.sha256Hex, createHash('sha256').update(bytes).digest('hex'));
      // Byte-exact: text when it is UTF-8, Base64 when it is not.
      if (utf8) {
        assert.equal(body.base64, null);
        assert.deepEqual(Buffer.from(body.text, 'utf8'), bytes);
      } else assert.deepEqual(Buffer.from(body.base64 ?? '', 'base64'), bytes);
    });
});

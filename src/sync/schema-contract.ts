import { LedgerhookError } from '../errors.js';
import type { DatasetSchema } from '../store/dataset-schema.js';
import { describeDrift, isDrift, type SchemaDrift, type SchemaObserver, settleSchema } from './schema-drift.js';

/**
 * What a run does when its items' fields drift: 'evolve' (the default) reports the drift and records
 * the new schema; 'freeze' fails the run before anything is committed, for consumers that break on a
 * field they do not know.
 */
export type SchemaContract = 'evolve' | 'freeze';

/**
 * Settles a run's schema just before its commit: the drift goes into the summary, and the schema
 * returned is committed with the state. Under 'freeze', a drift throws instead, so data and state
 * stay as they were (a notice that the field limit was reached alone is not a drift).
 */
export function schemaBeforeCommit(
  stored: DatasetSchema | undefined,
  observed: SchemaObserver,
  complete: boolean,
  contract: SchemaContract | undefined,
  summary: { dataset: string; drift?: SchemaDrift | undefined },
): DatasetSchema | undefined {
  const { schema, drift } = settleSchema(stored, observed, complete);
  if (drift) summary.drift = drift;
  if (contract === 'freeze' && isDrift(drift))
    throw new LedgerhookError(
      'ERR_CHECK_FAILED',
      `${summary.dataset}: the items' fields drifted from those recorded (${describeDrift(drift)}); nothing was committed, data and state are as they were`,
      { details: { reason: 'schema_drift', dataset: summary.dataset, drift } },
    );
  return schema;
}

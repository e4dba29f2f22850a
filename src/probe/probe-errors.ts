import type { BodyShape } from '../http/error-body.js';
import type { ProbeRun } from './probe-run.js';

/** A path no service serves: its 404 shows the error body when no other refusal did. */
export const NO_SUCH_PATH = '/ledgerhook-probe-no-such-list';

/** Asks for a path that does not exist when no error answer was met yet (one request). */
export async function provokeError(run: ProbeRun): Promise<void> {
  if (run.errors.length === 0) await run.get(NO_SUCH_PATH, { limit: 1 });
}

const SHAPE_WORDS: Record<BodyShape, string> = {
  json: 'JSON',
  html: 'HTML pages',
  text: 'plain text',
  empty: 'empty bodies',
};

/** The body shape of the service's 4xx answers (spec 7 shows none), so that errors quote it well. */
export function errorFindings(run: ProbeRun): void {
  if (run.errors.length === 0) return;
  const byShape = new Map<BodyShape, typeof run.errors>();
  for (const error of run.errors) byShape.set(error.body.shape, [...(byShape.get(error.body.shape) ?? []), error]);
  const parts = [...byShape.entries()].map(([shape, errors]) => {
    const statuses = [...new Set(errors.map((error) => error.status))].sort().join(', ');
    const example = errors.find((error) => error.body.summary !== '') ?? errors[0];
    const fields = example?.body.fields?.length ? ` with ${example.body.fields.join(', ')}` : '';
    const quote = example?.body.summary ? `, e.g. ${JSON.stringify(example.body.summary)}` : '';
    return `${statuses}: ${SHAPE_WORDS[shape]}${fields}${quote}`;
  });
  const html = byShape.has('html');
  run.add({
    area: 'errors',
    id: 'error-body',
    quirk: html ? 'html-errors' : byShape.has('text') ? 'text-errors' : undefined,
    observed: `error answers are ${parts.join('; ')}${html ? ' (errors quote an HTML page by its title, not its markup)' : ''}`,
  });
}

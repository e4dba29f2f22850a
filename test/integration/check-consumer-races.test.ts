/**
 * check-consumer against a consumer written in the test from the spec alone (test/helpers/spec-consumer.ts,
 * node:http + node:crypto + fetch, not the project's example app), in process, on loopback: the correct
 * consumer passes every case, and each planted bug is failed on the case made for it. No latency is
 * added anywhere: the race cases make their races by holding the consumer's read in the mock.
 *
 * The normal suite runs the correct consumer once through the battery (less lost-webhook), in three
 * groups of cases side by side (each from its own baseline, its own consumer and mock: the check waits
 * out a quiet between cases, so one battery in a row is mostly waiting), and each planted bug once
 * with its case alone (and the baseline); LEDGERHOOK_SOAK=1 runs the whole battery in one go against
 * every consumer 10 times and prints the counts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckConsumerReport } from '../../src/consumer-check/check-consumer.js';
import { CONSUMER_CASE_TABLE } from '../../src/consumer-check/consumer-case-table.js';
import { checkSpecConsumer } from '../helpers/check-spec-consumer.js';
import { PLANTED_BUGS, type PlantedBug } from '../helpers/spec-consumer.js';

const SOAK = process.env.LEDGERHOOK_SOAK === '1';
const RUNS = SOAK ? 10 : 1;
/** Long enough for the rate-limited case (three requests at one a second) on a loaded machine. */
const SETTLE_MS = 4000;

const check = (bug: PlantedBug | undefined, cases: { only?: string[]; skip?: string[] }) =>
  checkSpecConsumer({ bug }, { limits: { settleMs: SETTLE_MS, burst: 40 }, cases });

/** The correct consumer's cases in the normal suite: two groups named here, the third every other case. */
const NAMED_GROUPS = [
  ['rate-limited', 'duplicate-immediate', 'duplicate-after-change', 'near-expiry'],
  ['overlapping-fetches', 'reverse-order', 'stale-page-after-change'],
];
const CORRECT_GROUPS = [
  ...NAMED_GROUPS,
  CONSUMER_CASE_TABLE.map((c) => c.id).filter(
    (id) => id !== 'baseline' && id !== 'lost-webhook' && !NAMED_GROUPS.flat().includes(id),
  ),
];

/** The correct consumer's reports as one: every case's verdict, passed when every group passed. */
function merged(reports: CheckConsumerReport[]): CheckConsumerReport {
  const cases = new Map(reports.flatMap((report) => report.cases.map((c) => [c.id, c] as const)));
  return {
    ...(reports[0] as CheckConsumerReport),
    cases: CONSUMER_CASE_TABLE.flatMap((row) => cases.get(row.id) ?? []),
    passed: reports.every((report) => report.passed),
  };
}

const verdicts = (report: CheckConsumerReport) => Object.fromEntries(report.cases.map((c) => [c.id, c.verdict]));
const BUGS = Object.keys(PLANTED_BUGS) as PlantedBug[];

describe(`check-consumer against a consumer written from the spec (${RUNS} ${RUNS === 1 ? 'run' : 'runs'})`, () => {
  it('the correct consumer converges in every required case; each planted bug fails the case made for it', async (t) => {
    const passed = { correct: 0, ...Object.fromEntries(BUGS.map((bug) => [bug, 0])) } as Record<string, number>;
    const notes: string[] = [];
    /** Per consumer, how often each case failed: its own case, and any other it also fails. */
    const failing = new Map<string, Map<string, number>>();
    const count = (name: string, report: CheckConsumerReport) => {
      const cases = failing.get(name) ?? new Map<string, number>();
      for (const c of report.cases) if (c.failed) cases.set(c.id, (cases.get(c.id) ?? 0) + 1);
      failing.set(name, cases);
    };
    for (let run = 0; run < RUNS; run += 1) {
      // All at once, each with its own mock and consumer: the machine as loaded as a CI runner.
      const [correctReports, planted] = await Promise.all([
        // In the normal suite, lost-webhook (a limitation that waits out its settle time) is the
        // driver test's; the soak runs everything.
        Promise.all(SOAK ? [check(undefined, {})] : CORRECT_GROUPS.map((only) => check(undefined, { only }))),
        Promise.all(BUGS.map((bug) => check(bug, SOAK ? {} : { only: [PLANTED_BUGS[bug]] }))),
      ]);
      const correct = merged(correctReports);
      const expected = Object.fromEntries(
        CONSUMER_CASE_TABLE.filter((c) => SOAK || c.id !== 'lost-webhook').map((c) => [
          c.id,
          c.level === 'limitation' ? 'not-converged' : 'converged',
        ]),
      );
      if (correct) count('correct', correct);
      if (correct && JSON.stringify(verdicts(correct)) === JSON.stringify(expected) && correct.passed)
        passed.correct = (passed.correct ?? 0) + 1;
      else notes.push(`correct, run ${run + 1}: ${JSON.stringify(correct?.cases.filter((c) => c.failed))}`);
      planted.forEach((report, index) => {
        const bug = BUGS[index] as PlantedBug;
        count(bug, report);
        const own = report.cases.find((c) => c.id === PLANTED_BUGS[bug]);
        if (own?.verdict === 'not-converged' && own.failed && !report.passed) passed[bug] = (passed[bug] ?? 0) + 1;
        else notes.push(`${bug}, run ${run + 1}: ${JSON.stringify(verdicts(report))}; ${own?.detail}`);
      });
    }
    t.diagnostic(
      `caught (or, for the correct consumer, passed) in ${RUNS} runs: ${Object.entries(passed)
        .map(([name, count]) => `${name} ${count}/${RUNS}`)
        .join(', ')}`,
    );
    for (const [name, cases] of failing)
      t.diagnostic(`${name} failed: ${[...cases].map(([id, n]) => `${id} ${n}/${RUNS}`).join(', ') || 'nothing'}`);
    assert.deepEqual(
      passed,
      { correct: RUNS, ...Object.fromEntries(BUGS.map((bug) => [bug, RUNS])) },
      notes.join('\n'),
    );
  });
});

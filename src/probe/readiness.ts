import type { ProbeFinding, ProbeReport } from './probe-types.js';

/**
 * Ready to sync with the settings the environment has: the token was accepted, no finding is a
 * problem, and every setting a sync needs (without which it fails or loses data) is set to fit.
 */
export function isReady(findings: readonly ProbeFinding[], authFailure?: ProbeReport['authFailure']): boolean {
  return (
    authFailure === undefined &&
    findings.every(
      (finding) => finding.problem === undefined && !(finding.setting?.required && finding.setting.state !== 'set'),
    )
  );
}

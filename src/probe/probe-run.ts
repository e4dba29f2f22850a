import { checkEntityPaths, type EntityPaths } from '../catalogue/entity-paths.js';
import { classifyBody } from '../dataset/envelope.js';
import { type BodyDescription, describeBody } from '../http/error-body.js';
import { type EnvironmentSettings, type SettingKey, storedEntityPaths } from '../settings/environments.js';
import { type ListRequest, type ProbeAnswer, ProbeClient } from './probe-client.js';
import type { ResolvedProbeOptions } from './probe-options.js';
import type { ProbeFacts, ProbeFinding } from './probe-types.js';
import { implySetting } from './setting-fit.js';

/** A 401 or 403: said as a token problem, and nothing more is asked. */
export class AuthRefused extends Error {
  constructor(
    readonly status: number,
    readonly path: string,
    readonly description: BodyDescription,
  ) {
    super(`GET ${path} answered ${status}`);
    this.name = 'AuthRefused';
  }
}

/** A list answer, classified once. */
export type ListAnswer = ProbeAnswer & { page?: { items: number; cursor?: string | undefined } };

/** A 4xx answer's body, as errors quote it. */
export interface ErrorSeen {
  status: number;
  path: string;
  body: BodyDescription;
}

/**
 * One probe's state: the client, the settings it compares with, the findings so far and what every
 * answer showed in passing (the stamps, the ends of last pages, error bodies). Each phase adds to it.
 */
export class ProbeRun {
  readonly client: ProbeClient;
  readonly settings: EnvironmentSettings;
  readonly paths: EntityPaths;
  readonly findings: ProbeFinding[] = [];
  readonly facts: ProbeFacts = {};
  /** The API root in use: the one given, or the one found when it lacked /rest/vN. */
  baseUrl: string;
  /** Every lastUpdatedDate seen, by path. */
  readonly stamps: Array<{ path: string; stamp: string }> = [];
  readonly endings: Array<'absent' | 'null' | 'empty'> = [];
  readonly errors: ErrorSeen[] = [];
  /** Whether any answer was a success: the token is good, a later 403 is about one list. */
  #accepted = false;

  constructor(options: ResolvedProbeOptions) {
    this.baseUrl = options.baseUrl;
    this.settings = options.settings;
    this.paths = checkEntityPaths(storedEntityPaths(this.settings));
    this.client = new ProbeClient(options);
  }

  /**
   * GET, classify, remember what it shows. A 401 stops the probe (the token is refused), and so does
   * a 403 before anything was accepted; a 403 after that is one list the token may not read.
   */
  async get(path: string, request: ListRequest = {}, baseUrl = this.baseUrl): Promise<ListAnswer> {
    const answer = await this.client.get(path, request, baseUrl);
    if (answer.status === 401 || (answer.status === 403 && !this.#accepted))
      throw new AuthRefused(answer.status, path, describeBody(answer.text, answer.headers['content-type']));
    if (answer.status < 300) this.#accepted = true;
    if (answer.status >= 400) {
      this.errors.push({
        status: answer.status,
        path,
        body: describeBody(answer.text, answer.headers['content-type']),
      });
      return answer;
    }
    if (answer.status !== 200 || answer.json === undefined) return answer;
    const classified = classifyBody(answer.json);
    if (classified.kind !== 'page') return answer;
    const page = classified.page;
    this.stamps.push({ path, stamp: page.lastUpdatedDate });
    if (page.cursor === undefined)
      this.endings.push(
        classified.quirk === 'cursor-null' ? 'null' : classified.quirk === 'cursor-empty' ? 'empty' : 'absent',
      );
    // The page alone is kept (its items only counted): a probe never holds a dataset.
    return { ...answer, text: '', json: undefined, page: { items: page.data.length, cursor: page.cursor } };
  }

  add(finding: ProbeFinding): void {
    this.findings.push(finding);
  }

  /** The setting a finding implies, compared with what is stored. */
  imply(key: SettingKey, value: string, required: boolean) {
    return implySetting(key, value, this.settings, required);
  }

  /** The latest lastUpdatedDate seen on a path. */
  latestStamp(path: string): string | undefined {
    return this.stamps.filter((entry) => entry.path === path).at(-1)?.stamp;
  }
}

/**
 * The API root every list path of the catalogue is relative to: the spec's samples use
 * `{base_url}/rest/v5`. A base URL without a `/rest/vN` segment (`http://host:4010`) is the commonest
 * first slip: every list then answers 404, which reads like a wrong entity path but is not one.
 */
export const API_ROOT_PATH = '/rest/v5';

/** Whether the base URL's path has no `/rest/vN` segment (a URL that does not parse has none either). */
export function lacksApiVersion(baseUrl: string): boolean {
  let path: string;
  try {
    path = new URL(baseUrl).pathname;
  } catch {
    return true;
  }
  return !/\/rest\/v\d+(\/|$)/i.test(path);
}

/** The base URL with the API root added: what the user most likely meant. */
export function withApiRoot(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${API_ROOT_PATH}`;
}

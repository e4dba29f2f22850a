/** RFC 9110 token: what an HTTP header name may be. */
export const isHeaderName = (name: string): boolean => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);

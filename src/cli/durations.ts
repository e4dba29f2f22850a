/** Kept apart from parsers.ts: command modules use it, and must not pull commander into their chunk. */
export { formatDuration } from '../util/duration.js';

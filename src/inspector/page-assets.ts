import { readFile } from 'node:fs/promises';
import { LedgerhookError } from '../errors.js';

/** The page's built files; `npm run build` bundles them from src/inspector/page with esbuild. */
export interface PageAssets {
  script: Buffer;
  style: Buffer;
}

/**
 * dist/inspector-page sits next to both the library build (dist/inspector) and the CLI bundle
 * (dist/cli-bundle), so the same relative URL finds it from either.
 */
export async function loadPageAssets(dir = new URL('../inspector-page/', import.meta.url)): Promise<PageAssets> {
  try {
    const [script, style] = await Promise.all([readFile(new URL('app.js', dir)), readFile(new URL('app.css', dir))]);
    return { script, style };
  } catch (error) {
    throw new LedgerhookError('ERR_IO', `the inspector page is not built (${dir.pathname}): run npm run build`, {
      cause: error,
      details: { reason: 'inspector_page_missing' },
    });
  }
}

/** The HTML shell: static, holds no captured value (everything is built with textContent). */
export function pageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>ledgerhook inspector</title>
<link rel="icon" href="favicon.svg">
<link rel="stylesheet" href="app.css">
<script type="module" src="app.js"></script>
</head>
<body>
<noscript>The ledgerhook inspector needs JavaScript.</noscript>
</body>
</html>
`;
}

/** A served icon, so that the browser does not ask for /favicon.ico (outside the token, a 403). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0969da"/><path d="M4 8.5l2.5 2.5L12 5" stroke="#fff" stroke-width="2" fill="none"/></svg>';

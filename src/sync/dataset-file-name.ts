/** `/expenses` + type=PENDING → `expenses.type=PENDING.json`; safe on every file system. */
export function datasetFileName(path: string, filter: Record<string, string> = {}): string {
  const clean = (text: string) => text.replace(/[^A-Za-z0-9_.=-]+/g, '_');
  const base = path.replace(/^\/+|\/+$/g, '').split('/').map(clean).join('.') || 'root';
  const parts = Object.entries(filter).sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => `${clean(key)}=${clean(value)}`);
  return `${[base, ...parts].join('.')}.json`;
}

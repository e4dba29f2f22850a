/** A plain text table: columns padded to their widest cell, no borders (easy to grep and read). */
export function table(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  paint: (text: string) => string = (t) => t,
): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes, which start with ESC
  const visible = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths = header.map((title, column) =>
    Math.max(visible(title), ...rows.map((row) => visible(row[column] ?? ''))),
  );
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - visible(cell)),
      )
      .join('  ')
      .trimEnd();
  return [paint(format(header)), ...rows.map(format)].join('\n');
}

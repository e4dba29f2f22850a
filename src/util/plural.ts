/** "1 delivery", "2 deliveries": counts in messages read right. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

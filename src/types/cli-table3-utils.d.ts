/** cli-table3's internal utils module (no types of its own): report/table-truncate.ts patches its truncate. */
declare module 'cli-table3/src/utils.js' {
  const utils: {
    strlen(str: string): number
    truncate(str: string, desiredLength: number, truncateChar?: string): string
  }
  export default utils
}

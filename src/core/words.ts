import { grouped } from "../shared/digits";

/** Counts in words for what users read: "1 file", "2 files" (never "file(s)"). */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${grouped(n)} ${n === 1 ? one : many}`;
}

/**
 * How data from outside (webview messages, the agent's wire, storage, settings) is checked: a zod
 * error said in one line, and a stored list read entry by entry, keeping the entries that fit.
 */
import type { z } from "zod";

/** The first few problems of a failed parse, one line: `path: message; …`. */
export function zodProblem(error: z.ZodError): string {
  return error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/**
 * A list read back from storage or settings (undefined: nothing there). Entries that do not match
 * `schema` are left out, each with a reason (`entry 3: path: message`); a value that is not a list
 * at all gives no entries and one reason.
 */
export function parseList<T>(schema: z.ZodType<T>, raw: unknown, what: string): { items: T[]; problems: string[] } {
  if (raw === undefined) return { items: [], problems: [] };
  if (!Array.isArray(raw)) return { items: [], problems: [`${what} is ${raw === null ? "null" : typeof raw}, not a list`] };
  const items: T[] = [];
  const problems: string[] = [];
  raw.forEach((entry: unknown, i) => {
    const r = schema.safeParse(entry);
    if (r.success) items.push(r.data);
    else problems.push(`entry ${i}: ${zodProblem(r.error)}`);
  });
  return { items, problems };
}

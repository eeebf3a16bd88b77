/**
 * Golden files for the unit tests: a value is compared, as pretty JSON, with a checked-in file.
 * `UPDATE_GOLDEN=1 npm run test:unit` rewrites the files (review the git diff before committing).
 * A difference fails with a unified diff of the two texts, so the change can be read in the report.
 */
import { AssertionError } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { createTwoFilesPatch } from "diff";

/** The text a golden file holds for `value`. */
export function goldenText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Asserts `value` matches the golden file at `file` (or rewrites it under UPDATE_GOLDEN). */
export function matchGolden(file: string, value: unknown): void {
  const actual = goldenText(value);
  if (process.env.UPDATE_GOLDEN) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  const name = path.relative(process.cwd(), file);
  if (!fs.existsSync(file)) throw new AssertionError({ message: `${name} is missing; create it with UPDATE_GOLDEN=1 npm run test:unit` });
  const expected = fs.readFileSync(file, "utf8");
  if (actual === expected) return;
  const patch = createTwoFilesPatch(`${name} (golden)`, `${name} (now)`, expected, actual, undefined, undefined, { context: 3 });
  throw new AssertionError({
    message: `${name} differs from what the code produces now (UPDATE_GOLDEN=1 npm run test:unit rewrites it, if the change is intended):\n${patch.split("\n").slice(2).join("\n")}`,
  });
}

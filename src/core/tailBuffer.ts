/**
 * The last `limit` characters of a stream (a terminal's scrollback), kept without copying what is
 * kept on every append; and the end of a text cut at a line start, for a terminal to show below a
 * "skipped" marker. Sizes are in characters (UTF-16 code units); for terminal output, nearly
 * always bytes.
 */

/** Texts shorter than this are gathered and joined before they are kept, so tiny deltas cost no more than big ones. */
const SMALL_CHARS = 8192;

/** The last `limit` characters of a stream. Appending never copies what is kept. */
export class TailBuffer {
  private chunks: string[] = [];
  private head = 0;
  private small: string[] = [];
  private smallChars = 0;
  /** Characters in chunks[head…] and small. */
  private chars = 0;
  /** Every character ever appended (since the last clear). */
  private total = 0;

  constructor(private readonly limit: number) {}

  append(text: string): void {
    if (!text) return;
    this.total += text.length;
    if (text.length >= this.limit) {
      // Copy the tail: a slice would keep the whole (possibly huge) string alive.
      const tail = copyOf(dropBrokenStart(text.slice(text.length - this.limit)));
      this.chunks = [tail];
      this.head = 0;
      this.small = [];
      this.smallChars = 0;
      this.chars = tail.length;
      return;
    }
    this.chars += text.length;
    if (text.length < SMALL_CHARS) {
      this.small.push(text);
      this.smallChars += text.length;
      if (this.smallChars >= SMALL_CHARS) this.sealSmall();
    } else {
      this.sealSmall();
      this.chunks.push(text);
    }
    while (this.head < this.chunks.length && this.chars - this.chunks[this.head]!.length >= this.limit) {
      this.chars -= this.chunks[this.head]!.length;
      this.chunks[this.head++] = "";
    }
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  private sealSmall(): void {
    if (!this.small.length) return;
    this.chunks.push(this.small.length === 1 ? this.small[0]! : this.small.join(""));
    this.small = [];
    this.smallChars = 0;
  }

  /** The last `limit` characters appended (all of them when fewer arrived). */
  text(): string {
    const parts = this.head ? this.chunks.slice(this.head) : this.chunks.slice();
    if (this.small.length) parts.push(...this.small);
    const all = parts.join("");
    return all.length > this.limit ? dropBrokenStart(all.slice(all.length - this.limit)) : all;
  }

  /** Characters appended that `text()` no longer has. */
  get skipped(): number {
    return this.total - Math.min(this.chars, this.limit);
  }

  get isEmpty(): boolean {
    return this.total === 0;
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.small = [];
    this.smallChars = 0;
    this.chars = 0;
    this.total = 0;
  }
}

/** A fresh flat copy (V8 slices share, and keep alive, their parent string). */
function copyOf(s: string): string {
  return Buffer.from(s, "utf16le").toString("utf16le");
}

/** Drops a low surrogate left at the start by cutting a character in two. */
function dropBrokenStart(s: string): string {
  const c = s.charCodeAt(0);
  return c >= 0xdc00 && c <= 0xdfff ? s.slice(1) : s;
}

/** The end of `text`: at most `maxChars` characters and `maxLines` lines, from a line start when one is near. */
export function tailOf(text: string, maxChars: number, maxLines: number): string {
  let start = Math.max(0, text.length - maxChars);
  let lines = 0;
  for (let p = text.lastIndexOf("\n", text.length - 2); p >= start && p > 0; p = text.lastIndexOf("\n", p - 1)) {
    if (++lines >= maxLines) {
      start = p + 1;
      break;
    }
  }
  if (start > 0 && text[start - 1] !== "\n") {
    const nl = text.indexOf("\n", start);
    if (nl !== -1 && nl - start < 4096 && nl < text.length - 1) start = nl + 1;
  }
  return dropBrokenStart(text.slice(start));
}

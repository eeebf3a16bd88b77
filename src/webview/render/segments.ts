/**
 * Long text drawn as plain text in segments appended to: a thought past THOUGHT_MARKDOWN_MAX or a
 * message past MESSAGE_MARKDOWN_MAX after its markdown start (entries.ts), and a long thought
 * streaming while folded. Streaming, each frame lays out one small block, not the whole text; the
 * blocks go in groups laid out and painted only near the view (panel.css).
 */
import { pairSafeEnd } from "../../shared/utf16";
import { cleanBlock, h, selectedRange } from "../dom";
import { lastLineStart } from "../lineStart";
import { estimateBox } from "./nearby";

/**
 * Start a new segment at the next line break once a segment holds this much text, or at a space
 * once it holds SEGMENT_HARD (a little past it, so the cut falls between words), or there even
 * mid-word (text with no spaces, such as Chinese or Japanese). Appending then lays out one small
 * block each frame, not the whole text: browsers lay out a block's lines again from its start
 * when text is added (a 64 KiB line of Chinese took over 100 ms a frame). A segment with no line
 * break to end it is cut where its drawn text starts a line (not seen: see append); text drawn
 * plain at once (a thought or message that grew past its markdown length, or was picked) is not laid out yet
 * and is cut at spaces, where a cut shows as a line break.
 */
const SEGMENT_SOFT = 1024;
const SEGMENT_HARD = 2048;
/** How far past SEGMENT_HARD a segment may run to end at a space. */
const SEGMENT_SLACK = 256;
/** How long a segment may grow while it waits to be cut where a drawn line starts (what one frame lays out at most). */
const SEGMENT_MOST = 2 * SEGMENT_HARD;
/**
 * Segment blocks go in groups of this many (about 8 KB of text), which the browser lays out and
 * paints only near the view (panel.css). It checks each group's distance from the view after every
 * layout: 600 groups of a 5 MB thought instead of 2,400 blocks (a 5 MB thought streamed with tasks
 * of 54-98 ms instead of 85-160, found a rare text with none over 50 ms). A group coming into view
 * is laid out whole, so groups stay small: 16 blocks (32 KB) of Chinese took 100-120 ms.
 */
const SEGMENTS_PER_GROUP = 4;


export class PlainSegments {
  /** The segment appended to, and how long it is. */
  private seg: Text | undefined;
  private segLen = 0;

  /**
   * `box`: the element the segments go in (after a markdown start, if it holds one). `sized`: each
   * group carries what its estimated height is made of (a message's, in the transcript itself; a
   * thought's groups are in its own box, where a fixed guess does).
   */
  constructor(private readonly box: HTMLElement, private readonly sized = false) {}

  /** Nothing drawn: the box emptied. */
  clear(): void {
    this.box.replaceChildren();
    this.seg = undefined;
  }

  /** What is appended next starts a segment of its own (the box's last element is not one: a markdown start was drawn). */
  endSegment(): void {
    this.seg = undefined;
  }

  /** `text` (which may hold text already) is the segment appended to from now on. */
  private startSegment(text: Text): Text {
    this.seg = text;
    this.segLen = text.length;
    // The first segment sits in the box itself; later ones get their own block, in groups.
    if (!this.box.firstChild) this.box.append(text);
    else {
      // The last group (the box's last element, not a markdown start) while it has room, else a new one.
      let group = this.box.lastElementChild;
      if (!group?.classList.contains("segs") || group.childElementCount >= SEGMENTS_PER_GROUP) {
        if (this.sized && group?.classList.contains("segs")) sizeGroup(group);
        this.box.append(group = h("div", { class: "segs" }));
      }
      group.append(h("div", { class: "seg" }, text));
    }
    return text;
  }

  /** `raw` (cleaned here) drawn after what is drawn. */
  append(raw: string): void {
    let s = cleanBlock(raw);
    // The segment being appended to as the last frame drew it (laid out): where its last line starts can be read.
    let drawn = this.seg !== undefined && this.segLen > 0;
    while (s.length > 0) {
      const seg = this.seg ?? this.startSegment(document.createTextNode(""));
      let take = s.length;
      if (this.segLen + s.length > SEGMENT_SOFT) {
        const limit = Math.max(1, SEGMENT_HARD - this.segLen);
        const nl = s.indexOf("\n", Math.max(0, SEGMENT_SOFT - this.segLen));
        if (nl >= 0 && nl < limit + SEGMENT_SLACK) take = nl + 1;
        else if (s.length > limit) {
          // No line break to end it: it ends where its last drawn line starts and the next goes on
          // from there, the cut not seen (lastLineStart). Not laid out yet, or too short to cut so,
          // it takes what came (up to SEGMENT_MOST) and is cut so in a later frame. Else at a space,
          // where the cut shows as a line break.
          const line = drawn ? lastLineStart(seg, SEGMENT_SOFT) : undefined;
          drawn = false;
          if (line !== undefined) {
            // The last line goes on in a segment of its own. The reader's selection keeps its ends
            // in it (the split moves them there; moving the node would put them outside).
            const last = seg.splitText(line);
            const range = selectedRange();
            const from = range?.startContainer === last ? range.startOffset : -1;
            const to = range?.endContainer === last ? range.endOffset : -1;
            this.startSegment(last);
            if (range && from >= 0) range.setStart(last, from);
            if (range && to >= 0) range.setEnd(last, to);
            continue;
          }
          if (this.segLen + s.length > SEGMENT_MOST) {
            const sp = s.lastIndexOf(" ", limit + SEGMENT_SLACK - 1);
            take = sp >= Math.max(0, SEGMENT_SOFT - this.segLen) ? sp + 1 : limit;
          }
        }
        if (take > 1) take = pairSafeEnd(s, take);
      }
      drawn = false;
      seg.appendData(s.slice(0, take));
      this.segLen += take;
      s = s.slice(take);
      if (s.length > 0) this.seg = undefined;
    }
    const last = this.box.lastElementChild;
    if (this.sized && last?.classList.contains("segs")) sizeGroup(last);
  }
}

/**
 * A group's estimated height while it is not laid out (panel.css), from its text: a message's
 * groups are in the transcript itself, where a guess far from the laid-out height could move what
 * the reader sees as groups above the view are laid out.
 */
function sizeGroup(group: Element): void {
  // (Plain text: every line break ends a line.)
  if (group instanceof HTMLElement) estimateBox(group, group.textContent ?? "", 0);
}

/**
 * Cutting text by UTF-16 units without splitting a surrogate pair (an emoji or a rare CJK
 * character cut in half shows as two replacement marks), shared by every place that cuts text:
 * bounds on events, transcripts and ids, terminal titles, and the webview's text blocks.
 */

/** `end`, or one less when cutting `s` there would split a surrogate pair. */
export function pairSafeEnd(s: string, end: number): number {
  if (end <= 0 || end >= s.length) return end;
  const code = s.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

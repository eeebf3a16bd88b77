/**
 * Post-write work for the current frame. Renderers queue what needs layout (scroll positions) and
 * the panel runs the queue once after all DOM writes, so a frame forces at most one layout.
 */

const queue: (() => void)[] = [];

export function afterLayout(fn: () => void): void {
  queue.push(fn);
}

/** Runs the queued work; the panel calls it at the end of each frame (and after direct UI toggles). */
export function runAfterLayout(): void {
  const fns = queue.splice(0);
  for (const fn of fns) fn();
}

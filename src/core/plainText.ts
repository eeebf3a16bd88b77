/**
 * Agent text shown in a VS Code notification, modal or status item must stay text: VS Code turns
 * `[label](command:… | https:… | file:…)` in a notification into a clickable link (a `command:`
 * link runs that command), and `$(name)` in status items into an icon. `plainText` breaks both
 * patterns with an invisible word joiner, so the words read the same and nothing is a link.
 */
const JOINER = "\u2060";

export function plainText(text: string): string {
  return text.replace(/\]\(/g, `]${JOINER}(`).replace(/\$\(/g, `$${JOINER}(`);
}

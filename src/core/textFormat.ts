// Markdown escaping and percentages: the text helpers every view's tooltips and documents share.

/** Escape text for a Markdown tooltip (labels and messages come from users and hosts). */
export function md(text: string): string {
  // ':' and '@' too: an escaped "https\:" or "a\@b" cannot start a GFM autolink, which VS Code's
  // Markdown renderer would otherwise make from plain server text.
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~:@]/g, (c) => `\\${c}`);
}

export function pct(f: number | null | undefined): string | undefined {
  return typeof f === 'number' ? `${(f * 100).toFixed(1)}%` : undefined;
}

// Which workspace files are templates: the gpuRental.templateGlob setting (default
// `.gpu/*.json`) as a matcher. Apart from discovery (src/create/templateDiscovery.ts), which
// parses the files, so the activation bundle can tell a template file by its name alone.
import * as path from 'node:path';

export const DEFAULT_TEMPLATE_GLOB = '.gpu/*.json';

/** Glob -> RegExp over '/'-separated relative paths: `*`, `?`, `**`, `{a,b}`. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:[^/]+/)*';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(',')
          .map((p) => p.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
          .join('|')})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function matchesGlob(relativePath: string, glob: string): boolean {
  return globToRegExp(glob.replace(/^\.\//, '')).test(relativePath.split(path.sep).join('/'));
}

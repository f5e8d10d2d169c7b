// Finds template files in a workspace folder by the gpuRental.templateGlob setting
// (src/create/templateGlob.ts) and reads their name/description for pick lists.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseJsonc } from './jsonc';
import { DEFAULT_TEMPLATE_GLOB, globToRegExp } from './templateGlob';

export interface TemplateFileInfo {
  /** Absolute path. */
  file: string;
  /** Workspace-relative, '/'-separated. */
  relativePath: string;
  /** `name` from the file, else the file name. */
  name: string;
  description?: string;
  /** The file does not parse; it is still listed so the user can open it. */
  broken?: boolean;
}

const SKIP = new Set(['node_modules', '.git', 'out', 'dist']);

/** Walks `root` (bounded depth) and returns the files matching `glob`, sorted by path. */
/** @internal test */
export async function discoverTemplates(root: string, glob: string = DEFAULT_TEMPLATE_GLOB, maxDepth = 6): Promise<TemplateFileInfo[]> {
  const re = globToRegExp(glob.replace(/^\.\//, ''));
  const found: string[] = [];
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP.has(e.name) && depth < maxDepth) await walk(path.join(dir, e.name), r, depth + 1);
      } else if (e.isFile() && re.test(r)) found.push(r);
    }
  };
  await walk(root, '', 0);
  found.sort();
  return Promise.all(found.map((r) => describeTemplateFile(path.join(root, ...r.split('/')), r)));
}

export async function describeTemplateFile(file: string, relativePath: string): Promise<TemplateFileInfo> {
  const fallback = path.basename(file).replace(/\.jsonc?$/, '');
  try {
    return describeTemplateText(await fs.readFile(file, 'utf8'), file, relativePath, fallback);
  } catch {
    return { file, relativePath, name: fallback, broken: true };
  }
}

export function describeTemplateText(text: string, file: string, relativePath: string, fallbackName: string): TemplateFileInfo {
  const parsed = parseJsonc(text);
  const v = parsed.value as { name?: unknown; description?: unknown } | undefined;
  const info: TemplateFileInfo = { file, relativePath, name: fallbackName };
  if (parsed.errors.length || !v || typeof v !== 'object') info.broken = true;
  else {
    if (typeof v.name === 'string' && v.name) info.name = v.name;
    if (typeof v.description === 'string') info.description = v.description;
  }
  return info;
}

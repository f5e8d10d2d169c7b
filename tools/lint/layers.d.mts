export declare const FOLDERS: string[];
export declare const ALLOWED: Record<string, string[]>;
export declare const VSCODE_PARTS: string;
export interface Part {
  folder: string;
  node: string;
  ui: boolean;
  command: boolean;
  /** The file, relative to src/. */
  path: string;
}
export interface ImportEdge {
  from: Part;
  to: Part | 'vscode';
  spec: string;
  file: string;
}
export declare function partOf(srcDir: string, file: string): Part;
export declare const COMMAND_TABLE: string;
export declare function forbidden(from: Part, to: Part): string | undefined;
export declare function importEdges(srcDir: string): ImportEdge[];
export declare function folderCycles(edges: ImportEdge[]): string[][];
export declare function checkLayers(srcDir: string): string[];
export declare function sameBaseNames(srcDir: string): string[];

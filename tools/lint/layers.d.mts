export declare const FOLDERS: string[];
export declare const ALLOWED: Record<string, string[]>;
export declare const USES_VSCODE: string[];
export interface ImportEdge {
  from: string;
  to: string;
  spec: string;
  file: string;
}
export declare function importEdges(srcDir: string): ImportEdge[];
export declare function folderCycles(edges: ImportEdge[]): string[][];
export declare function checkLayers(srcDir: string): string[];

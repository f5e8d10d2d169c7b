export declare function unusedExports(root: string, options?: { tsconfig?: string; entries?: string[]; outside?: Record<string, string[]> }): string[];

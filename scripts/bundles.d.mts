export declare function bundleName(root: string, file: string): string;
export declare function findLazyModules(root: string, entry: string, options?: Record<string, unknown>): Promise<Map<string, string>>;
/** Programs built on their own (dist/<name>.js), by name: their src/ entry. */
export declare const programs: Record<string, string>;
/** Packages every bundle of the extension loads from one dist/<name>.js, by name: the package. */
export declare const sharedPackages: Record<string, string>;
export declare const STATEFUL: RegExp;
export declare const PER_BUNDLE: string;
export declare function statefulLines(text: string): string[];
export interface BundleMeta {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}
export declare function statefulCopies(root: string, metafiles: Array<BundleMeta | undefined>): Array<[string, string[]]>;

export declare function skippedTests(tap: string): string[];
export declare function failedTests(tap: string): string[];

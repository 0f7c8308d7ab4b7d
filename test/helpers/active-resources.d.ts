export function activeResources(): string[];
export function addedResources(before: readonly string[], now: readonly string[]): string[];

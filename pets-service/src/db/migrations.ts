/**
 * What both engines' migrators share: the shape of a migration and the rule for what to apply.
 * Each engine keeps its own list (the SQL dialects differ); a version number means the same
 * schema on both, so a version is added to both lists at once.
 */
export interface Migration {
  /** Strictly increasing from 1; recorded once applied. */
  readonly version: number;
  readonly sql: string;
}

export interface MigrationResult {
  readonly from: number;
  readonly to: number;
  readonly applied: number;
}

/**
 * The migrations to apply to a schema at version `current`, in order. A schema newer than this
 * build is refused rather than touched: an older build must not write into a shape it does not know.
 */
export function pendingMigrations(current: number, migrations: readonly Migration[]): readonly Migration[] {
  const latest = latestVersion(migrations);
  if (current > latest) {
    throw new Error(`the database schema is version ${current}, newer than this build knows (${latest}); refusing to touch it`);
  }
  return migrations.filter((migration) => migration.version > current);
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.at(-1)?.version ?? 0;
}

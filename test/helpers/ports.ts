// Moved to tools/ (shared with bench/, which must not depend on test/); kept so tests' imports stay.
export * from '../../tools/ports';

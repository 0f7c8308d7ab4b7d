import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Express } from 'express';
import { createLogger } from '../../shared/src/logger';
import { signInternalToken, signServiceToken } from '../../shared/src/internal-token';
import { createApp } from '../src/app';
import { openDatabase } from '../src/db/database';
import { createPetRepository } from '../src/pets/pet-repository';
import { createPetService } from '../src/pets/pet-service';
import type { NewPet, Pet } from '../../shared/src/pets';

export const SECRET = 'test-internal-secret-0123456789abcdef';

export function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'pets-service-test-'));
}

/** The app on a real SQLite file in a fresh temp folder, exactly as main.ts wires it. */
export interface TestPetsService {
  readonly app: Express;
  readonly db: Database.Database;
  readonly dbPath: string;
  /** A valid gateway token, as the gateway would send. */
  readonly auth: string;
  /** Creates pets straight through the service, for tests about reading. */
  seed(pets: NewPet[]): Pet[];
  close(): void;
}

export function startTestService({ publicBaseUrl }: { publicBaseUrl?: string } = {}): TestPetsService {
  const dir = tempDir();
  const dbPath = path.join(dir, 'pets.db');
  const { db } = openDatabase(dbPath);
  const service = createPetService(createPetRepository(db));
  const app = createApp({ service, logger: createLogger('pets-service-test', 'silent'), internalTokenSecret: SECRET, publicBaseUrl });
  return {
    app,
    db,
    dbPath,
    auth: `Bearer ${gatewayToken()}`,
    seed: (pets) => pets.map((pet) => service.createPet({ status: 'available', ...pet })),
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function gatewayToken(secret = SECRET): string {
  return signInternalToken(secret, { issuer: 'gateway', subject: 'account-1' });
}

export function serviceToken(name: string, secret = SECRET): string {
  return signServiceToken(name, secret);
}

export const PET_STATUS_CYCLE = ['available', 'pending', 'sold'] as const;

/** `count` pets whose status cycles through the three values. */
export function somePets(count: number): NewPet[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `pet-${i + 1}`,
    categoryId: (i % 4) + 1,
    status: PET_STATUS_CYCLE[i % 3],
  }));
}

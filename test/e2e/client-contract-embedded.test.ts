import { startSystem, type SystemHandle } from '../helpers/system';
import { clientContract } from './client-contract';

/** The client contract on the embedded defaults: SQLite, the in-process store, one of each process. */
describe('the client contract on the embedded defaults', () => {
  let system: SystemHandle;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  clientContract(() => ({ gateways: system.gateways.map((g) => g.url), adminUrl: system.gateways[0]!.adminUrl }));
});

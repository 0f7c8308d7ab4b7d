import { BUILT_IN_PLANS } from '../../src/accounts/types';
import type { PlanRecords } from '../../src/accounts/account-store';

/** Plans: the built-in numbers until an operator sets others. */
export function plansContract(store: PlanRecords): void {
  describe('plans', () => {
    it('when nothing was changed, then the four built-in plans are listed in order', async () => {
      expect(await store.listPlans()).toEqual(BUILT_IN_PLANS);
      expect(await store.getPlan('enterprise')).toEqual({ name: 'enterprise', perMinute: null, perDay: null });
      expect(await store.getPlan('free')).toEqual({ name: 'free', perMinute: 60, perDay: 1_000 });
    });

    it('when a plan is set, then it replaces the built-in numbers and the others stay', async () => {
      await store.setPlan({ name: 'pro', perMinute: 500, perDay: 20_000 });
      expect(await store.getPlan('pro')).toEqual({ name: 'pro', perMinute: 500, perDay: 20_000 });
      const plans = await store.listPlans();
      expect(plans.map((plan) => plan.name)).toEqual(['free', 'pro', 'business', 'enterprise']);
      expect(plans[1]).toEqual({ name: 'pro', perMinute: 500, perDay: 20_000 });
      expect(plans[0]).toEqual(BUILT_IN_PLANS[0]);
    });

    it('when a returned plan is mutated, then the stored one does not change', async () => {
      const plan = await store.getPlan('free');
      plan.perMinute = 1;
      (await store.listPlans())[0]!.perDay = 1;
      expect(await store.getPlan('free')).toEqual(BUILT_IN_PLANS[0]);
    });
  });
}

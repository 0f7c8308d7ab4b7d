import { Webhook } from 'standardwebhooks';
import { deliveryBody } from './event-types';
import { newWebhookSecret } from './secret';
import { signatureHeaders } from './signature';

describe('signatureHeaders', () => {
  it('when a body is signed, then the standardwebhooks library verifies it and refuses a changed body', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = deliveryBody({ type: 'webhook.test', at: Date.now(), data: { accountId: 'acct_1' } });
    const headers = signatureHeaders('evt_1', body, secret, Date.now());
    const receiver = new Webhook(secret);
    expect(receiver.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => receiver.verify(body.replace('acct_1', 'acct_2'), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

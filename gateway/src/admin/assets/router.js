// Which view the address asks for: `#accounts`, `#account/ID`, `#usage`, `#audit`, so the back
// button works and a view can be linked to.

import { token } from './admin-api.js';
import { showAccount } from './account-view.js';
import { showAccounts } from './accounts-view.js';
import { showAudit } from './audit-view.js';
import { status } from './dom.js';
import { showUsage } from './usage-view.js';

export async function route() {
  if (!token()) return;
  const [section, id] = location.hash.replace(/^#/, '').split('/');
  status('');
  try {
    if (section === 'account' && id) await showAccount(decodeURIComponent(id));
    else if (section === 'usage') await showUsage();
    else if (section === 'audit') await showAudit();
    else await showAccounts();
  } catch (error) {
    if (error.status !== 401) status(`Error: ${error.message}`);
  }
}

// The gap between two scheduled etcd snapshots, for the schedules K3s/RKE2 users write.
import { expect, test } from '@jest/globals';
import { longestGapMs } from '../src/lib/cron.js';

const H = 3_600_000;
test.each([
  ['0 */12 * * *', 12 * H], // the K3s default
  ['0 */6 * * *', 6 * H],
  ['*/5 * * * *', 5 * 60_000],
  ['0 0 * * *', 24 * H],
  ['@daily', 24 * H],
  ['@every 6h', 6 * H],
  ['@every 1h30m', 1.5 * H],
  ['0 2 * * 1-5', 72 * H], // weekdays: Friday 02:00 to Monday 02:00
  ['0 3 * * sun', 7 * 24 * H],
  ['30 1,13 * * *', 12 * H],
])('%s runs at least every %d ms', (cron, gap) => {
  expect(longestGapMs(cron)).toBe(gap);
});

test.each(['0 \\*/6 \\* \\* \\*', '', '0 */12 * *', '61 * * * *', 'every day', '0 0 31 2 *'])('%s never fires: null', (cron) => {
  expect(longestGapMs(cron)).toBeNull();
});

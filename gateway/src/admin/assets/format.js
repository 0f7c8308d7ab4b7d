// How the ops console writes numbers, times, shares and plans.

const numberFormat = new Intl.NumberFormat('en');
export const formatNumber = (n) => (n === null || n === undefined ? '—' : numberFormat.format(n));
/** ISO 8601 → `2026-01-02 03:04:05` (UTC, as the API gives it). */
export const formatTime = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, '').replace(/Z$/, '') : '—');
/** A share of quota as a whole percentage; a little use never reads as 0%. */
export const shareOf = (used, quota) => {
  const percent = (used / quota) * 100;
  return percent > 0 && percent < 1 ? '<1%' : `${Math.round(percent)}%`;
};
export const planLabel = (plan) => plan.charAt(0).toUpperCase() + plan.slice(1);

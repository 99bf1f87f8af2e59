/**
 * A batch item gives a due date (a calendar day); the charge needs an instant. A boleto is
 * payable through its whole due day in Brasília, so the instant is that day's last second there
 * (UTC−3, no daylight saving since 2019): the due date printed and encoded is that same day.
 */
export function endOfDueDateInBrasilia(dueDate: string): string {
  return new Date(`${dueDate}T23:59:59-03:00`).toISOString();
}

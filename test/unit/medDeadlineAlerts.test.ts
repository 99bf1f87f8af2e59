/**
 * The MED case's alerts before the PSP's deadline (core/med/deadlineAlerts.ts): 48, 24 and 6 h;
 * a case read late gets only the nearest passed alert, at once; the answer for the merchant goes
 * 15 minutes before the deadline (a tenth of a short window). And what an evidence file is, by
 * its bytes (core/storage/evidenceType.ts).
 */
import { answerAtMs, deadlineAlertMail, plannedAlerts } from '../../core/med/deadlineAlerts';
import { detectEvidenceType } from '../../core/storage/evidenceType';

const H = 3_600_000;
const deadline = Date.parse('2026-12-08T12:00:00Z');

it('a case read a week ahead: the three alerts at 48, 24 and 6 h before the deadline', () => {
  expect(plannedAlerts(deadline, deadline - 7 * 24 * H)).toEqual([
    { hoursLeft: 48, atMs: deadline - 48 * H },
    { hoursLeft: 24, atMs: deadline - 24 * H },
    { hoursLeft: 6, atMs: deadline - 6 * H },
  ]);
});

it.each([
  [30, [48, 24, 6]],
  [20, [24, 6]],
  [5, [6]],
  [0.001, [6]],
])('a case read with %s h left: the nearest passed alert at once, then the later ones (%j)', (left, hours) => {
  const now = deadline - left * H;
  const planned = plannedAlerts(deadline, now);
  expect(planned.map((a) => a.hoursLeft)).toEqual(hours);
  expect(planned[0].atMs).toBeLessThanOrEqual(now);
  for (const a of planned.slice(1)) expect(a.atMs).toBeGreaterThan(now);
});

it('a case read at or after its deadline: no alert', () => {
  expect(plannedAlerts(deadline, deadline)).toEqual([]);
  expect(plannedAlerts(deadline, deadline + H)).toEqual([]);
});

it('the answer for the merchant: 15 minutes before the deadline, a tenth of a short window, never after it', () => {
  expect(answerAtMs(deadline, deadline - 7 * 24 * H)).toBe(deadline - 15 * 60_000);
  expect(answerAtMs(deadline, deadline - 20_000)).toBe(deadline - 2_000);
  expect(answerAtMs(deadline, deadline + 5_000)).toBe(deadline);
});

it('the alert mail names the case, the amount and the deadline', () => {
  const mail = deadlineAlertMail({
    infractionId: 'inf-1',
    hoursLeft: 6,
    deadlineAt: new Date(deadline),
    disputedAmountCents: 12_345,
    endToEndId: 'E123',
  });
  expect(mail.subject).toBe('MED: 6 h left to answer the Pix infraction inf-1');
  expect(mail.text).toContain('R$ 123,45');
  expect(mail.text).toContain('2026-12-08T12:00:00Z (UTC)');
  expect(mail.text).toContain('POST /med/infractions/inf-1/defence');
});

it('evidence type by its bytes: PDF, PNG, JPEG; text, HTML, a zip and WebP are not evidence', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  expect(detectEvidenceType(Buffer.from('%PDF-1.7\n%âãÏÓ\n', 'latin1'))).toBe('application/pdf');
  expect(detectEvidenceType(png)).toBe('image/png');
  expect(detectEvidenceType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg');
  expect(detectEvidenceType(Buffer.from('hello, this is text only'))).toBeNull();
  expect(detectEvidenceType(Buffer.from('<html><body>%PDF-1.4'))).toBeNull();
  expect(detectEvidenceType(Buffer.from('504b0304140000000800', 'hex'))).toBeNull();
  expect(detectEvidenceType(Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1'))).toBeNull();
  expect(detectEvidenceType(Buffer.from('%PDF-'))).toBeNull();
});

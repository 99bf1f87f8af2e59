/**
 * The P0 envelope on failures no HTTP test can provoke on purpose: an unexpected exception is a
 * 500 INTERNAL_ERROR with no internal detail, in {data: null, success: false, error}. And the
 * pure pieces of P0 checkouts: bill_ ids, the derived charge id, the session status.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { p0Errors } from '../../api/checkouts/partner/envelope';
import { chargeIdOf } from '../../api/checkouts/issueCheckout';
import { billId, checkoutPageUrl, parseBillId } from '../../core/checkouts/urls';
import { sessionStatus } from '../../core/checkouts/present';

it('answers an unexpected exception as 500 INTERNAL_ERROR in the P0 envelope, without the message', async () => {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.traceId = 't-1';
    next();
  });
  app.get('/v1/checkouts', () => {
    throw new Error('secret internal detail');
  });
  app.use('/v1/checkouts', p0Errors(pino({ level: 'silent' })));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/checkouts`);
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toEqual({
      data: null,
      success: false,
      error: { code: 'INTERNAL_ERROR', message: expect.any(String) },
    });
    expect(JSON.stringify(body)).not.toContain('secret internal detail');
  } finally {
    server.close();
  }
});

it('reads bill_ ids strictly and builds page URLs from the UUID', () => {
  const id = '0b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11';
  expect(parseBillId(billId(id))).toBe(id);
  expect(parseBillId(`bill_${id.toUpperCase()}`)).toBe(id);
  for (const bad of [id, 'bill_', `bill_${id}x`, ` bill_${id}`, `BILL_${id}`]) expect(parseBillId(bad)).toBeNull();
  expect(checkoutPageUrl('https://pay.example.com/', id)).toBe(`https://pay.example.com/c/${id}`);
});

it('derives one stable UUID charge id per checkout', () => {
  const a = chargeIdOf('0b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11');
  expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(chargeIdOf('0b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11')).toBe(a);
  expect(chargeIdOf('1b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11')).not.toBe(a);
});

it('maps the P0 status and opened_at to the session status', () => {
  expect(sessionStatus({ status: 'PENDING', openedAt: null })).toBe('CREATED');
  expect(sessionStatus({ status: 'PENDING', openedAt: new Date() })).toBe('OPENED');
  expect(sessionStatus({ status: 'PAID', openedAt: null })).toBe('COMPLETED');
  expect(sessionStatus({ status: 'REFUNDED', openedAt: null })).toBe('COMPLETED');
  expect(sessionStatus({ status: 'EXPIRED', openedAt: null })).toBe('EXPIRED');
  expect(sessionStatus({ status: 'CANCELLED', openedAt: null })).toBe('EXPIRED');
});

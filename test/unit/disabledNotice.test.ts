import { describeFailure, endpointDisabledNotice, shownUrl } from '../../core/events/disabledNotice';

it('describes the last failure in our words, never the receiver’s', () => {
  expect(describeFailure(500, 'HTTP 500: <html>stack trace, internal host names</html>')).toBe(
    'the receiver answered HTTP 500',
  );
  expect(describeFailure(null, 'no answer within 10 s')).toBe('no answer within 10 s');
  expect(describeFailure(null, 'connection failed: ECONNREFUSED')).toBe('the connection failed (ECONNREFUSED)');
  expect(describeFailure(null, 'DESTINATION_NOT_ALLOWED: destination not allowed: …')).toMatch(/not allowed/);
  expect(describeFailure(null, 'something else entirely')).toBe('the request failed');
});

it('shows the URL without its query string', () => {
  expect(shownUrl('https://loja.example/hooks?token=abc#x')).toBe(
    'https://loja.example/hooks (query string not shown)',
  );
  expect(shownUrl('https://loja.example/hooks')).toBe('https://loja.example/hooks');
});

it('says which endpoint, since when, the last failure and how to re-enable it', () => {
  const { subject, text } = endpointDisabledNotice({
    id: '5f0c6f9e-0000-4000-8000-000000000001',
    url: 'https://loja.example/hooks?token=abc',
    disabledAt: new Date('2026-11-26T03:00:00.123Z'),
    failingSince: new Date('2026-11-23T02:59:00Z'),
    lastStatusCode: 502,
    lastError: 'HTTP 502: bad gateway from nginx',
  });
  expect(subject).not.toMatch(/[\r\n]/);
  expect(text).toContain('5f0c6f9e-0000-4000-8000-000000000001 (https://loja.example/hooks (query string not shown))');
  expect(text).toContain('failing since 2026-11-23T02:59:00Z (UTC)');
  expect(text).toContain('disabled at 2026-11-26T03:00:00Z (UTC)');
  expect(text).toContain('The last attempt: the receiver answered HTTP 502.');
  expect(text).toContain('PATCH /sellers/webhooks/5f0c6f9e-0000-4000-8000-000000000001 with {"active": true}');
  expect(text).not.toMatch(/token=abc|nginx/);
});

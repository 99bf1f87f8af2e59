/**
 * The Pix Automático notifications read as claims (core/pixAutomatico/notifications.ts): which
 * recurrence or cycle charge to confirm with a GET, never what to believe. The document's own
 * examples are read, and are checked against its notification schemas (with the errata of
 * test/support/pixApiSpec.ts: RecNotification's broken `required` item would refuse them all).
 */
import { cycleChargeClaimsOf, recurrenceClaimsOf } from '../../core/pixAutomatico/notifications';
import { cycleIdOfTxid, cycleTxidFor, recContractFor, subscriptionIdOfRecContract } from '../../core/pix/apiPixIds';
import { pixApiDocument, pixApiSchemaValidator, type SchemaValidator } from '../support/pixApiSpec';

let schemas: SchemaValidator;
let examples: Record<string, { value: any }>;

beforeAll(async () => {
  schemas = await pixApiSchemaValidator(['RecNotification']);
  examples = (await pixApiDocument()).components.examples;
});

describe('the document’s notification examples', () => {
  it('RecNotification’s example follows its schema once the broken required item is read as "atualizacao"', () => {
    for (const rec of examples.recWebhookNotification1.value.recs) expect(schemas('RecNotification', rec)).toEqual([]);
  });

  it('the cobr example’s impossible date 2024-20-08 is read as 2024-08-20', () => {
    // Its attempt also lacks the `atualizacao` CobRTentativas requires: not patched, nothing reads it.
    expect(examples.cobRWebhookNotification1.value.cobsr[0].tentativas[0].dataLiquidacao).toBe('2024-08-20');
  });

  it('are read as claims', () => {
    expect(recurrenceClaimsOf(examples.recWebhookNotification1.value)).toEqual({
      claims: [{ idRec: 'RR1026652320240821lab77511abf', claimedStatus: 'APPROVED' }],
      ignored: 0,
    });
    expect(cycleChargeClaimsOf(examples.cobRWebhookNotification1.value)).toEqual({
      claims: [
        { txid: '3136957d93134f2184b369e8f1c0729d', idRec: 'RR1234567820240115abcdefghijk', claimedStatus: 'ACTIVE' },
      ],
      ignored: 0,
    });
  });
});

describe('recurrenceClaimsOf', () => {
  it('skips items without a valid idRec, claims each recurrence once (the last status wins)', () => {
    const claims = recurrenceClaimsOf({
      recs: [
        { idRec: 'RR1234567820261201abcdefghijk', status: 'CRIADA' },
        { idRec: 'short', status: 'APROVADA' },
        null,
        { status: 'APROVADA' },
        { idRec: 'RR1234567820261201abcdefghijk', status: 'CANCELADA' },
        { idRec: 'RN1234567820261201abcdefghijk', status: 'constructor' },
      ],
    });
    expect(claims).toEqual({
      claims: [
        { idRec: 'RR1234567820261201abcdefghijk', claimedStatus: 'CANCELLED' },
        { idRec: 'RN1234567820261201abcdefghijk', claimedStatus: null },
      ],
      ignored: 3,
    });
  });

  it('is null for a body that is not {recs: [...]}', () => {
    for (const body of [null, 'x', [], {}, { recs: {} }, { cobsr: [] }, { recs: new Array(1001).fill({}) }])
      expect(recurrenceClaimsOf(body)).toBeNull();
    expect(recurrenceClaimsOf({ recs: [] })).toEqual({ claims: [], ignored: 0 });
  });
});

describe('cycleChargeClaimsOf', () => {
  it('claims each txid once; an idRec of the wrong shape is dropped, not trusted', () => {
    expect(
      cycleChargeClaimsOf({
        cobsr: [
          { txid: '0123456789abcdef0123456789abcdef', idRec: 'nope', status: 'CONCLUIDA' },
          { txid: 'short', status: 'CONCLUIDA' },
          { txid: 'fedcba9876543210fedcba9876543210', idRec: 'RR1234567820261201abcdefghijk', status: 'REJEITADA' },
        ],
      }),
    ).toEqual({
      claims: [
        { txid: '0123456789abcdef0123456789abcdef', idRec: null, claimedStatus: 'PAID' },
        { txid: 'fedcba9876543210fedcba9876543210', idRec: 'RR1234567820261201abcdefghijk', claimedStatus: 'REJECTED' },
      ],
      ignored: 1,
    });
    expect(cycleChargeClaimsOf({ recs: [] })).toBeNull();
  });
});

describe('Pix Automático ids (core/pix/apiPixIds.ts)', () => {
  it('a cycle’s txid and a subscription’s contract are their UUID’s 32 hex digits, and back', () => {
    const id = '6F1C2D3E-4A5B-4C6D-8E7F-9A0B1C2D3E4F';
    expect(cycleTxidFor(id)).toBe('6f1c2d3e4a5b4c6d8e7f9a0b1c2d3e4f');
    expect(cycleIdOfTxid(cycleTxidFor(id))).toBe(id.toLowerCase());
    expect(recContractFor(id)).toBe('6f1c2d3e4a5b4c6d8e7f9a0b1c2d3e4f');
    expect(subscriptionIdOfRecContract('63100862')).toBeNull();
    expect(() => recContractFor('sub_123')).toThrow(RangeError);
  });
});

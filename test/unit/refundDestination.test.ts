/** Where a boleto's refund may go (core/refunds/destination.ts) and how a masked document is matched (core/documents.ts). */
import { shownDocumentMatches } from '../../core/documents';
import type { PixKeyOwner } from '../../core/provider';
import { mayBePayersKey, ownedByPayer, returnedByDevolucao } from '../../core/refunds/destination';

const PAYER = '52998224725';
const owner = (documentType: 'CPF' | 'CNPJ', document: string): PixKeyOwner => ({
  key: 'k',
  keyType: 'EMAIL',
  owner: { name: 'X', documentType, document },
  bank: { ispb: '99999999', name: 'B' },
});

it('a CPF masked as the directory shows it matches only when every shown digit is the payer’s', () => {
  expect(shownDocumentMatches('***.982.247-**', PAYER)).toBe(true);
  expect(shownDocumentMatches('***.982.247-**', '11144477735')).toBe(false);
  expect(shownDocumentMatches('***.982.248-**', PAYER)).toBe(false);
  expect(shownDocumentMatches('529.982.247-25', PAYER)).toBe(true);
  // Too little shown proves nothing; another length is another kind of document.
  expect(shownDocumentMatches('***.***.***-**', PAYER)).toBe(false);
  expect(shownDocumentMatches('*********25', PAYER)).toBe(false);
  expect(shownDocumentMatches('11.222.333/0001-81', PAYER)).toBe(false);
  expect(shownDocumentMatches('***.98x.247-**', PAYER)).toBe(false);
});

it('the directory’s owner is the payer only with the same document type and the shown digits equal', () => {
  expect(ownedByPayer(owner('CPF', '***.982.247-**'), '529.982.247-25')).toBe(true);
  expect(ownedByPayer(owner('CNPJ', '***.982.247-**'), PAYER)).toBe(false);
  expect(ownedByPayer(owner('CPF', '***.444.777-**'), PAYER)).toBe(false);
  expect(ownedByPayer(owner('CNPJ', '11.222.333/0001-81'), '11222333000181')).toBe(true);
});

it('a CPF or CNPJ key, or a document named with the destination, must be the payer’s before the directory is asked', () => {
  expect(mayBePayersKey({ pixKey: PAYER, pixKeyType: 'CPF', document: null }, PAYER)).toBe(true);
  expect(mayBePayersKey({ pixKey: '11144477735', pixKeyType: 'CPF', document: null }, PAYER)).toBe(false);
  expect(mayBePayersKey({ pixKey: 'a@b.com', pixKeyType: 'EMAIL', document: null }, PAYER)).toBe(true);
  expect(mayBePayersKey({ pixKey: 'a@b.com', pixKeyType: 'EMAIL', document: '111.444.777-35' }, PAYER)).toBe(false);
  expect(mayBePayersKey({ pixKey: 'a@b.com', pixKeyType: 'EMAIL', document: '529.982.247-25' }, PAYER)).toBe(true);
});

it('a payment with an endToEndId (Pix, or a boleto paid by its Pix) is returned by devolução', () => {
  expect(returnedByDevolucao({ endToEndId: 'E9999' })).toBe(true);
  expect(returnedByDevolucao({ endToEndId: null })).toBe(false);
});

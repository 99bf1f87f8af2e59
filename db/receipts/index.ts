/** The receipts domain's table (receipt_documents), through one store. */
export * as receiptDocumentStore from './receiptDocumentStore';

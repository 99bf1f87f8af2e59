/** Search attributes operators use in the Temporal Web UI (registered by the start/test scripts). */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const MerchantIdKey = defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD);
export const BusinessStatusKey = defineSearchAttributeKey('BusinessStatus', SearchAttributeType.KEYWORD);

/** `temporal server start-dev --search-attribute` values. */
export const searchAttributeRegistrations = ['MerchantId=Keyword', 'BusinessStatus=Keyword'];

/**
 * The one string type of every request schema: control characters (C0, DEL, C1, which include
 * NUL) are refused with 400 VALIDATION_ERROR. PostgreSQL refuses NUL in text, and the provider
 * and the payer's bank app show names and descriptions: a control character reached them as a
 * 5xx or as garbage. The pattern is in the OpenAPI document too.
 */
import { z } from 'zod';

// Matching control characters is the point of this pattern.
// eslint-disable-next-line no-control-regex
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001F\u007F-\u009F]*$/;
export const CONTROL_CHARACTERS_MESSAGE = 'must not contain control characters';

export const text = () => z.string().regex(NO_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE);

/** An absolute http(s) URL (`format: uri`), e.g. a webhook destination. */
export const httpUrl = () =>
  z
    .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
    .regex(NO_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
    .meta({ format: 'uri' });

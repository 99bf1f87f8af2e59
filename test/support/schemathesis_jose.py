"""schemathesis hooks: read the payload of an `application/jose` answer (a compact JWS, as API Pix
payload locations serve) so the response schema check covers it. The signature is not verified
here: test/sandbox/pixApiLocation.test.ts verifies it with jose against the published key set."""
import base64
import json

import schemathesis


@schemathesis.deserializer("application/jose")
def jws_payload(ctx, response):
    parts = response.content.split(b".")
    if len(parts) != 3:
        raise ValueError("not a compact JWS (three base64url parts)")
    payload = parts[1] + b"=" * (-len(parts[1]) % 4)
    return json.loads(base64.urlsafe_b64decode(payload))

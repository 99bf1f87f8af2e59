/**
 * Creates with an idempotency key, probing the key on purpose: sometimes the same request twice
 * at once, sometimes the same request again after its answer. Every answer for one key must name
 * the same resource; a different id is recorded as a finding (LoadStats.idMismatches).
 */
import type { CallResult, CallSpec, LoadClient } from './client';
import type { LoadStats } from './stats';

export interface KeyProbe {
  /** Send the request twice at once. */
  concurrent: boolean;
  /** Send it again once answered. */
  replay: boolean;
}

export async function createOnce(
  client: LoadClient,
  stats: LoadStats,
  spec: CallSpec & { key: string; idOf: (body: any) => string | undefined },
  probe: KeyProbe,
): Promise<CallResult> {
  let result: CallResult;
  if (probe.concurrent) {
    const both = await Promise.all([client.call(spec), client.call({ ...spec, op: `${spec.op}.twin` })]);
    const answered = both.filter((r) => r.ok);
    if (answered.length === 2)
      stats.compareIds(
        spec.op,
        spec.key,
        answered.map((r) => spec.idOf(r.body)),
        'concurrent',
      );
    result = answered[0] ?? both[0];
  } else {
    result = await client.call(spec);
  }
  if (result.ok && probe.replay) {
    const again = await client.call({ ...spec, op: `${spec.op}.replay` });
    if (again.ok) stats.compareIds(spec.op, spec.key, [spec.idOf(result.body), spec.idOf(again.body)], 'replay');
  }
  return result;
}

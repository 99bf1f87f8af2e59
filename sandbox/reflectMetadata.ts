/**
 * The Reflect metadata API (getMetadata, getOwnMetadata, defineMetadata, metadata, has…) that
 * @peculiar/x509 needs through its dependency tsyringe, which throws at load time without it. The
 * package's README asks for a polyfill (reflect-metadata), which is not installed in this project;
 * this is the small part of it those libraries call, kept per object in WeakMaps. Installed only
 * when no polyfill is present, so adding `reflect-metadata` later simply takes over.
 */
type MetadataKey = unknown;
type Property = string | symbol | undefined;

const byTarget = new WeakMap<object, Map<Property, Map<MetadataKey, unknown>>>();

function own(target: object, property: Property, create: boolean): Map<MetadataKey, unknown> | undefined {
  let properties = byTarget.get(target);
  if (!properties) {
    if (!create) return undefined;
    properties = new Map();
    byTarget.set(target, properties);
  }
  let values = properties.get(property);
  if (!values && create) {
    values = new Map();
    properties.set(property, values);
  }
  return values;
}

/** The prototype chain, as getMetadata (unlike getOwnMetadata) looks it up. */
function* chain(target: object): Generator<object> {
  for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) yield t;
}

const api = {
  defineMetadata: (key: MetadataKey, value: unknown, target: object, property?: Property) => void own(target, property, true)?.set(key, value),
  hasOwnMetadata: (key: MetadataKey, target: object, property?: Property) => own(target, property, false)?.has(key) ?? false,
  getOwnMetadata: (key: MetadataKey, target: object, property?: Property) => own(target, property, false)?.get(key),
  hasMetadata: (key: MetadataKey, target: object, property?: Property) => [...chain(target)].some((t) => own(t, property, false)?.has(key)),
  getMetadata: (key: MetadataKey, target: object, property?: Property) => {
    for (const t of chain(target)) {
      const values = own(t, property, false);
      if (values?.has(key)) return values.get(key);
    }
    return undefined;
  },
  /** The decorator form tslib's __metadata uses. */
  metadata: (key: MetadataKey, value: unknown) => (target: object, property?: Property) => api.defineMetadata(key, value, target, property),
};

const reflect = Reflect as unknown as Record<string, unknown>;
if (typeof reflect.getMetadata !== 'function') Object.assign(reflect, api);

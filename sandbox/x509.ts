/**
 * @peculiar/x509, loaded after the Reflect metadata API it needs (sandbox/reflectMetadata.ts):
 * import X.509 from here, never from the package directly, or the first import order decides
 * whether it loads.
 */
import './reflectMetadata';

export * from '@peculiar/x509';

/**
 * @peculiar/x509, loaded after the Reflect metadata polyfill its dependency tsyringe needs at load
 * time (the package's README asks for it): import X.509 from here, never from the package
 * directly, or the first import order decides whether it loads.
 */
import 'reflect-metadata';

export * from '@peculiar/x509';

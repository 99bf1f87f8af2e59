/**
 * The project's X.509 maker (a CA and the leaves it signs) for the dev scripts and tests: it lives
 * in sandbox/pki.ts, which the sandbox's certificate per account uses too (a product folder may
 * not import scripts/).
 */
export * from '../../sandbox/pki';

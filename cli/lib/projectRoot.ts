import path from 'node:path';

/** The checkout; compiled (dist/cli/lib, the CLI's build), the directory holding dist/. */
const above = path.resolve(__dirname, '..', '..');
export const projectRoot = path.basename(above) === 'dist' ? path.dirname(above) : above;

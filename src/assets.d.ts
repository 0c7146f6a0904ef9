// Text files bundled into the CLI by esbuild's text loader (scripts/build.mjs).
declare module '*.yaml' {
  const text: string;
  export default text;
}

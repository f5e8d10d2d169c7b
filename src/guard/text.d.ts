// Shell scripts are bundled as text (esbuild loader `.sh: text`, scripts/build.mjs).
declare module '*.sh' {
  const text: string;
  export default text;
}

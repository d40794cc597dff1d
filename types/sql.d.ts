// Migrations are plain .sql files bundled as text (esbuild `text` loader, and a vite plugin in tests).
declare module '*.sql' {
  const text: string;
  export default text;
}

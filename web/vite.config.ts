import { defineConfig } from 'vite';

// The output folder comes from the CMake build (MIXFORGE_WEB_OUT); `npm run build` alone
// writes web/dist.
export default defineConfig({
  base: './',
  build: {
    outDir: process.env.MIXFORGE_WEB_OUT || 'dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
    chunkSizeWarningLimit: 400,
  },
  server: { fs: { allow: ['..'] } },
});

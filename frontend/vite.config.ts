/// <reference types="vitest/config" />
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  plugins: [vue()],
  // Wails serves the built files from its own asset server; relative URLs
  // keep them valid there and under `vite preview`.
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'happy-dom',
    include: ['src/**/*.test.ts'],
    // Some component tests walk thousands of DOM items: on a loaded 2-core
    // machine they pass the 5 s default only barely. No test here is a speed
    // check (those are benchmarks), so the limit only catches hangs.
    testTimeout: 30000,
  },
})

// Worker entry: runs the TypeScript upload reader through tsx, as cli/kafka-why.mjs runs the CLI, so a
// worker thread needs no build step either (loader hooks are not inherited by worker threads).
import { register } from 'tsx/esm/api'

register()
await import('./read-in-worker.ts')

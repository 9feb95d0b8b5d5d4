#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

// A command is done when main() settles: exit then, even if a handlers module holds a
// timer or a connection pool open.
main(process.argv).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);

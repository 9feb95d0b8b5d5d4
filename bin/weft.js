#!/usr/bin/env node
import { exitAfterOutput, letReadersLeave } from '../dist/bundle/exit-after-output.js';
import { main } from '../dist/bundle/main.js';

// A reader that leaves early (`weft list --json | head`) ends nothing: the command still
// closes its store and exits with its own code.
letReadersLeave();
// A command is done when main() settles: exit then, even if a handlers module holds a
// timer or a connection pool open, once all it printed has left the process (a pipe
// takes it as fast as its reader reads).
main(process.argv).then(
  (code) => exitAfterOutput(code),
  (error) => {
    console.error(error instanceof Error ? error.message : String(error));
    exitAfterOutput(1);
  },
);

#!/usr/bin/env node
// The example worker runs no model and calls no tools, so there is nothing for a guard to stop;
// this file exists because every harness must declare one (the standard's lock rule).
process.exit(0);

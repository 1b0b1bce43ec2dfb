// Loaded into dynalite with `node --require` by deploy/local/servers.sh.
//
// dynalite 4.0.0 rethrows the error of every incoming request
// (index.js: req.on('error', function (err) { throw err })), so a client
// that gives up on a request mid-body (a timeout, a killed writer) makes
// Node exit with "Error: aborted" (ECONNRESET). The fault suite met it:
// after it restarted dynalite, writers' timed-out requests killed the new
// process. A DynamoDB server does not die when one client hangs up; with
// this guard, dynalite logs the aborted request and goes on. Any other
// uncaught exception still ends the process, as before.
'use strict';

process.on('uncaughtException', (err) => {
  if (err && (err.code === 'ECONNRESET' || err.message === 'aborted')) {
    process.stderr.write(`dynalite-guard: a client aborted a request (${err.message}); serving on\n`);
    return;
  }
  process.stderr.write(`dynalite: uncaught exception: ${(err && err.stack) || err}\n`);
  process.exit(1);
});

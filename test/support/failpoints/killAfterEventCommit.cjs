/**
 * Preloaded into a worker process (spawnWorkerProcess's `preload`): the process kills itself with
 * SIGKILL the moment a transaction that recorded webhook deliveries has committed, before anything
 * registered to run after that commit (the first delivery attempt, activities/events/outbox.ts)
 * can run. The one place sequelize's afterCommit is used is there, so the hook is exactly "between
 * the commit and the send". Plain CommonJS: node's flags reach the workflow threads too, which
 * have no TypeScript loader (and no database: they are left alone). Tests only.
 */
const { isMainThread } = require('node:worker_threads');

if (isMainThread) {
  const { Transaction } = require('sequelize');
  const afterCommit = Transaction.prototype.afterCommit;
  // The caller's own hook is dropped: in its place, one that dies once the commit is done.
  Transaction.prototype.afterCommit = function killAfterCommit() {
    return afterCommit.call(this, () => process.kill(process.pid, 'SIGKILL'));
  };
}

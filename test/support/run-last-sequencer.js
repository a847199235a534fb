/**
 * Jest's own order (failed first, then slowest first), except that the files listed here start
 * after every other file. The acceptance file on alarms pauses the shared runtime's supervisor for
 * a minute or two: run in band (two cores, test:acceptance) it restores everything before the next
 * file, but beside other files it would slow their recoveries, and slowest-first would start it
 * early. Last, it overlaps as little as the workers allow.
 */
const Sequencer = require('@jest/test-sequencer').default;

const RUN_LAST = ['test/acceptance/scheduler-agent-supervisor/alarms.test.ts'];

class RunLastSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const last = (test) => RUN_LAST.some((path) => test.path.replaceAll('\\', '/').endsWith(path));
    return [...sorted.filter((test) => !last(test)), ...sorted.filter(last)];
  }
}

module.exports = RunLastSequencer;

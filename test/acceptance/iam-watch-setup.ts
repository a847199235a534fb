/**
 * Every acceptance test fails when the app was denied a request while it ran (see iam-watch.ts):
 * a scenario that happened to pass without the denied call still names the missing grant.
 */
import { watchAppDenials } from './iam-watch';

let watch: ReturnType<typeof watchAppDenials> | undefined;

beforeEach(() => {
  watch = watchAppDenials();
});

afterEach(() => {
  watch?.check();
});

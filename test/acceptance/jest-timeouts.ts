import { scenarioTimeoutMs } from './setup';

// A scenario may wait for a full supervisor recovery; the per-test bound follows the profile.
jest.setTimeout(scenarioTimeoutMs.recovery + 30_000);
